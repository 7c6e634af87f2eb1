import Foundation
import XCTest

/// Retrolua's LuaSocket (lua/retrolua/luasocket/, served by lua/host/prelude.lua) with pytest against the built
/// binary: Tests/python/test_luasocket.py runs Tests/lua/luasocket_test.lua under stock lua5.4 with Debian's
/// LuaSocket and under `retrolua run --allow-net` against one loopback peer and wants the same output line for
/// line; a connector-shaped server polled once a frame through package.loadlib's opener answers a real client;
/// without the permission every socket call names the flag; a script's own socket.lua comes first. Hostile
/// peers: one that never reads (timeouts with the last byte sent), 1,000 connections one after another, and a
/// script that keeps every connection (accept ends with the host's 64-socket message, no busy wait).
final class LuaSocketTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testLuaSocketMatchesDebiansOnLoopback() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: Fixtures.python,
            arguments: [
                "-m", "pytest", "-q", "-p", "no:cacheprovider", Fixtures.root + "/Tests/python/test_luasocket.py",
            ], timeout: 600)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(
            result.stdout.contains("7 passed"), "none skipped (lua-socket comes with scripts/setup): \(result.stdout)")
    }
}
