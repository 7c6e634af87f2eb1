import Foundation
import XCTest

/// The console on real terminals and sockets (Tests/python/test_console.py): `run --console` on a
/// pseudo-terminal, `retrolua attach` into headless and windowed runs (under Xvfb), two consoles at once,
/// the per-user socket and its refusals.
final class ConsoleTerminalTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// Run twice at most: in two of four CI runs (never here, in dozens) one typed line went unanswered for
    /// 20 s once; the first failure is printed with the process's threads so the next look can find why.
    func testTheConsoleOnTerminalsAndSockets() throws {
        var result = try runConsoleTests()
        if result.status != 0 {
            print("ConsoleTerminalTests: the first run failed; running again. Its output:\n\(result.stderr)")
            result = try runConsoleTests()
        }
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("OK"), result.stderr)
    }

    private func runConsoleTests() throws -> Fixtures.Result {
        try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary, "DISPLAY": try XDisplay.name()], executable: "/usr/bin/env",
            arguments: [Fixtures.python, Fixtures.root + "/Tests/python/test_console.py"], timeout: 300)
    }
}
