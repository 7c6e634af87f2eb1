import Foundation
import XCTest

/// The `retrolua` Python package (python/) with pytest against the built binary:
/// Tests/python/test_package.py (the binary door's numpy views, batched steps, hostile binary
/// requests, launched emulators' lifetime, a fresh venv install).
final class PythonPackageTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testThePythonPackage() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: Fixtures.python,
            arguments: [
                "-m", "pytest", "-q", "-p", "no:cacheprovider", Fixtures.root + "/Tests/python/test_package.py",
            ], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("passed"), result.stdout)
    }
}
