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

    /// Tests/python/test_ray.py: retrolua.ray's job map, Ray-actor vector env, the Ray farm example and
    /// `retrolua batch --ray` on a local 2-CPU Ray cluster (Ray from scripts/setup).
    func testTheRayFarm() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary, "RETROLUA_PYTHON": Fixtures.python],
            executable: Fixtures.python,
            arguments: ["-m", "pytest", "-q", "-p", "no:cacheprovider", Fixtures.root + "/Tests/python/test_ray.py"],
            timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("6 passed"), result.stdout)
    }
}
