import Foundation
import XCTest

/// `--spectate` on the command line: it applies to `--netplay join` alone (the sessions themselves are
/// Tests/python/test_netplay_spectate.py's).
final class NetplaySpectateArgumentTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testSpectateIsRefusedWithoutAJoinAndWithWhatAPlayerChooses() throws {
        let base = [Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", "1"]
        let refused: [[String]] = [
            ["--spectate"],
            ["--netplay", "host", "--spectate"],
            ["--netplay", "join", "127.0.0.1:9", "--spectate", "--netplay-delay", "3"],
            ["--netplay", "join", "127.0.0.1:9", "--spectate", "--netplay-options", "host"],
        ]
        for extra in refused {
            let result = try Fixtures.cli(["run"] + base + extra, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(extra): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--spectate applies to --netplay join"), "\(extra): \(result.stderr)")
        }
    }
}
