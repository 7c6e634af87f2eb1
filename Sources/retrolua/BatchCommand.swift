import Emulation
import Foundation

/// `retrolua batch JOBS.jsonl --jobs N`: many headless runs fanned out over processes, one JSON line
/// of results per job; a failing job is reported and the others go on.
enum BatchCommand {
    static let spec = CommandSpec(
        name: "batch", summary: "headless runs from a JSON-lines file, fanned out over processes",
        usage: [
            "batch JOBS.jsonl [--jobs N] [--timeout SECONDS]",
            "batch --ray ADDRESS JOBS.jsonl [--jobs N] [--timeout SECONDS] [--cpus N]",
        ],
        description: """
            Runs one headless `retrolua run` per line of JOBS.jsonl, N at a time (default: the number of
            cores), each in its own process, and prints one JSON line per job as it finishes:
              {"job": 1, "name": …, "status": 0, "ok": true, "seconds": 0.8, "result": {…the run's --json…}}
            A job line is a JSON object: {"name": "optional", "rom": "game.nes", "core": "nestopia",
            "script": "bot.lua" (or a list), "frames": 6000, "args": ["--option", "k=v", …],
            "env": {"SEED": "7"} (extra environment variables, e.g. for a bot's os.getenv),
            "timeout": 60 (seconds; default --timeout, none without it)}.
            Blank lines and lines starting with # are skipped. A job that fails (exit status ≠ 0, a crash,
            a bad line, its timeout: it is stopped with SIGTERM, then SIGKILL 2 s later, and reported with
            "timed_out": true) is reported with its error; the exit status is 1 when any job failed.
            SIGINT, SIGTERM or SIGHUP stop the batch: no new job starts, the running ones are stopped the
            same way, and batch exits with 128 + the signal (130, 143, 129).
            """,
        groups: [
            OptionGroup([
                Option("jobs", "N", "jobs at a time (default: the number of cores; with --ray, the jobs in flight)"),
                Option("timeout", "SECONDS", "stop a job after this long (a job line's \"timeout\" overrides it)"),
                Option(
                    "ray", "ADDRESS",
                    "run the jobs on a Ray cluster instead (`python3 -m retrolua.ray batch`: the same lines and exit "
                        + "status; \"auto\" or \"local\" as in ray.init). ROMs and scripts must be at the same paths "
                        + "on every node. The interpreter is $RETROLUA_PYTHON, else build/venv/bin/python of the "
                        + "source tree, else python3"
                ),
                Option("cpus", "N", "with --ray: the CPUs each job reserves"),
                Option(
                    "line-offset", "N",
                    "count line numbers in job names and messages after N (for runners that hand each job its own "
                        + "file, as retrolua.ray does)"
                ),
            ])
        ])

    static var help: String { spec.helpText }

    struct Job {
        let number: Int
        let name: String
        let arguments: [String]?
        let problem: String?
        var environment: [String: String] = [:]
        /// The status reported for a job that never started (a usage error's, or -1 for a bad line).
        var status = -1
        /// Seconds before the job is stopped (nil: no limit).
        var timeout: Double?
    }

