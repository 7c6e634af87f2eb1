import Foundation
import XCTest
@testable import Host
import Media

/// The Lua default frontend in lua/defaults/, driven by synthetic host events.
final class DefaultFrontendTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func harness(_ names: [String] = DefaultFrontend.names) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        for name in names { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        return harness
    }

    private func press(_ harness: ScriptHarness, _ key: String, frames: Int = 1) {
        harness.host.deliver([.keyDown(key, repeat: false)])
        harness.run(frames)
        harness.host.deliver([.keyUp(key)])
    }

    func testSaveAndLoadSlotRestoreExactRAM() throws {
        let harness = try harness()
        harness.run(20)
        press(harness, "f7")  // slot 1
        harness.host.deliver([.keyDown("f2", repeat: false)])
        let saved = harness.session.systemRAM()
        harness.host.playerInput.set(.right, true)
        harness.run(15)
        harness.host.playerInput = .init()
        XCTAssertNotEqual(harness.session.systemRAM()[3], saved[3])
        harness.host.deliver([.keyDown("f4", repeat: false)])
        XCTAssertTrue(harness.session.systemRAM() == saved, "slot 1 restored exactly")
        XCTAssertTrue(FileManager.default.fileExists(atPath: harness.folder + "/states/demo/slot1.state"))
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        XCTAssertTrue(harness.errors.isEmpty, "messages go to the OSD, not stderr: \(harness.errors)")
    }

    func testPauseFrameAdvanceFastForwardAndSlowMotion() throws {
        let harness = try harness(["hotkeys"])
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertTrue(harness.host.paused)
        harness.host.deliver([.keyDown("n", repeat: false)])
        XCTAssertTrue(harness.host.stepRequested, "frame advance asks the frontend for one frame")
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertFalse(harness.host.paused)
        harness.host.deliver([.keyDown("tab", repeat: false)])
        XCTAssertEqual(harness.host.speed, 0)
        harness.host.deliver([.keyUp("tab")])
        XCTAssertEqual(harness.host.speed, 1)
        harness.host.deliver([.keyDown("\\", repeat: false)])
        XCTAssertEqual(harness.host.speed, 0.25)
        harness.host.deliver([.keyUp("\\"), .keyDown("`", repeat: false)])
        XCTAssertEqual(harness.host.speed, 0, "fast-forward toggled on")
        harness.host.deliver([.keyDown("f11", repeat: false)])
        XCTAssertEqual(harness.host.fullscreenRequest, true)
        harness.host.deliver([.keyDown("escape", repeat: false)])
        XCTAssertEqual(harness.host.exitCode, 0)
    }

    func testScreenshotAndResetHotkeys() throws {
        let harness = try harness(["hotkeys"])
        harness.run(30)
        press(harness, "f8", frames: 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: harness.folder + "/screenshots/demo-000030.png"), harness.errors)
        harness.host.deliver([.keyDown("h", repeat: false)])
        harness.run(10)
        XCTAssertEqual(harness.session.core.memoryRegion(.saveRAM)!.pointer.load(as: UInt8.self), 2, "reset runs the reset code again")
    }

    func testUserBindingsOverrideTheDefaults() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: harness.folder + "/config", withIntermediateDirectories: true)
        try "return { pause = 'space', quit = false }".write(toFile: harness.folder + "/config/hotkeys.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/hotkeys.lua")
        harness.host.deliver([.keyDown("p", repeat: false), .keyDown("escape", repeat: false)])
        XCTAssertFalse(harness.host.paused)
        XCTAssertNil(harness.host.exitCode)
        harness.host.deliver([.keyDown("space", repeat: false)])
        XCTAssertTrue(harness.host.paused)
        _ = folder
    }

    func testOSDShowsMessagesOnTheHudOnly() throws {
        let harness = try harness(["osd"])
        try harness.load("event.on('frame_end', function() if emu.framecount() == 3 then emu.message('hello') end end)")
        harness.run(2)
        XCTAssertTrue(harness.host.hudCanvas.isEmpty)
        harness.run(2)
        XCTAssertFalse(harness.host.hudCanvas.isEmpty, "the message is drawn")
        XCTAssertTrue(harness.host.emuCanvas.isEmpty, "not on the emu surface: screenshots stay clean")
        XCTAssertTrue(harness.errors.isEmpty, harness.errors)
        harness.run(200)
        XCTAssertTrue(harness.host.hudCanvas.isEmpty, "messages expire")
    }

    func testDefaultsCanBeTurnedOffOrReplaced() throws {
        let home = Fixtures.temporaryFolder()
        let probe = Fixtures.temporaryFolder() + "/probe.lua"
        try "emu.message('probe'); emu.exit(0)".write(toFile: probe, atomically: true, encoding: .utf8)
        // With the OSD, the message is drawn; without it, it is printed.
        let withOSD = try Fixtures.cli(["run", "--headless", "--with-defaults", "--script", probe, "--quiet"], home: home)
        XCTAssertEqual(withOSD.status, 0, withOSD.stderr)
        XCTAssertFalse(withOSD.stderr.contains("probe"), withOSD.stderr)
        let without = try Fixtures.cli(["run", "--headless", "--with-defaults", "--no-default", "osd", "--script", probe, "--quiet"], home: home)
        XCTAssertTrue(without.stderr.contains("[probe.lua] probe"), without.stderr)
        let none = try Fixtures.cli(["run", "--headless", "--with-defaults", "--no-default", "all", "--frames", "10", "--quiet"], home: home)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(try Fixtures.cli(["run", "--no-default", "hud"], home: home).status, 2)
        // A same-named file in the user's scripts folder replaces the shipped default.
        try FileManager.default.createDirectory(atPath: home + "/.config/retrolua/scripts", withIntermediateDirectories: true)
        try "print('my own osd')".write(toFile: home + "/.config/retrolua/scripts/osd.lua", atomically: true, encoding: .utf8)
        let replaced = try Fixtures.cli(["run", "--headless", "--with-defaults", "--script", probe, "--quiet"], home: home)
        XCTAssertTrue(replaced.stdout.contains("my own osd"), replaced.stdout)
        XCTAssertTrue(replaced.stderr.contains("[probe.lua] probe"), "the replacement does not listen for messages: \(replaced.stderr)")
    }
}
