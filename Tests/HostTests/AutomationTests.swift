@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// Automation from outside: the control socket through the Python client, `--json`, `retrolua batch`
/// and parallel instances of one core.
final class AutomationTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testTheControlSocketEndToEndFromPython() throws {
        try Fixtures.assertPythonUnittestPasses("test_control.py")
    }

    func testControlAddressesAreLoopbackOnly() throws {
        let remote = try Fixtures.cli(["run", "--headless", "--control", "tcp:0.0.0.0:7000"])
        XCTAssertEqual(remote.status, 2)
        XCTAssertTrue(remote.stderr.contains("only listens on loopback"), remote.stderr)
        let scenario = try Fixtures.cli(["run", "--headless", "--scenario", "x.lua"])
        XCTAssertEqual(scenario.status, 2)
        XCTAssertTrue(scenario.stderr.contains("--scenario applies to --control"), scenario.stderr)
        let notSocket = Fixtures.temporaryFolder() + "/file"
        try "precious".write(toFile: notSocket, atomically: true, encoding: .utf8)
        let refused = try Fixtures.cli(["run", "--headless", "--control", "unix:" + notSocket])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("exists and is not a socket"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: notSocket, encoding: .utf8), "precious")
    }

    func testLongHeadlessRunsShowProgressOnATerminalOnly() throws {
        // `script` gives the run a pseudo-terminal, as a user's shell would.
        let command = "'\(Fixtures.binary)' run '\(Fixtures.nesROM)' --headless --frames 4000"
        let onTTY = try Fixtures.cli(
            [], environment: [:], executable: "/usr/bin/script", arguments: ["-qec", command, "/dev/null"])
        XCTAssertEqual(onTTY.status, 0, onTTY.stderr)
        XCTAssertTrue(onTTY.stdout.contains("frames 64/4000") || onTTY.stdout.contains("/4000 ("), onTTY.stdout)
        XCTAssertTrue(onTTY.stdout.contains("fps  ETA "), onTTY.stdout)
        let piped = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "4000"])
        XCTAssertFalse(piped.stderr.contains("ETA"), "no progress line when stderr is not a terminal")
    }

    func testJSONResultsAndExitCodes() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        for _ = 1, 20 do joypad.set(1, {right = true}); emu.frameadvance() end
        emu.result("x", memory.read_u8(3)); emu.result("bot", "right"); emu.result("ratio", 0.5)
        emu.exit(4)
        """.write(toFile: folder + "/bot.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--json", "--script", folder + "/bot.lua"])
        XCTAssertEqual(result.status, 4)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n").last!.utf8)) as? [String: Any])
        XCTAssertEqual(json["exit_code"] as? Int, 4)
        XCTAssertEqual(json["frames"] as? Int, 20)
        XCTAssertEqual(json["core"] as? String, "nestopia")
        let results = try XCTUnwrap(json["results"] as? [String: Any])
        XCTAssertEqual(results["x"] as? Int, 136)
        XCTAssertEqual(results["bot"] as? String, "right")
        XCTAssertEqual(results["ratio"] as? Double, 0.5)
    }

    func testBatchRunsJobsInParallelAndReportsFailuresPerJob() throws {
        let folder = Fixtures.temporaryFolder()
        // The direction comes from the job's environment, as a bot's seed would.
        try """
        local button = os.getenv("DIRECTION")
        for _ = 1, 30 do joypad.set(1, {[button] = true}); emu.frameadvance() end
        emu.result("x", memory.read_u8(3))
        """.write(toFile: folder + "/walk.lua", atomically: true, encoding: .utf8)
        try "error('this bot is broken')".write(toFile: folder + "/broken.lua", atomically: true, encoding: .utf8)
        try """
        # two instances of nestopia at once, a failing script, a missing ROM, a bad line
        {"name": "right", "rom": "\(Fixtures.nesROM)", "core": "nestopia", "script": "\(folder)/walk.lua", "env": \
        {"DIRECTION": "right"}}
        {"name": "left", "rom": "\(Fixtures.nesROM)", "core": "nestopia", "script": "\(folder)/walk.lua", "env": \
        {"DIRECTION": "left"}}
        {"name": "broken", "rom": "\(Fixtures.nesROM)", "script": "\(folder)/broken.lua", "args": ["--strict"]}
        {"name": "missing", "rom": "\(folder)/nothing.nes"}
        {"name": "gb", "rom": "\(Fixtures.gbROM)", "core": "gambatte", "frames": 60}
        not json
        """.write(toFile: folder + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["batch", folder + "/jobs.jsonl", "--jobs", "2"])
        XCTAssertEqual(result.status, 1, "a job failed")
        XCTAssertTrue(result.stderr.contains("batch: 6 jobs, 3 passed, 3 failed"), result.stderr)
        var byName: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byName[object["name"] as! String] = object
        }
        func x(_ name: String) -> Int? {
            ((byName[name]?["result"] as? [String: Any])?["results"] as? [String: Any])?["x"] as? Int
        }
        XCTAssertEqual(x("right"), 146, "each instance ran its own input")
        XCTAssertEqual(x("left"), 94)
        XCTAssertEqual(byName["gb"]?["ok"] as? Bool, true)
        XCTAssertEqual(byName["broken"]?["ok"] as? Bool, false)
        XCTAssertTrue(
            (byName["broken"]?["error"] as? String ?? "").contains("this bot is broken"), "\(byName["broken"] ?? [:])")
        XCTAssertTrue(
            (byName["missing"]?["error"] as? String ?? "").contains("cannot read content"),
            "\(byName["missing"] ?? [:])")
        XCTAssertEqual(byName["line 7"]?["error"] as? String, "line 7 is not a JSON object")
    }
}
