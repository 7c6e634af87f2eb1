import Foundation
import XCTest
@testable import Run

/// `retrolua run --mcp`: the address is loopback only, and the run starts Python's MCP server on its own
/// socket with a bearer token, and ends it. A stand-in `python3` on PATH records how it was started (the
/// HTTP side is Python's, tested there).
final class McpServeTests: XCTestCase {
    func testTheAddressForms() throws {
        XCTAssertEqual(try McpPlan.parse(nil), McpPlan(host: "127.0.0.1", port: 6502))
        XCTAssertEqual(try McpPlan.parse("7000"), McpPlan(host: "127.0.0.1", port: 7000))
        XCTAssertEqual(try McpPlan.parse("127.0.0.1:7001"), McpPlan(host: "127.0.0.1", port: 7001))
        XCTAssertEqual(try McpPlan.parse("[::1]:7002").address, "[::1]:7002")
        XCTAssertEqual(try McpPlan.parse("LOCALHOST:7003"), McpPlan(host: "localhost", port: 7003))
        XCTAssertEqual(try McpPlan.parse("::1").url, "http://[::1]:6502/mcp")
        for (text, message) in [
            ("0.0.0.0:7000", "not 0.0.0.0"), ("10.0.0.1", "not 10.0.0.1"), ("[::]:7000", "not ::"),
            ("127.0.0.1:0", "the port must be 1…65535, got '0'"), ("localhost:99999", "got '99999'"),
            ("localhost:", "got ''"), ("[::1]x", "is not PORT"),
        ] {
            XCTAssertThrowsError(try McpPlan.parse(text), text) {
                XCTAssertTrue(($0 as? RunFailure)?.message.contains(message) == true, "\(text): \($0)")
            }
        }
    }

    func testNonLoopbackHostsAndBadPortsAreRefusedBeforeTheRun() throws {
        let loopbackOnly = "--mcp: MCP is served on loopback only (127.0.0.1, ::1, localhost), not "
        for (arguments, message) in [
            (["--mcp", "0.0.0.0:7000"], loopbackOnly + "0.0.0.0"),
            (["--mcp", "10.0.0.1"], loopbackOnly + "10.0.0.1"),
            (["--mcp=10.0.0.1:80"], loopbackOnly + "10.0.0.1"),
            (["--mcp", "abc"], loopbackOnly + "abc"),
            (["--mcp", "0"], "--mcp: the port must be 1…65535, got '0'"),
            (["--mcp-token", "/tmp/t"], "--mcp-token applies to --mcp"),
            (["--mcp", "--no-control"], "--mcp attaches to the run's socket: not with --no-control"),
            (["--mcp", "--control", "tcp:127.0.0.1:0"], "--mcp needs a Unix socket"),
        ] {
            let result = try Fixtures.cli(["run", Fixtures.nesROM, "--headless"] + arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("run: " + message), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("frame hash"), "refused before the run")
        }
    }

