@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// retrolua.settings as the defaults use it: ~/.config/retrolua/NAME.lua merged over the defaults,
/// every mistake in a settings file reported on stderr with its path, the defaults still running.
final class SettingsTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A harness whose config folder holds `files` (name → Lua source), with the `defaults` loaded.
    private func harness(_ files: [String: String], defaults: [String]) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        for (name, source) in files {
            let path = harness.folder + "/config/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try source.write(toFile: path, atomically: true, encoding: .utf8)
        }
        for name in defaults { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        return harness
    }

    func testTheMergeRulesSuitePassesUnderStockLua() throws {
        let result = try Fixtures.cli(
            [], executable: "/usr/bin/lua5.4", arguments: [Fixtures.root + "/Tests/lua/settings_test.lua"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("ok "), result.stdout)
    }

    func testASyntaxErrorIsReportedWithPathAndLineAndTheDefaultsApply() throws {
        let harness = try harness(["osd.lua": "return {\n  fps = true,\n  counters = = true,\n}\n"], defaults: ["osd"])
        let path = harness.folder + "/config/osd.lua"
        XCTAssertTrue(
            harness.errors.contains("[osd.lua] warning: osd settings: \(path):3: unexpected symbol near '='"),
            harness.errors)
        harness.run(3)
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty, "fps and counters stay off (the defaults)")
        try harness.load("emu.message('hello')")
        harness.run(1)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the OSD still runs and shows messages")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testARuntimeErrorIsReportedWithItsLineAndTheDefaultBindingsStay() throws {
        let harness = try harness(
            ["hotkeys.lua": "local keys = {}\nreturn { pause = keys.space.name }\n"], defaults: ["hotkeys"])
        let path = harness.folder + "/config/hotkeys.lua"
        XCTAssertTrue(
            harness.errors.contains("hotkeys settings: \(path):2: attempt to index a nil value"), harness.errors)
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertTrue(harness.host.emulator.paused, "p still pauses")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testASettingsFileThatReturnsNoTableIsReported() throws {
        let harness = try harness(
            ["rewind.lua": "return 42\n", "runahead.lua": "-- frames = 1\n"], defaults: ["rewind", "runahead"])
        XCTAssertTrue(
            harness.errors.contains("rewind settings: \(harness.folder)/config/rewind.lua: returns a number;"),
            harness.errors)
        XCTAssertTrue(
            harness.errors.contains("runahead settings: \(harness.folder)/config/runahead.lua: returns nothing;"),
            harness.errors)
        harness.run(5)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testUnknownKeysAndWrongTypesAreReportedAndTheRestApplies() throws {
        let harness = try harness(
            ["hotkeys.lua": "return { pause = 'space', paws = 'x', quit = 1 }"], defaults: ["hotkeys"])
        let path = harness.folder + "/config/hotkeys.lua"
        XCTAssertTrue(
            harness.errors.contains(
                "hotkeys settings: \(path): unknown setting 'paws' (ignored; known: console, disc_eject, disc_next, disc_previous, fast_forward_hold,"
            ), harness.errors
        )
        XCTAssertTrue(
            harness.errors.contains(
                "hotkeys settings: \(path): 'quit' should be a string or false, got a number (the default is kept)"),
            harness.errors)
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertFalse(harness.host.emulator.paused, "pause moved to space")
        harness.host.deliver([.keyDown("space", repeat: false)])
        XCTAssertTrue(harness.host.emulator.paused)
        harness.host.deliver([.keyDown("escape", repeat: false)])
        XCTAssertEqual(harness.host.emulator.exitCode, 0, "quit keeps its default key")
    }

    func testValidLayeredSettingsApplyWithoutMessages() throws {
        // input.lua unbinds right and turns turbo off; the per-core layer binds l as right.
        let harness = try harness(
            [
                "input.lua": "return { keyboard = { right = false, l3 = '3' }, turbo = {} }",
                "input/nestopia.lua": "return { keyboard = { right = 'l' }, gamepad_ports = { 2 } }",
            ],
            defaults: ["input"])
        harness.run(5)
        let ram = { harness.session.systemRAM() }
        let x0 = Int(ram()[3])
        harness.host.screen.devices.keys = ["l"]
        harness.run(4)
        XCTAssertEqual(Int(ram()[3]), x0 + 4, "the per-core layer's key drives right")
        harness.host.screen.devices.keys = ["right"]
        harness.run(4)
        XCTAssertEqual(Int(ram()[3]), x0 + 4, "the arrow key no longer does")
        harness.host.screen.devices.keys = []
        harness.run(1)
        let presses = ram()[5]
        harness.host.screen.devices.keys = ["c"]
        harness.run(8)
        XCTAssertEqual(ram()[5], presses, "turbo = {} turns turbo off")
        XCTAssertTrue(harness.errors.isEmpty, harness.errors)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testASettingsFileSeesTheScriptsGlobals() throws {
        let harness = try harness(["osd.lua": "return { counters = emu.info().core == 'nestopia' }"], defaults: ["osd"])
        harness.run(3)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the counters are drawn")
        XCTAssertTrue(harness.errors.isEmpty, harness.errors)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }
}
