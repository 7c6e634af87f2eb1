import Foundation
import XCTest

/// The control socket under abuse, on real sockets: Tests/python/test_control_abuse.py (silent and
/// slow clients, endless lines, crowds, malformed requests, TCP tokens, the Unix peer's uid).
final class ControlAbuseTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testTheControlSocketSurvivesAbuse() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: "/usr/bin/env",
            arguments: [Fixtures.python, Fixtures.root + "/Tests/python/test_control_abuse.py"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("OK"), result.stderr)
    }
}
