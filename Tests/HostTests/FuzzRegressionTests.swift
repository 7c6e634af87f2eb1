@testable import Emulation
import Foundation
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import XCTest

/// Inputs the fuzzers (Fuzz/, scripts/fuzz) found crashing the host, fed through the public paths the host
/// reads them by. Each file in FuzzRegressions/ is named for its fuzz target: `state-…`, `rlm-…`, `fm2-…`,
/// `bk2-…`, `cht-…`, `control-…`. Every one must now be refused with a message, never trap.
final class FuzzRegressionTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/FuzzRegressions"

    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func inputs(_ target: String) throws -> [(name: String, path: String, bytes: [UInt8])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder).sorted()
        return try names.filter { $0.hasPrefix(target + "-") }.map { name in
            let path = Self.folder + "/" + name
            return (name, path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }

    func testCrashingStatesAreRefused() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let states = try inputs("state")
        XCTAssertFalse(states.isEmpty)
        for (name, _, bytes) in states {
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try StateContainer.validate($0) }, name)
            XCTAssertThrowsError(try harness.host.emulator.loadState(bytes, trusted: false), name) { error in
                XCTAssertFalse("\(error)".isEmpty, name)
            }
        }
    }

    func testCrashingMoviesAreRefused() throws {
        for target in ["rlm", "fm2", "bk2"] {
            for (name, path, _) in try inputs(target) {
                // The extension picks the format, as for a movie a user passes on the command line.
                let copy = NSTemporaryDirectory() + "retrolua-fuzz-\(UUID().uuidString).\(target)"
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                defer { try? FileManager.default.removeItem(atPath: copy) }
                XCTAssertThrowsError(try MovieText.read(path: copy), name)
            }
        }
    }

    func testCrashingCheatFilesAndControlRequestsAreRefused() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        for (name, path, _) in try inputs("cht") {
            XCTAssertThrowsError(try harness.host.emulator.loadCheats(from: path, append: false), name)
        }
        let control = ControlSession(
            emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        for (name, _, bytes) in try inputs("control") {
            XCTAssertTrue(control.handle(String(decoding: bytes, as: UTF8.self)).contains("\"ok\":false"), name)
        }
    }

    /// Headless runs are never paused: a script's emu.pause() must not stop the run.
    func testHeadlessRunIgnoresPause() throws {
        let script = Self.folder + "/lua-api-headless-pause.lua"
        let result = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "10", "--script", script])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("frames\t3"), result.stdout)
    }

    func testHashOfAnAddressNearIntMinIsRefused() throws {
        let script = Self.folder + "/lua-api-hash-address-min.lua"
        let result = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "2", "--script", script])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("hash\tfalse\tmemory.hash"), result.stdout)
    }

    func testAVeryLongDataFileNameIsRefusedAtOnce() throws {
        let script = Self.folder + "/lua-api-save-data-long-name.lua"
        let home = Fixtures.temporaryFolder()
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "2", "--script", script], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("long\tnil\ttrue"), result.stdout)
        XCTAssertTrue(result.stdout.contains("slashes\tfalse"), result.stdout)
    }
}
