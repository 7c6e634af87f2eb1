@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media
import Support

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

    /// No script failed, and stderr holds only the OSD's messages (mirrored there) and the menu's first-run hint.
    private func assertOnlyTheOSDsMessages(_ harness: ScriptHarness, line: UInt = #line) {
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)", line: line)
        XCTAssertTrue(
            harness.errors.split(separator: "\n").allSatisfy {
                $0.hasPrefix("[hotkeys.lua] ") || $0.hasPrefix("[menu.lua] keys: ")
            },
            "the OSD's messages, mirrored to stderr, and nothing else: \(harness.errors)", line: line)
    }

    func testSaveAndLoadSlotRestoreExactRAM() throws {
        let harness = try harness()
        harness.run(20)
        press(harness, "f7")  // slot 1
        harness.host.deliver([.keyDown("f2", repeat: false)])
        let saved = harness.session.systemRAM()
        harness.host.screen.devices.keys = ["right"]
        harness.run(15)
        harness.host.screen.devices.keys = []
        XCTAssertNotEqual(harness.session.systemRAM()[3], saved[3])
        harness.host.deliver([.keyDown("f4", repeat: false)])
        XCTAssertTrue(harness.session.systemRAM() == saved, "slot 1 restored exactly")
        XCTAssertTrue(FileManager.default.fileExists(atPath: harness.folder + "/states/demo/slot1.state"))
        assertOnlyTheOSDsMessages(harness)
    }

    func testPauseFrameAdvanceFastForwardAndSlowMotion() throws {
        let harness = try harness(["hotkeys"])
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertTrue(harness.host.emulator.paused)
        harness.host.deliver([.keyDown("n", repeat: false)])
        XCTAssertTrue(harness.host.emulator.stepRequested, "frame advance asks the frontend for one frame")
        harness.host.deliver([.keyDown("p", repeat: false)])
        XCTAssertFalse(harness.host.emulator.paused)
        harness.host.deliver([.keyDown("tab", repeat: false)])
        XCTAssertEqual(harness.host.emulator.speed, 0)
        harness.host.deliver([.keyUp("tab")])
        XCTAssertEqual(harness.host.emulator.speed, 1)
        harness.host.deliver([.keyDown("\\", repeat: false)])
        XCTAssertEqual(harness.host.emulator.speed, 0.25)
        harness.host.deliver([.keyUp("\\"), .keyDown("`", repeat: false)])
        XCTAssertEqual(harness.host.emulator.speed, 0, "fast-forward toggled on")
        harness.host.deliver([.keyDown("f11", repeat: false)])
        XCTAssertEqual(harness.host.screen.fullscreenRequest, true)
        harness.host.deliver([.keyDown("escape", repeat: false)])
        XCTAssertEqual(harness.host.emulator.exitCode, 0)
    }

    func testScreenshotAndResetHotkeys() throws {
        let harness = try harness(["hotkeys"])
        harness.run(30)
        press(harness, "f8", frames: 0)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: harness.folder + "/screenshots/demo-000030.png"), harness.errors)
        harness.host.deliver([.keyDown("h", repeat: false)])
        harness.run(10)
        XCTAssertEqual(
            harness.session.core.memoryRegion(.saveRAM)!.pointer.load(as: UInt8.self), 2,
            "reset runs the reset code again")
    }

    func testMovieHotkeysAndOSD() throws {
        let harness = try harness(["hotkeys", "osd"])
        try harness.host.emulator.movie.record(to: harness.folder + "/m.rlm", options: .init())
        harness.run(20)
        harness.host.deliver([.keyDown("f9", repeat: false)])  // branch "slot0" at frame 20
        harness.run(20)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the movie line and input display are drawn")
        harness.host.deliver([.keyDown("f10", repeat: false)])
        XCTAssertEqual(harness.host.emulator.movie.frame, 20)
        XCTAssertEqual(harness.host.emulator.movie.movie?.length, 20)
        XCTAssertEqual(harness.host.emulator.movie.movie?.rerecords, 1)
        harness.host.deliver([.keyDown("m", repeat: false)])
        XCTAssertTrue(harness.host.emulator.movie.readOnly)
        XCTAssertEqual(harness.host.emulator.movie.mode, .finished)
        harness.host.deliver([.keyDown("h", repeat: false)])
        assertOnlyTheOSDsMessages(harness)
    }

    func testCheatsPerGameAndTheRAMSearchPanel() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(
            atPath: harness.folder + "/config/cheats", withIntermediateDirectories: true)
        try "cheats = 1\ncheat0_desc = zero\ncheat0_code = AAAAAA\ncheat0_enable = false\n"
            .write(toFile: harness.folder + "/config/cheats/demo.cht", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/osd.lua")
        try harness.load(file: Fixtures.root + "/lua/defaults/cheats.lua")
        try harness.load(file: Fixtures.root + "/lua/defaults/ramtools.lua")
        XCTAssertEqual(harness.host.emulator.cheats.cheats.count, 1, "the game's cheats are loaded")
        harness.run(5)
        press(harness, "f12")  // open the panel: a search of every address
        for _ in 0..<3 {
            harness.playerInput(a: true)
            harness.run(2)
            harness.playerInput(a: false)
            press(harness, "i")
            harness.run(6)
            press(harness, "u")
        }
        XCTAssertTrue(
            harness.host.emulator.ramSearch!.candidates.contains(RAMSearch.Candidate(domain: 0, address: 5)),
            "the A counter survives")
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the panel is drawn")
        harness.host.emulator.ramSearch = try XCTUnwrap(harness.host.emulator.ramSearch)
        while harness.host.emulator.ramSearch!.candidates.first?.address != 5 {
            harness.host.emulator.ramSearch!.dropFirstCandidate()
        }
        press(harness, "f")  // freeze the chosen result (the first): the A counter
        XCTAssertEqual(harness.host.emulator.cheats.cheats.count, 2)
        harness.playerInput(a: true)
        harness.run(2)
        XCTAssertEqual(harness.session.systemRAM()[5], 3, "frozen at 3")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        harness.close()
        let saved = try String(contentsOfFile: harness.folder + "/config/cheats/demo.cht", encoding: .utf8)
        XCTAssertTrue(saved.contains("cheats = \"2\"") && saved.contains("freeze system_ram 0x5"), saved)
    }

    func testUserBindingsOverrideTheDefaults() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: harness.folder + "/config", withIntermediateDirectories: true)
        try "return { pause = 'space', quit = false }".write(
            toFile: harness.folder + "/config/hotkeys.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/hotkeys.lua")
        harness.host.deliver([.keyDown("p", repeat: false), .keyDown("escape", repeat: false)])
        XCTAssertFalse(harness.host.emulator.paused)
        XCTAssertNil(harness.host.emulator.exitCode)
        harness.host.deliver([.keyDown("space", repeat: false)])
        XCTAssertTrue(harness.host.emulator.paused)
        _ = folder
    }

    func testKeyboardGamepadTurboAndRemapsReachTheGame() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(
            atPath: harness.folder + "/config/input/nestopia", withIntermediateDirectories: true)
        try "return { keyboard = { up = 'i' } }".write(
            toFile: harness.folder + "/config/input.lua", atomically: true, encoding: .utf8)
        try "return { keyboard = { left = 'j' } }".write(
            toFile: harness.folder + "/config/input/nestopia/demo.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/input.lua")
        harness.run(5)
        let ram = { harness.session.systemRAM() }
        let x0 = Int(ram()[3]), y0 = Int(ram()[4])
        harness.host.screen.devices.keys = ["right"]
        harness.run(10)
        XCTAssertEqual(Int(ram()[3]), x0 + 10, "arrow keys drive the d-pad")
        harness.host.screen.devices.keys = ["i"]
        harness.run(3)
        XCTAssertEqual(Int(ram()[4]), y0 - 3, "the user's remap (i = up)")
        harness.host.screen.devices.keys = ["j"]
        harness.run(2)
        XCTAssertEqual(Int(ram()[3]), x0 + 8, "the per-game remap (j = left)")
        harness.host.screen.devices.keys = []
        var pad = HostDevices.Gamepad(name: "Pad")
        pad.buttons = ["b"]  // SDL's right face button = RetroPad A.
        harness.host.screen.devices.gamepads = [pad]
        harness.run(1)
        XCTAssertEqual(ram()[2], 0x80, "gamepad b → RetroPad A → NES A")
        harness.host.screen.devices.gamepads = []
        harness.run(1)
        let presses = ram()[5]
        harness.host.screen.devices.keys = ["c"]  // Turbo A: 2 frames on, 2 off.
        harness.run(8)
        harness.host.screen.devices.keys = []
        harness.run(1)
        XCTAssertEqual(Int(ram()[5]) - Int(presses), 2, "turbo pressed A twice in 8 frames")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testRewindReturnsToTheExactRAMOfEarlierFrames() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: harness.folder + "/config", withIntermediateDirectories: true)
        try "return { granularity = 1 }".write(
            toFile: harness.folder + "/config/rewind.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/rewind.lua")
        var history: [[UInt8]] = []
        for frame in 1...60 {
            harness.host.emulator.playerInput = .init()
            harness.host.emulator.playerInput.set(frame % 3 == 0 ? .left : .right, true)
            harness.host.emulator.playerInput.set(.a, frame % 2 == 0)
            harness.run(1)
            history.append(harness.session.systemRAM())
        }
        harness.host.emulator.playerInput = .init()
        harness.host.deliver([.keyDown("backspace", repeat: false)])
        harness.run(20)
        harness.host.deliver([.keyUp("backspace")])
        XCTAssertEqual(harness.session.frameCount, 40)
        XCTAssertTrue(harness.session.systemRAM() == history[39], "the RAM of frame 40, exactly")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testRunAheadShowsThePlainRunsFramesAheadAndKeepsTheGameInStep() throws {
        // The plain run: the picture and RAM after each frame, holding right.
        func record(runAhead: Int) throws -> (pictures: [String], ram: [String]) {
            let harness = try ScriptHarness()
            if runAhead > 0 {
                try FileManager.default.createDirectory(
                    atPath: harness.folder + "/config", withIntermediateDirectories: true)
                try "return { frames = \(runAhead) }".write(
                    toFile: harness.folder + "/config/runahead.lua", atomically: true, encoding: .utf8)
                try harness.load(file: Fixtures.root + "/lua/defaults/runahead.lua")
            }
            var pictures: [String] = [], ram: [String] = []
            for frame in 0..<40 {
                harness.host.emulator.playerInput = .init()
                harness.host.emulator.playerInput.set(frame < 20 ? .right : .down, true)
                harness.run(1)
                pictures.append(harness.host.frameWithOverlay().map { Hashing.sha1($0.rgba) } ?? "")
                ram.append(Hashing.sha1(harness.session.systemRAM()))
            }
            XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
            harness.close()
            return (pictures, ram)
        }
        let plain = try record(runAhead: 0)
        for ahead in [1, 2] {
            let run = try record(runAhead: ahead)
            XCTAssertEqual(run.ram, plain.ram, "run-ahead \(ahead) never changes the game itself")
            // While the input does not change, the shown picture is the plain run's `ahead` frames later.
            for frame in 5..<(20 - ahead) {
                XCTAssertEqual(run.pictures[frame], plain.pictures[frame + ahead], "run-ahead \(ahead), frame \(frame)")
            }
        }
    }

    func testOSDCountersAndSlotIndicator() throws {
        let osd = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: osd.folder + "/config", withIntermediateDirectories: true)
        try "return { fps = true, counters = true, input = true }".write(
            toFile: osd.folder + "/config/osd.lua", atomically: true, encoding: .utf8)
        try osd.load(file: Fixtures.root + "/lua/defaults/osd.lua")
        osd.run(3)
        XCTAssertFalse(osd.host.screen.hudCanvas.isEmpty, "fps, counters and input drawn")
        XCTAssertTrue(osd.failures.isEmpty, "\(osd.failures)")
        osd.close()

        let keys = try harness(["hotkeys"])
        keys.run(2)
        XCTAssertTrue(keys.host.screen.hudCanvas.isEmpty)
        keys.host.deliver([.keyDown("f7", repeat: false)])
        keys.run(1)
        XCTAssertFalse(keys.host.screen.hudCanvas.isEmpty, "the slot indicator shows after a slot change")
        XCTAssertTrue(keys.failures.isEmpty, "\(keys.failures)")
    }

    func testOSDShowsMessagesOnTheHudOnly() throws {
        let harness = try harness(["osd"])
        try harness.load("event.on('frame_end', function() if emu.framecount() == 3 then emu.message('hello') end end)")
        harness.run(2)
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty)
        harness.run(2)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the message is drawn")
        XCTAssertTrue(harness.host.screen.emuCanvas.isEmpty, "not on the emu surface: screenshots stay clean")
        XCTAssertEqual(harness.errors, "[test.lua] hello\n", "mirrored to stderr for logs and screen readers")
        harness.run(200)
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty, "messages expire")
    }

    func testDefaultsCanBeTurnedOffOrReplaced() throws {
        let home = Fixtures.temporaryFolder()
        let probe = Fixtures.temporaryFolder() + "/probe.lua"
        try "emu.message('probe'); emu.exit(0)".write(toFile: probe, atomically: true, encoding: .utf8)
        // With the OSD, the message is drawn; without it, it is printed.
        let withOSD = try Fixtures.cli(
            ["run", "--headless", "--with-defaults", "--script", probe, "--quiet"], home: home)
        XCTAssertEqual(withOSD.status, 0, withOSD.stderr)
        XCTAssertFalse(withOSD.stderr.contains("probe"), withOSD.stderr)
        let without = try Fixtures.cli(
            ["run", "--headless", "--with-defaults", "--no-default", "osd", "--script", probe, "--quiet"], home: home)
        XCTAssertTrue(without.stderr.contains("[probe.lua] probe"), without.stderr)
        let none = try Fixtures.cli(
            ["run", "--headless", "--with-defaults", "--no-default", "all", "--frames", "10", "--quiet"], home: home)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(try Fixtures.cli(["run", "--no-default", "hud"], home: home).status, 2)
        // A same-named file in the user's scripts folder replaces the shipped default.
        try FileManager.default.createDirectory(
            atPath: home + "/.config/retrolua/scripts", withIntermediateDirectories: true)
        try "print('my own osd')".write(
            toFile: home + "/.config/retrolua/scripts/osd.lua", atomically: true, encoding: .utf8)
        let replaced = try Fixtures.cli(
            ["run", "--headless", "--with-defaults", "--script", probe, "--quiet"], home: home)
        XCTAssertTrue(replaced.stdout.contains("my own osd"), replaced.stdout)
        XCTAssertTrue(
            replaced.stderr.contains("[probe.lua] probe"),
            "the replacement does not listen for messages: \(replaced.stderr)")
    }
}
