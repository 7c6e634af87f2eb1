import Emulation
import Foundation

/// `retrolua batch JOBS.jsonl --jobs N`: many headless runs fanned out over processes, one JSON line
/// of results per job; a failing job is reported and the others go on.
enum BatchCommand {
    static let help = """
        usage: retrolua batch JOBS.jsonl [--jobs N]

        Runs one headless `retrolua run` per line of JOBS.jsonl, N at a time (default: the number of
        cores), each in its own process, and prints one JSON line per job as it finishes:
          {"job": 1, "name": …, "status": 0, "ok": true, "seconds": 0.8, "result": {…the run's --json…}}
        A job line is a JSON object: {"name": "optional", "rom": "game.nes", "core": "nestopia",
        "script": "bot.lua" (or a list), "frames": 6000, "args": ["--option", "k=v", …],
        "env": {"SEED": "7"} (extra environment variables, e.g. for a bot's os.getenv)}.
        Blank lines and lines starting with # are skipped. A job that fails (exit status ≠ 0, a crash,
        a bad line) is reported with its error; the exit status is 1 when any job failed.
        """

    struct Job {
        let number: Int
        let name: String
        let arguments: [String]?
        let problem: String?
        var environment: [String: String] = [:]
        /// The status reported for a job that never started (a usage error's, or -1 for a bad line).
        var status = -1
    }

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, valued: ["jobs"], flags: ["help"]) } catch {
            fail("batch: \(error)\n\n\(help)", code: Exit.usage)
        }
        if args.flag("help") { print(help); exit(0) }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            fail("batch: expected one JOBS.jsonl file\n\n\(help)", code: Exit.usage)
        }
        let parallel: Int
        do { parallel = try args.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount } catch {
            fail("batch: \(error)", code: Exit.usage)
        }
        guard parallel >= 1 else { fail("batch: --jobs must be at least 1", code: Exit.usage) }
        guard let data = FileManager.default.contents(atPath: path) else { fail("\(path): no such jobs file") }
        let jobs = parse(String(decoding: data, as: UTF8.self))
        guard !jobs.isEmpty else { fail("\(path): no jobs") }

        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let output = Output()
        let slots = DispatchSemaphore(value: parallel)
        let group = DispatchGroup()
        let start = Date()
        for job in jobs {
            slots.wait()
            group.enter()
            DispatchQueue.global().async {
                let line = run(job, binary: binary)
                output.emit(line)
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        let failed = output.failures
        FileHandle.standardError.write(
            Data(
                String(
                    format: "batch: %d jobs, %d passed, %d failed in %.2f s\n",
                    jobs.count, jobs.count - failed, failed, Date().timeIntervalSince(start)
                ).utf8))
        exit(failed == 0 ? 0 : Exit.failure)
    }

    /// One `Job` per non-blank line; a line that is not a usable job becomes a job that fails.
    static func parse(_ text: String) -> [Job] {
        var jobs: [Job] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = jobs.count + 1
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                jobs.append(
                    Job(
                        number: number, name: "line \(index + 1)", arguments: nil,
                        problem: "line \(index + 1) is not a JSON object"))
                continue
            }
            let name = object["name"] as? String ?? "line \(index + 1)"
            var arguments = ["run"]
            if let rom = object["rom"] as? String { arguments.append(rom) }
            arguments.append("--headless")
            if let core = object["core"] as? String { arguments += ["--core", core] }
            let scripts = (object["script"] as? String).map { [$0] } ?? (object["script"] as? [String]) ?? []
            for script in scripts { arguments += ["--script", script] }
            if let frames = object["frames"] as? Int { arguments += ["--frames", String(frames)] }
            if let extra = object["args"] {
                guard let list = extra as? [String] else {
                    jobs.append(
                        Job(number: number, name: name, arguments: nil, problem: "'args' must be a list of strings"))
                    continue
                }
                arguments += list
            }
            var environment: [String: String] = [:]
            if let env = object["env"] {
                guard let table = env as? [String: Any] else {
                    jobs.append(
                        Job(number: number, name: name, arguments: nil, problem: "'env' must be an object of strings"))
                    continue
                }
                for (key, value) in table { environment[key] = value as? String ?? "\(value)" }
            }
            let unknown = Set(object.keys).subtracting(["name", "rom", "core", "script", "frames", "args", "env"])
            guard unknown.isEmpty else {
                jobs.append(
                    Job(number: number, name: name, arguments: nil, problem: "unknown field '\(unknown.sorted()[0])'"))
                continue
            }
            arguments.append("--json")
            if let refusal = refusal(of: Array(arguments.dropFirst())) {
                jobs.append(Job(number: number, name: name, arguments: nil, problem: refusal, status: Int(Exit.usage)))
                continue
            }
            jobs.append(Job(number: number, name: name, arguments: arguments, problem: nil, environment: environment))
        }
        return jobs
    }

    /// A job's arguments are read by `retrolua run`'s own parser: a command line the run would refuse
    /// fails the job with the run's message before a process starts. (What depends on the job's
    /// environment, such as the built-in demo's place, is left to the job's own process.)
    static func refusal(of arguments: [String]) -> String? {
        do throws(CommandLineError) { _ = try RunArguments.parse(arguments) } catch {
            return error.code == Exit.usage ? error.message : nil
        }
        return nil
    }

    /// Runs one job in its own process; its result line.
    static func run(_ job: Job, binary: String) -> [String: Any] {
        var line: [String: Any] = ["job": job.number, "name": job.name]
        guard let arguments = job.arguments else {
            line["ok"] = false
            line["status"] = job.status
            line["error"] = job.problem ?? "bad job"
            return line
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if !job.environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(job.environment) { _, job in job }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let start = Date()
        do { try process.run() } catch {
            line["ok"] = false
            line["status"] = -1
            line["error"] = "cannot start \(binary): \(error.localizedDescription)"
            return line
        }
        // Read both pipes while the job runs: a chatty job must not block on a full pipe.
        let errorText = LockedData()
        let reader = Thread { errorText.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorText.isSet { usleep(1000) }
        line["seconds"] = Date().timeIntervalSince(start)
        let crashed = process.terminationReason == .uncaughtSignal
        line["status"] = crashed ? -Int(process.terminationStatus) : Int(process.terminationStatus)
        line["ok"] = !crashed && process.terminationStatus == 0
        let lastLine = String(decoding: stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        if let result = try? JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any] {
            line["result"] = result
        }
        if !(line["ok"] as! Bool) {
            let stderr = String(decoding: errorText.value, as: UTF8.self).split(separator: "\n").suffix(5).joined(
                separator: "\n")
            let what =
                crashed ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
            line["error"] = stderr.isEmpty ? what : what + ": " + stderr
        }
        return line
    }

    /// Prints result lines whole, one at a time, and counts failures.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var failures = 0

        func emit(_ line: [String: Any]) {
            let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data("{}".utf8)
            lock.lock()
            defer { lock.unlock() }
            if !(line["ok"] as? Bool ?? false) { failures += 1 }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
        var value: Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
    }
}
