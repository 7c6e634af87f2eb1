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
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: "/usr/bin/env",
            arguments: [Fixtures.python, Fixtures.root + "/Tests/python/test_control_abuse.py"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("OK"), result.stderr)
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
