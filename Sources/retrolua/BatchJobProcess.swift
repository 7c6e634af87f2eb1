import Dispatch
import Foundation
import Control
import Frontend
import Run
import Scripting
import Support
import Glibc

extension BatchCommand {
    /// Seconds between SIGTERM (the job ends cleanly, writing its saves and report) and SIGKILL.
    static let stopGrace = 2.0

    /// Runs one job in its own process; its result line.
    static func run(_ job: Job, binary: String, children: BatchChildren) -> [String: Any] {
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
        children.add(process)
        let timedOut = LockedFlag()
        let timer = job.timeout.map { seconds in
            let item = DispatchWorkItem {
                timedOut.set()
                BatchChildren.stop(process)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        // Read both pipes while the job runs: a chatty job must not block on a full pipe.
        let errorText = LockedData()
        let reader = Thread { errorText.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer?.cancel()
        children.remove(process)
        while !errorText.isSet { usleep(1000) }
        line["seconds"] = Date().timeIntervalSince(start)
        let crashed = process.terminationReason == .uncaughtSignal
        line["status"] = crashed ? -Int(process.terminationStatus) : Int(process.terminationStatus)
        line["ok"] = !crashed && process.terminationStatus == 0 && !timedOut.isSet
        let lastLine = String(decoding: stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        if let result = try? JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any] {
            line["result"] = result
        }
        if timedOut.isSet { line["timed_out"] = true }
        if !(line["ok"] as! Bool) {
            let stderr = String(decoding: errorText.value, as: UTF8.self).split(separator: "\n").suffix(5).joined(
                separator: "\n")
            var what =
                crashed ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
            if timedOut.isSet {
                what = "timed out after \(job.timeout!) s and was stopped (\(what))"
            } else if let signal = children.stopSignal {
                what = "stopped: batch got signal \(signal) (\(what))"
            }
            line["error"] = stderr.isEmpty ? what : what + ": " + stderr
        }
        return line
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
        var value: Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
    }

    final class LockedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    }
}

/// The jobs' processes while they run: a stop signal to batch stops every one of them (SIGTERM, then
/// SIGKILL after the grace), so killing a batch never leaves its jobs running.
final class BatchChildren: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [ObjectIdentifier: Process] = [:]
    private var signal: Int32?

    /// The stop signal batch got, if any.
    var stopSignal: Int32? { lock.lock(); defer { lock.unlock() }; return signal }

    /// The process's one stop mechanism (StopSignals, as every run uses) stops the jobs too.
    func stopOnSignals() {
        StopSignals.onStop { [unowned self] number in self.stopAll(because: number) }
    }

    /// A job started: when batch is already stopping it is stopped at once.
    func add(_ process: Process) {
        lock.lock()
        running[ObjectIdentifier(process)] = process
        let stopping = signal != nil
        lock.unlock()
        if stopping { Self.stop(process) }
    }

    func remove(_ process: Process) {
        lock.lock()
        running[ObjectIdentifier(process)] = nil
        lock.unlock()
    }

    private func stopAll(because number: Int32) {
        lock.lock()
        if signal == nil { signal = number }
        let processes = Array(running.values)
        lock.unlock()
        for process in processes { Self.stop(process) }
    }

    /// SIGTERM now (the job ends cleanly), SIGKILL after the grace if it has not ended by then.
    static func stop(_ process: Process) {
        let pid = process.processIdentifier
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + BatchCommand.stopGrace) {
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }
}
