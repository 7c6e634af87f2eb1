import Foundation
import XCTest

extension Fixtures {
    /// This process's environment for a child with its own HOME and no user folders (XDG_*) or display:
    /// headless, touching no user files, unless a test brings its own.
    static func headlessEnvironment(home: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        for key in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "DISPLAY", "WAYLAND_DISPLAY"] {
            environment[key] = nil
        }
        return environment
    }

    /// Runs `executable` to its end with exactly `environment` (in `folder` where given; no input unless
    /// `closedInput` is false); killed after `timeout` seconds so a hang fails its test instead of the suite.
    static func run(
        _ executable: String, _ arguments: [String], in folder: String? = nil, environment: [String: String],
        timeout: Double = 120, closedInput: Bool = true
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if closedInput { process.standardInput = FileHandle.nullDevice }
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a build tool (the C compiler, an assembler) to its end; the test fails unless it succeeds.
    static func tool(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(executable) \(arguments.joined(separator: " "))")
    }

    /// Runs Tests/python/`script` (a unittest script) against this build's binary; fails the test unless it passes.
    static func assertPythonUnittestPasses(
        _ script: String, timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try cli(
            [], environment: ["RETROLUA": binary], executable: "/usr/bin/env",
            arguments: [python, root + "/Tests/python/" + script], timeout: timeout)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains("OK"), result.stderr, file: file, line: line)
    }
}

extension Fixtures {
    /// Runs Tests/python/`script` under pytest (the tests `selecting` names, where given) against this build's
    /// binary; fails the test unless pytest passes and its last line says `summary` ("6 passed": none skipped).
    static func assertPytestPasses(
        _ script: String, selecting selection: String? = nil, summary: String, timeout: Double = 600,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let select = selection.map { ["-k", $0] } ?? []
        let result = try cli(
            [], environment: ["RETROLUA": binary], executable: python,
            arguments: ["-m", "pytest", "-q", "-p", "no:cacheprovider"] + select + [root + "/Tests/python/" + script],
            timeout: timeout)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr, file: file, line: line)
        XCTAssertTrue(result.stdout.contains(summary), result.stdout, file: file, line: line)
    }
}

extension Fixtures.Result {
    /// A fixture script's run: it ended well, printed `summary` (its count of checks) and no FAIL line.
    func assertChecksPassed(_ summary: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(status, 0, stderr, file: file, line: line)
        XCTAssertTrue(stdout.contains(summary), stdout + stderr, file: file, line: line)
        XCTAssertFalse(stdout.contains("FAIL"), stdout, file: file, line: line)
    }
}
