import Foundation
import XCTest

/// The console on real terminals and sockets (Tests/python/test_console.py): `run --console` on a
/// pseudo-terminal, `retrolua attach` into headless and windowed runs (under Xvfb), two consoles at once,
/// the per-user socket and its refusals; attach against misbehaving games (Tests/python/test_attach.py).
final class ConsoleTerminalTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testTheConsoleOnTerminalsAndSockets() throws {
        let result = try runConsoleTests()
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("OK"), result.stderr)
    }

    /// Tests/python/test_attach.py: attach against a fake game that never answers (SIGINT, SIGTERM, SIGHUP and
    /// --timeout end it, with a message) and one that answers with escape sequences (shown escaped).
    func testAttachToMisbehavingGames() throws {
        try Fixtures.assertPythonUnittestPasses("test_attach.py", timeout: 300)
    }

    private func runConsoleTests() throws -> Fixtures.Result {
        try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary, "DISPLAY": try XDisplay.name()], executable: "/usr/bin/env",
            arguments: [Fixtures.python, Fixtures.root + "/Tests/python/test_console.py"], timeout: 300)
    }
}
