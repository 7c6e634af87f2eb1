import Foundation
import XCTest

/// A `retrolua` child that keeps running until a test signals or kills it: its output is read while
/// it runs, and `waitUntil` polls the files it writes (never the clock) to know it got somewhere.
final class ChildProcess {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private let collected = Collected()

    init(_ arguments: [String], home: String, environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = arguments
        var environment = Fixtures.headlessEnvironment(home: home)
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let (collected, out, err) = (collected, out, err)
        Thread { collected.setOut(out.fileHandleForReading.readDataToEndOfFile()) }.start()
        Thread { collected.setErr(err.fileHandleForReading.readDataToEndOfFile()) }.start()
        // A child that never ends fails its test instead of hanging the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 90) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Polls `condition` every 5 ms while the child runs; false when the child ended first.
    @discardableResult
    func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<12_000 {
            if condition() { return true }
            if !process.isRunning { return condition() }
            usleep(5_000)
        }
        return false
    }

    /// Waits until the child handles the stop signals (SIGHUP, SIGINT, SIGTERM caught, per /proc).
    func waitUntilHandlingSignals() {
        let wanted: UInt64 = 1 << 0 | 1 << 1 | 1 << 14
        waitUntil {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & wanted == wanted
        }
    }

    func signal(_ number: Int32) { kill(pid, number) }

    func finish() -> Fixtures.Result {
        process.waitUntilExit()
        while !collected.done { usleep(1000) }
        return Fixtures.Result(
            status: process.terminationReason == .uncaughtSignal
                ? -process.terminationStatus : process.terminationStatus,
            stdout: collected.stdout, stderr: collected.stderr)
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var outData: Data?, errData: Data?
        func setOut(_ data: Data) { lock.lock(); outData = data; lock.unlock() }
        func setErr(_ data: Data) { lock.lock(); errData = data; lock.unlock() }
        var done: Bool { lock.lock(); defer { lock.unlock() }; return outData != nil && errData != nil }
        var stdout: String {
            lock.lock(); defer { lock.unlock() }; return String(decoding: outData ?? Data(), as: UTF8.self)
        }
        var stderr: String {
            lock.lock(); defer { lock.unlock() }; return String(decoding: errData ?? Data(), as: UTF8.self)
        }
    }
}