    static func main(_ raw: [String]) {
        let args: Arguments
        do {
            args = try Arguments(raw, spec: spec)
        } catch {
            usageFail("batch: \(error)", command: "batch")
        }
        if args.flag("help") { print(help); exit(0) }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            usageFail("batch: expected one JOBS.jsonl file", command: "batch")
        }
        let parallel: Int
        do { parallel = try args.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount } catch {
            fail("batch: \(error)", code: Exit.usage)
        }
        guard parallel >= 1 else { fail("batch: --jobs must be at least 1", code: Exit.usage) }
        var defaultTimeout: Double?
        if let text = args.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                fail("batch: --timeout must be a number of seconds above 0, got '\(text)'", code: Exit.usage)
            }
            defaultTimeout = seconds
        }
        if let address = args.value("ray") { runOnRay(address, path: path, args: args) }
        if args.value("cpus") != nil { fail("batch: --cpus needs --ray", code: Exit.usage) }
        let offset: Int
        do { offset = try args.integer("line-offset") ?? 0 } catch { fail("batch: \(error)", code: Exit.usage) }
        guard let data = FileManager.default.contents(atPath: path) else { fail("\(path): no such jobs file") }
        let jobs = parse(String(decoding: data, as: UTF8.self), lineOffset: offset).map { job in
            var job = job
            if job.timeout == nil { job.timeout = defaultTimeout }
            return job
        }
        guard !jobs.isEmpty else { fail("\(path): no jobs") }

        let binary = HostPaths.executablePath()
        let output = Output()
        let children = BatchChildren()
        children.stopOnSignals()
        let slots = DispatchSemaphore(value: parallel)
        let group = DispatchGroup()
        let start = Date()
        for job in jobs {
            slots.wait()
            if children.stopSignal != nil { break }  // Stopping: the jobs not started are not run.
            group.enter()
            DispatchQueue.global().async {
                let line = run(job, binary: binary, children: children)
                output.emit(line)
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        let failed = output.failures, ran = output.emitted
        let skipped = jobs.count - ran
        FileHandle.standardError.write(
            Data(
                String(
                    format: "batch: %d jobs, %d passed, %d failed%@ in %.2f s\n",
                    jobs.count, ran - failed, failed,
                    skipped > 0 ? ", \(skipped) not started (stopped by a signal)" : "",
                    Date().timeIntervalSince(start)
                ).utf8))
        if let signal = children.stopSignal { exit(128 + signal) }
        exit(failed == 0 ? 0 : Exit.failure)
    }

    /// One `Job` per non-blank line; a line that is not a usable job becomes a job that fails.
    static func parse(_ text: String, lineOffset: Int = 0) -> [Job] {
        var jobs: [Job] = []
        for (place, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let index = place &+ lineOffset
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
            var timeout: Double?
            do {
                if let frames = try whole(object["frames"], "frames", job: name) {
                    arguments += ["--frames", String(frames)]
                }
                timeout = try seconds(object["timeout"], "timeout", job: name)
            } catch {
                jobs.append(Job(number: number, name: name, arguments: nil, problem: error.message))
                continue
            }
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
            let unknown = Set(object.keys).subtracting([
                "name", "rom", "core", "script", "frames", "args", "env", "timeout",
            ])
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
            jobs.append(
                Job(
                    number: number, name: name, arguments: arguments, problem: nil, environment: environment,
                    timeout: timeout))
        }
        return jobs
    }

    struct FieldError: Error { let message: String }

    /// A job field that must be a whole number (JSON numbers only: "600" as a string is refused).
    static func whole(_ value: Any?, _ field: String, job: String) throws(FieldError) -> Int? {
        guard let value else { return nil }
        guard !(value is String), let number = value as? NSNumber, let whole = Int(exactly: number.doubleValue),
            whole >= 0
        else {
            throw FieldError(message: "job '\(job)': '\(field)' must be a whole number, got \(describe(value))")
        }
        return whole
    }

    /// A job field that must be a number of seconds above 0.
    static func seconds(_ value: Any?, _ field: String, job: String) throws(FieldError) -> Double? {
        guard let value else { return nil }
        guard !(value is String), let number = value as? NSNumber, number.doubleValue > 0,
            number.doubleValue.isFinite
        else {
            throw FieldError(
                message: "job '\(job)': '\(field)' must be a number of seconds above 0, got \(describe(value))")
        }
        return number.doubleValue
    }

    private static func describe(_ value: Any) -> String {
        if let text = value as? String { return "the string \"\(text.prefix(40))\"" }
        if let data = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        return "a \(type(of: value))"
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

    /// Prints result lines whole, one at a time, and counts failures.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var failures = 0
        private(set) var emitted = 0

        func emit(_ line: [String: Any]) {
            let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data("{}".utf8)
            lock.lock()
            defer { lock.unlock() }
            emitted += 1
            if !(line["ok"] as? Bool ?? false) { failures += 1 }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