    func testWithoutThePythonPackageTheRunRefusesWithTheInstallHint() throws {
        let fake = try FakePython()
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--mcp", String(try freePort())], home: fake.folder,
            environment: fake.environment(["FAKE_IMPORT_STATUS": "1"]))
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("pip install 'retrolua[mcp]'"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fake.folder + "/record/argv"), "no server started")
    }

    /// A headless run serves its socket; the server is started on it with the token, and ended with the run.
    func testAHeadlessRunStartsTheServerOnItsSocketWithAToken() throws {
        let fake = try FakePython()
        let port = try freePort()
        let run = try McpRun(
            ["run", Fixtures.nesROM, "--headless", "--mcp", String(port), "--data-dir", fake.folder + "/data"],
            fake: fake)
        XCTAssertTrue(run.waitUntil { FileManager.default.fileExists(atPath: fake.folder + "/record/argv") })
        let socket = fake.folder + "/runtime/retrolua/\(run.pid).sock"
        XCTAssertEqual(
            try fake.recorded("argv"),
            ["-m", "retrolua.mcp", "--attach", "unix:" + socket, "--http", "127.0.0.1:\(port)"])
        let tokenFile = fake.folder + "/mcp-\(port).token"
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertGreaterThanOrEqual(token.count, 32)
        XCTAssertTrue(token.allSatisfy(\.isHexDigit), token)
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let environment = try fake.recorded("env")
        XCTAssertTrue(environment.contains("RETROLUA_MCP_TOKEN=" + token))
        XCTAssertTrue(environment.contains("RETROLUA_MCP_PARENT=\(run.pid)"))
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(run.pid)/exe")
        XCTAssertTrue(environment.contains("RETROLUA=" + binary), "\(environment.filter { $0.hasPrefix("RETRO") })")
        // Headless, the game waits for the agent: the socket answers, and no frame ran by itself.
        let info = try UnixLineClient(path: socket).request(#"{"cmd": "info"}"#)
        XCTAssertTrue(info.contains("\"frame\":0"), info)
        run.signal(SIGTERM)
        let stderr = run.finish()
        XCTAssertEqual(run.status, 143, stderr)
        XCTAssertTrue(
            stderr.contains("retrolua: mcp: serving http://127.0.0.1:\(port)/mcp (bearer token in \(tokenFile))\n"),
            stderr)
        XCTAssertEqual(stderr.components(separatedBy: "mcp: serving").count, 2, "said once")
        XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile), "the token goes with the run")
        XCTAssertTrue(
            run.waitUntil(ended: true) { FileManager.default.fileExists(atPath: fake.folder + "/record/terminated") })
    }

    /// `--mcp-token FILE` is the token; a server that dies early is said, and the game runs on without it.
    func testAGivenTokenAndAServerThatDiesEarly() throws {
        let fake = try FakePython()
        let port = try freePort()
        let given = fake.folder + "/given.token"
        try "a-token-of-my-own-0123456789\n".write(toFile: given, atomically: true, encoding: .utf8)
        let run = try McpRun(
            ["run", Fixtures.nesROM, "--headless", "--mcp", "localhost:\(port)", "--mcp-token", given, "--json"],
            fake: fake, environment: ["FAKE_EXIT": "3"])
        XCTAssertTrue(run.waitUntil { run.stderr.contains("mcp: the MCP server ended (exit status 3)") }, run.stderr)
        XCTAssertTrue(try fake.recorded("env").contains("RETROLUA_MCP_TOKEN=a-token-of-my-own-0123456789"))
        XCTAssertTrue(try fake.recorded("argv").contains("localhost:\(port)"))
        let client = try UnixLineClient(path: fake.folder + "/runtime/retrolua/\(run.pid).sock")
        let stepped = try client.request(#"{"cmd": "step", "frames": 5}"#)
        XCTAssertTrue(stepped.contains("\"ok\":true"), stepped)
        _ = try client.request(#"{"cmd": "quit"}"#)
        let stderr = run.finish()
        XCTAssertEqual(run.status, 0, stderr)
        XCTAssertTrue(stderr.contains("(bearer token in \(given))"), stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: given), "a given token file is the user's")
        XCTAssertTrue(run.stdout.contains("\"frames\":5"), run.stdout)
    }

    func testAPortInUseIsRefused() throws {
        let fake = try FakePython()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let port = try bindLoopback(listener, port: 0)
        XCTAssertEqual(listen(listener, 1), 0)
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--mcp", String(port)], home: fake.folder,
            environment: fake.environment())
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("--mcp: 127.0.0.1:\(port): the port is in use"), result.stderr)
    }
}

/// A `python3` on PATH that passes the import check (or fails it: FAKE_IMPORT_STATUS), records its
/// arguments and environment under record/, then exits (FAKE_EXIT) or waits for SIGTERM.
private struct FakePython {
    let folder = Fixtures.temporaryFolder()

    init() throws {
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/record", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/runtime", withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            if [ "$1" = "-c" ]; then exit "${FAKE_IMPORT_STATUS:-0}"; fi
            out="$FAKE_RECORD"
            env > "$out/env.tmp"; mv "$out/env.tmp" "$out/env"
            printf '%s\\n' "$@" > "$out/argv.tmp"; mv "$out/argv.tmp" "$out/argv"
            if [ -n "$FAKE_EXIT" ]; then exit "$FAKE_EXIT"; fi
            trap 'echo terminated > "$out/terminated"; exit 0' TERM
            while :; do sleep 0.05; done

            """
        try script.write(toFile: bin + "/python3", atomically: true, encoding: .utf8)
        chmod(bin + "/python3", 0o755)
    }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "PATH": folder + "/bin:/usr/bin:/bin", "FAKE_RECORD": folder + "/record",
            "XDG_RUNTIME_DIR": folder + "/runtime",
        ].merging(extra) { _, new in new }
    }

    func recorded(_ name: String) throws -> [String] {
        try String(contentsOfFile: folder + "/record/" + name, encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }
}

/// A run whose standard error goes to a file, read while it runs.
private final class McpRun {
    private let process = Process()
    private let errPath: String, outPath: String

    init(_ arguments: [String], fake: FakePython, environment extra: [String: String] = [:]) throws {
        errPath = fake.folder + "/stderr"
        outPath = fake.folder + "/stdout"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = fake.folder
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        environment.merge(fake.environment(extra)) { _, new in new }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        // A run that never ends fails its test instead of hanging the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 90) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var status: Int32 { process.terminationStatus }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Polls `condition` every 5 ms (while the run runs, unless `ended`); false when it never held.
    func waitUntil(ended: Bool = false, _ condition: () -> Bool) -> Bool {
        for _ in 0..<12_000 {
            if condition() { return true }
            if !ended && !process.isRunning { return condition() }
            usleep(5_000)
        }
        return false
    }

    func finish() -> String {
        process.waitUntilExit()
        return stderr
    }
}

private func bindLoopback(_ fd: Int32, port: UInt16) throws -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A loopback port free now (the kernel's pick), for a run to serve on.
private func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    return try bindLoopback(fd, port: 0)
}
