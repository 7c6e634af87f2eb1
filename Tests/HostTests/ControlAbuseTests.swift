import Foundation
import Glibc
import XCTest

@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// The control socket under abuse, on real sockets: Tests/python/test_control_abuse.py (silent and
/// slow clients, endless lines, crowds, malformed requests, TCP tokens, the Unix peer's uid); here, a
/// second run on a live Unix path and snapshots held across connections.
final class ControlAbuseTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testTheControlSocketSurvivesAbuse() throws {
        try Fixtures.assertPythonUnittestPasses("test_control_abuse.py")
    }

    /// Whether something accepts connections at the Unix socket `path`.
    private func listening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    func testASecondServerOnALiveUnixPathIsRefusedNamingIt() throws {
        let path = Fixtures.temporaryFolder() + "/c.sock"
        let first = try ControlServer(.unix(path), access: ControlAccess(token: nil))
        defer { first.close() }
        XCTAssertThrowsError(try ControlServer(.unix(path), access: ControlAccess(token: nil))) {
            XCTAssertTrue("\($0)".contains("\(path): another process is listening"), "\($0)")
        }
        XCTAssertTrue(listening(path), "the first run keeps its socket")
    }

    func testASecondRunOnALiveUnixPathFailsAndTheFirstKeepsIt() throws {
        let path = Fixtures.temporaryFolder() + "/run.sock"
        let first = try ControlServer(.unix(path), access: ControlAccess(token: nil))
        defer { first.close() }
        let result = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--control", "unix:" + path], timeout: 30)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("another process is listening on this control socket"), result.stderr)
        XCTAssertTrue(listening(path), "the first run keeps its socket")
    }

    /// The probe a second run makes is not a client: a first run with --exit-on-disconnect goes on until a
    /// client that said something leaves.
    func testProbingALivePathDoesNotEndAnExitOnDisconnectRun() throws {
        let home = Fixtures.temporaryFolder(), path = home + "/live.sock"
        let first = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--control", "unix:" + path, "--exit-on-disconnect"], home: home)
        XCTAssertTrue(first.waitUntil { listening(path) })
        let second = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--control", "unix:" + path], timeout: 30)
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("\(path): another process is listening"), second.stderr)
        usleep(200_000)  // the first run's loop has seen the probe come and go
        XCTAssertTrue(first.process.isRunning, "the probe did not end the first run")
        // A client that says something, then leaves: now the run ends.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let request = Array("{\"cmd\": \"hello\"}\n".utf8)
        XCTAssertEqual(write(fd, request, request.count), request.count)
        var reply = [UInt8](repeating: 0, count: 256)
        XCTAssertGreaterThan(read(fd, &reply, reply.count), 0)
        close(fd)
        XCTAssertEqual(first.finish().status, 0, "ended by the client's disconnect")
    }

    func testAStaleSocketFileWithNobodyListeningIsReplaced() throws {
        let path = Fixtures.temporaryFolder() + "/stale.sock"
        // A socket file left by a run that ended without removing it (kill -9).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        close(fd)
        XCTAssertFalse(listening(path))
        let server = try ControlServer(.unix(path), access: ControlAccess(token: nil))
        XCTAssertTrue(listening(path))
        server.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "its own socket goes at close")
    }

    /// A step's stop conditions are checked before any frame runs: each bad one is refused naming its field.
    /// An until_lua that fails or never returns (stopped by the runaway clock) ends its step with an error naming
    /// until_lua and the frame; the game goes on.
    func testBadStopConditionsAreRefusedNamingTheField() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let control = ControlSession(
            emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        func ask(_ request: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(control.handle(request).utf8)) as? [String: Any])
        }
        let ops = "eq, ne, lt, gt, le, ge, changed, increased, decreased, bits_set, bits_clear"
        let eq = #"{"address": 6, "op": "eq", "value": 1}"#
        let seventeen = Array(repeating: eq, count: 17).joined(separator: ",")
        let cases: [(String, String)] = [
            (
                #"{"cmd": "step", "until": [\#(eq), \#(eq), {"address": 6, "op": "nearly", "value": 1}]}"#,
                #""until[2].op" must be one of \#(ops), got the string "nearly""#
            ),
            (#"{"cmd": "step", "until": [{"address": 6, "value": 1}]}"#, #""until[0].op" is missing: one of \#(ops)"#),
            (
                #"{"cmd": "step", "until": [{"address": 6, "op": "lt"}]}"#,
                #""until[0].value" is missing: op lt needs an integer in 0…255"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 6, "op": "changed", "value": 3}]}"#,
                #""until[0].value" is not used by op changed"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 6, "size": 2, "op": "eq", "value": 65536}]}"#,
                #""until[0].value" must be an integer in 0…65535, got 65536"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 6, "size": 3, "op": "eq", "value": 1}]}"#,
                #""until[0].size" must be 1, 2 or 4, got 3"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 2048, "op": "eq", "value": 1}]}"#,
                #""until[0].address" must be an integer in 0…2047, got 2048"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 2046, "size": 4, "op": "eq", "value": 1}]}"#,
                #""until[0].address" must be an integer in 0…2044, got 2046"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": 9223372036854775807, "op": "eq", "value": 1}]}"#,
                #""until[0].address" must be an integer in 0…2047"#
            ),
            (
                #"{"cmd": "step", "until": [{"address": -1, "op": "eq", "value": 1}]}"#,
                #""until[0].address" must be an integer"#
            ),
            (#"{"cmd": "step", "until": [{"op": "eq", "value": 1}]}"#, #""until[0].address" is missing"#),
            (#"{"cmd": "step", "until": [{"address": 6, "op": "eq", "valu": 1}]}"#, #""until[0]" has no field "valu""#),
            (
                #"{"cmd": "step", "until": [{"domain": "nope", "address": 6, "op": "eq", "value": 1}]}"#,
                #""until[0].domain": no domain 'nope'"#
            ),
            (#"{"cmd": "step", "until": [\#(seventeen)]}"#, #""until" must be a list of 1 to 16 objects, got 17"#),
            (#"{"cmd": "step", "until": []}"#, #""until" must be a list of 1 to 16 objects, got 0"#),
            (#"{"cmd": "step", "until": {"address": 6}}"#, #""until" must be a list, got an object"#),
            (#"{"cmd": "step", "until": [5]}"#, #""until[0]" must be an object, got 5"#),
            (
                #"{"cmd": "step", "watch": [{"address": 0, "length": 1000000000}]}"#,
                #""watch[0].length" must be an integer in 1…256, got 1000000000"#
            ),
            (
                #"{"cmd": "step", "watch": [{"address": 2000, "length": 256}]}"#,
                #""watch[0].address" must be an integer in 0…1792, got 2000"#
            ),
            (#"{"cmd": "step", "until_lua": "memory.read_u8(6) >="}"#, #""until_lua" does not compile: until_lua:"#),
            (#"{"cmd": "step", "until_lua": "x = 1"}"#, #""until_lua" does not compile"#),
            (#"{"cmd": "step", "until_lua": ""}"#, #""until_lua" must be a Lua expression of 1 to 4096 characters"#),
            (
                #"{"cmd": "step", "until_lua": "\#(String(repeating: "1", count: 4097))"}"#,
                #""until_lua" must be a Lua expression"#
            ),
            (#"{"cmd": "step", "until_lua": true}"#, #""until_lua" must be a string, got true"#),
        ]
        let frame = harness.host.emulator.session.frameCount
        for (request, expected) in cases {
            let reply = try ask(request)
            XCTAssertEqual(reply["ok"] as? Bool, false, request)
            let error = reply["error"] as? String ?? ""
            XCTAssertTrue(error.hasPrefix(expected), "\(request.prefix(200)): \(error)")
            XCTAssertEqual(harness.host.emulator.session.frameCount, frame, "no frame ran: \(request.prefix(200))")
        }
        // Failing after a frame: the error names until_lua and the frame; the step ran that one frame.
        let failed = try ask(#"{"cmd": "step", "frames": 10, "until_lua": "nil + 1"}"#)
        XCTAssertEqual(failed["ok"] as? Bool, false)
        XCTAssertTrue(
            (failed["error"] as? String ?? "").hasPrefix(
                "until_lua failed after frame 1 of the step (frame \(frame + 1)): until_lua:1:"),
            "\(failed)")
        XCTAssertEqual(failed["frames"] as? Int, 1)
        let endless = try ask(#"{"cmd": "step", "frames": 10, "until_lua": "(function() while true do end end)()"}"#)
        XCTAssertTrue((endless["error"] as? String ?? "").contains("until_lua failed after frame 1"), "\(endless)")
        XCTAssertTrue((endless["error"] as? String ?? "").contains("runaway"), "\(endless)")
        // The game and the console go on.
        let next = try ask(#"{"cmd": "step", "frames": 3, "until_lua": "false"}"#)
        XCTAssertEqual(next["stopped"] as? String, "frames", "\(next)")
        XCTAssertEqual(harness.host.emulator.session.frameCount, frame + 5)
        XCTAssertEqual(try ask(#"{"cmd": "console", "lua": "1 + 1"}"#)["values"] as? [String], ["2"])
    }

    func testSnapshotsAreCappedAcrossConnectionsNotPerConnection() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let emulator = harness.host.emulator
        let pool = ControlSnapshots.Pool(maxCount: 3, maxBytes: 1 << 30)
        var a: ControlSnapshots? = ControlSnapshots(pool: pool)
        let b = ControlSnapshots(pool: pool)
        let first = try a!.save(emulator, into: 0)
        _ = try a!.save(emulator, into: 0)
        _ = try b.save(emulator, into: 0)
        XCTAssertThrowsError(try b.save(emulator, into: 0)) {
            XCTAssertTrue("\($0)".contains("the snapshots of all connections together"), "\($0)")
            XCTAssertTrue("\($0)".contains("cap of 3 snapshots"), "\($0)")
        }
        XCTAssertEqual(try b.save(emulator, into: 1).id, 1, "replacing one is not a new one")
        XCTAssertTrue(a!.forget(first.id))
        XCTAssertNoThrow(try b.save(emulator, into: 0))
        XCTAssertEqual(pool.count, 3)
        a = nil  // a connection that goes gives its snapshots back
        XCTAssertEqual(pool.count, 2)
        XCTAssertEqual(pool.bytes, 2 * first.length)
        XCTAssertTrue(ControlSnapshots().poolIsShared, "every door draws on the process's one pool")
    }
}
