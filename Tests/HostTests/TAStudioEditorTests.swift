@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media

/// The default TAS editor (lua/defaults/tastudio.lua) driven as a player would: synthetic mouse clicks
/// and drags on its piano roll, and key presses, headless (the hud takes the frame's size, 256×224, plus the
/// editor's side panel beside it; font scale 1, so row `r` is at y = 22 + 10·r, port 1's button column `c`
/// at x = 256 + 48 + 12·c, the frame numbers at 256 ≤ x < 256 + 48; NES columns: up down left right select
/// start b a).
final class TAStudioEditorTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// The panel's left edge: beside the 256-pixel-wide picture.
    private let x0 = 256

    private func openEditor(defaults: [String] = []) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        let emulator = harness.host.emulator
        _ = try harness.recordAndPlay("editor.rlm", frames: 120) { frame in
            var input = InputState()
            input.set(.right, frame % 2 == 0)
            return input
        }
        for name in defaults + ["tastudio"] { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        emulator.movie.editorEngaged = true
        try emulator.seekMovie(to: 2)
        harness.run(1)  // the editor opens: its panel, the keyboard
        try emulator.seekMovie(to: 2)
        return harness
    }

    /// Moves the mouse to row `row`, column `x`, with the buttons as given (each press and release delivered as
    /// the window delivers them), and runs a frame.
    private func mouse(_ harness: ScriptHarness, row: Int, x: Int, left: Bool, right: Bool = false) {
        let (px, py) = (x0 + x, 22 + 10 * row + 4)
        harness.host.screen.devices.mouse.x = px
        harness.host.screen.devices.mouse.y = py
        let before = harness.host.screen.devices.mouse.buttons
        let after = Set((left ? ["left"] : []) + (right ? ["right"] : []))
        harness.host.screen.devices.mouse.buttons = after
        harness.host.deliver(
            after.subtracting(before).sorted().map { HostEvent.mouseDown($0, x: px, y: py) }
                + before.subtracting(after).sorted().map { HostEvent.mouseUp($0, x: px, y: py) })
        harness.run(1)
    }

    private func button(_ column: Int) -> Int { 48 + 12 * column + 6 }

    /// Presses `name` (with ctrl and shift held if asked) as the window delivers it, then runs a frame.
    private func key(
        _ harness: ScriptHarness, _ name: String, ctrl: Bool = false, shift: Bool = false, run: Bool = true
    ) {
        let held = harness.host.screen.devices.keys
        harness.host.screen.devices.keys.formUnion((ctrl ? ["left ctrl"] : []) + (shift ? ["left shift"] : []))
        harness.host.screen.devices.keys.insert(name)
        var modifiers: KeyModifiers = []
        if ctrl { modifiers.insert(.ctrl) }
        if shift { modifiers.insert(.shift) }
        harness.host.deliver([.keyDown(name, repeat: false, modifiers: modifiers)])
        harness.host.deliver([.keyUp(name, modifiers: modifiers)])
        harness.host.screen.devices.keys = held
        if run { harness.run(1) }
    }

    private func held(_ harness: ScriptHarness, _ frame: Int, _ button: RetroPadButton) -> Bool {
        harness.host.emulator.movie.input(at: frame)!.0.isPressed(button, port: 0)
    }

    func testClicksAndDragsOnThePianoRollEditTheMovieAsOneUndoStepEach() throws {
        let harness = try openEditor()
        defer { harness.close() }
        let engine = harness.host.emulator.movie
        XCTAssertFalse(held(harness, 10, .a))
        mouse(harness, row: 10, x: button(7), left: true)  // column 7: a
        mouse(harness, row: 10, x: button(7), left: false)
        XCTAssertTrue(held(harness, 10, .a), "a click toggles the cell")
        // A drag paints the same value down the column.
        mouse(harness, row: 12, x: button(6), left: true)  // column 6: b
        for row in 13...15 { mouse(harness, row: row, x: button(6), left: true) }
        mouse(harness, row: 15, x: button(6), left: false)
        XCTAssertEqual((12...15).map { held(harness, $0, .b) }, [true, true, true, true])
        XCTAssertFalse(held(harness, 16, .b))
        XCTAssertTrue(engine.canUndo)
        XCTAssertNotNil(try harness.host.emulator.editMovie { $0.undo() })
        XCTAssertFalse(held(harness, 13, .b), "the drag undoes as one step")
        XCTAssertTrue(held(harness, 10, .a))
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testKeysInsertDeleteCopyPasteMarkAndUndoOnTheSelection() throws {
        let harness = try openEditor()
        defer { harness.close() }
        let engine = harness.host.emulator.movie
        let length = engine.movie!.length
        // Select frames 4…6 by dragging over the frame numbers.
        mouse(harness, row: 4, x: 10, left: true)
        mouse(harness, row: 6, x: 10, left: true)
        mouse(harness, row: 6, x: 10, left: false)
        XCTAssertEqual(engine.selection.sorted(), [4, 5, 6])
        func key(_ name: String, ctrl: Bool = false) { self.key(harness, name, ctrl: ctrl) }
        key("insert")
        XCTAssertEqual(engine.movie!.length, length + 3, "insert adds as many frames as are selected")
        key("z", ctrl: true)
        XCTAssertEqual(engine.movie!.length, length, "ctrl+z undoes")
        key("y", ctrl: true)
        XCTAssertEqual(engine.movie!.length, length + 3, "ctrl+y redoes")
        key("delete")
        XCTAssertEqual(engine.movie!.length, length)
        // Toggle b (column 7 → key 7) on the selection, copy it, paste it at frame 40.
        key("7")
        XCTAssertEqual((4...6).map { held(harness, $0, .b) }, [true, true, true])
        key("c", ctrl: true)
        engine.selection = [40]
        key("v", ctrl: true)
        XCTAssertEqual((40...42).map { held(harness, $0, .b) }, [true, true, true])
        key("m", ctrl: true)
        XCTAssertEqual(engine.movie!.markers[40], "", "ctrl+m puts a marker on the selection")
        key("n", ctrl: true)
        for letter in ["h", "i"] { key(letter) }
        key("return")
        XCTAssertEqual(engine.movie!.markers[40], "hi", "ctrl+n types the marker's note")
        // Right-clicking a frame number seeks there; ctrl+g seeks to the selection.
        mouse(harness, row: 3, x: 10, left: false, right: true)
        XCTAssertEqual(engine.frame, 4, "seeks to 3 as the press arrives, then the frame after it ran")
        key("g", ctrl: true)
        XCTAssertEqual(engine.frame, 41, "seeks to 40, then the frame after the key ran")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    /// A chord and a click within one frame, as xdotool or a remote desktop sends them: by the time the frame's
    /// events are handled the keys and buttons are up again, so only the events' own modifiers and the press and
    /// release events tell them. ctrl+n opens a note (not n, frame advance), a click toggles its cell, and the
    /// hotkeys' p with ctrl is not pause.
    func testAChordAndAClickWithinOneFrameAreSeenFromTheEventsThemselves() throws {
        let harness = try openEditor(defaults: ["input", "hotkeys"])
        defer { harness.close() }
        let emulator = harness.host.emulator, engine = emulator.movie
        engine.selection = [30]
        harness.host.screen.devices.keys = []
        harness.host.deliver([
            .keyDown("left ctrl", repeat: false, modifiers: .ctrl), .keyDown("n", repeat: false, modifiers: .ctrl),
            .keyUp("n", modifiers: .ctrl), .keyUp("left ctrl"),
        ])
        XCTAssertFalse(emulator.stepRequested, "ctrl+n is not n (frame advance)")
        for letter in ["o", "k"] {
            harness.host.deliver([.keyDown(letter, repeat: false), .keyUp(letter)])
        }
        harness.host.deliver([
            .keyDown("left shift", repeat: false, modifiers: .shift), .keyDown("p", repeat: false, modifiers: .shift),
            .keyUp("p", modifiers: .shift), .keyUp("left shift"), .keyDown("return", repeat: false), .keyUp("return"),
        ])
        XCTAssertEqual(engine.movie!.markers[30], "okP", "the note typed after ctrl+n, shift from the event")
        XCTAssertFalse(emulator.paused, "p typed into the note is not the pause key")
        // A click: press and release in one frame at frame 12's a cell; the held buttons never show it.
        XCTAssertFalse(held(harness, 12, .a))
        let (x, y) = (x0 + button(7), 22 + 10 * 12 + 4)
        harness.host.screen.devices.mouse.x = x
        harness.host.screen.devices.mouse.y = y
        harness.host.deliver([.mouseDown("left", x: x, y: y), .mouseUp("left", x: x, y: y)])
        harness.run(1)
        XCTAssertTrue(held(harness, 12, .a), "the click toggled the cell")
        XCTAssertTrue(engine.canUndo)
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testTheEditorStaysHiddenUntilEngagedAndDrawsNothingWithoutAMovie() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/tastudio.lua")
        harness.host.screen.devices.mouse.buttons = ["left"]
        harness.host.deliver([.keyDown("insert", repeat: false)])
        harness.run(3)
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty, "nothing drawn while hidden")
    }

    func testTastudioOnTheCommandLineRecordsANewMovieAndOpensAnExistingOneReadWrite() throws {
        let folder = Fixtures.temporaryFolder()
        let movie = folder + "/new.rlm", script = folder + "/check.lua"
        try """
        event.on("frame_end", function()
          if emu.framecount() == 20 then
            print(tastudio.engaged(), tastudio.mode(), movie.readonly(), tastudio.length())
            emu.exit(0)
          end
        end)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let first = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--quiet", "--tastudio", movie])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try MovieText.read(path: movie).length, 600, "a new file is recorded (headless: 600 frames)")
        let second = try Fixtures.cli([
            "run", Fixtures.nesROM, "--headless", "--quiet", "--tastudio", movie, "--allow-files", "--script", script,
        ])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, "true\tplay\tfalse\t600\n", second.stderr)
        let both = try Fixtures.cli(["run", Fixtures.nesROM, "--tastudio", movie, "--play-movie", movie])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--tastudio opens its own movie"), both.stderr)
    }

    func testCtrlSSavesTheMovieOpenedKeepingThePreviousFileAndTheOSDSaysWhere() throws {
        let harness = try openEditor()
        defer { harness.close() }
        var messages: [String] = []
        harness.host.onMessage = { messages.append($0) }
        let engine = harness.host.emulator.movie
        let path = try XCTUnwrap(engine.path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        mouse(harness, row: 10, x: button(7), left: true)  // a on frame 10
        mouse(harness, row: 10, x: button(7), left: false)
        key(harness, "s", ctrl: true)
        XCTAssertTrue(try MovieText.read(path: path).log.input(at: 10).isPressed(.a, port: 0), "saved to the movie")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path + ".bak")), original, "the previous file kept")
        XCTAssertTrue(
            messages.contains { $0.contains("saved \(path)") && $0.contains("\(path).bak") }, "\(messages)")
        // A second save keeps the backup of the file as it was opened.
        mouse(harness, row: 11, x: button(7), left: true)
        mouse(harness, row: 11, x: button(7), left: false)
        key(harness, "s", ctrl: true)
        XCTAssertTrue(try MovieText.read(path: path).log.input(at: 11).isPressed(.a, port: 0))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path + ".bak")), original)
        // Branches have their own key, and leave the movie's file alone.
        let saved = try Data(contentsOf: URL(fileURLWithPath: path))
        key(harness, "s", ctrl: true, shift: true)
        XCTAssertEqual(try engine.branches().count, 1, "ctrl+shift+s saves a branch")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), saved)
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testKeysTypedIntoTheEditorReachNeitherTheHotkeysNorTheGame() throws {
        let harness = try openEditor(defaults: ["input", "hotkeys"])
        defer { harness.close() }
        var messages: [String] = []
        harness.host.onMessage = { messages.append($0) }
        let emulator = harness.host.emulator, engine = emulator.movie
        XCTAssertFalse(engine.readOnly)
        // ctrl+m is the editor's marker key, not the hotkeys' m (read-only).
        engine.selection = [20]
        key(harness, "m", ctrl: true)
        XCTAssertEqual(engine.movie!.markers[20], "", "the marker is set")
        XCTAssertFalse(engine.readOnly, "read-only was not toggled")
        // ctrl+n types a note: h, n and p are letters of it, not reset, frame advance and pause.
        let frame = engine.frame
        key(harness, "n", ctrl: true)
        for letter in ["h", "n", "p"] {
            key(harness, letter, run: false)
            XCTAssertFalse(emulator.paused, "\(letter) paused the game")
            XCTAssertFalse(emulator.stepRequested, "\(letter) advanced a frame")
        }
        key(harness, "return")
        XCTAssertEqual(engine.movie!.markers[20], "hnp")
        XCTAssertEqual(engine.frame, frame + 2, "only the frames the test ran")
        XCTAssertFalse(
            messages.contains { ["reset", "paused", "resumed", "movie read-only"].contains($0) }, "\(messages)")
        // Recording past the end with z (the b button's key) held for ctrl+z: the game gets none of it.
        try emulator.seekMovie(to: engine.movie!.length)
        XCTAssertEqual(engine.mode, .record)
        let end = engine.movie!.length
        harness.host.screen.devices.keys = ["left ctrl", "z"]
        harness.host.deliver([.keyDown("z", repeat: false, modifiers: .ctrl)])
        harness.run(20)
        harness.host.screen.devices.keys = []
        XCTAssertEqual(engine.movie!.length, end + 20, "the recording grew")
        XCTAssertEqual(
            (end..<end + 20).filter { held(harness, $0, .b) }, [], "no key typed into the editor is recorded")
        // escape hands the keyboard to the game: now z plays into the recording.
        key(harness, "escape")
        harness.host.screen.devices.keys = ["z"]
        harness.run(3)
        harness.host.screen.devices.keys = []
        XCTAssertTrue(held(harness, engine.movie!.length - 1, .b), "with the keyboard given back, the game hears z")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testThePianoRollIsBesideThePictureAtTheOSDsTextScale() throws {
        let harness = try openEditor()
        defer { harness.close() }
        harness.run(1)
        let panel = harness.host.sidePanel
        XCTAssertGreaterThan(panel, 0, "the editor keeps a panel beside the picture")
        XCTAssertEqual(harness.host.screen.hudCanvas.width, 256 + panel, "headless, the hud widens by the panel")
        // What other scripts align to the hud's right (the OSD's corner, the slot) stays beside the game.
        try harness.load("print((gui.surface_size('hud')))", name: "probe.lua")
        XCTAssertEqual(harness.lines.last, "256")
        // Nothing of the editor over the picture: the hud is clear left of the panel.
        let hud = harness.host.screen.hudCanvas
        let drawnOverPicture = (0..<hud.height).contains { y in
            (0..<256).contains { x in hud.pixels[(y * hud.width + x) * 4 + 3] != 0 }
        }
        XCTAssertFalse(drawnOverPicture, "the roll is drawn beside the game, not over it")
        harness.host.emulator.movie.editorEngaged = false
        harness.run(1)
        XCTAssertEqual(harness.host.sidePanel, 0, "hidden, the editor gives the room back")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testTheEditorsChangesAreSavedToTheMovieAtExitWithABackup() throws {
        let folder = Fixtures.temporaryFolder()
        let movie = folder + "/edit.rlm", script = folder + "/edit.lua"
        let recorded = try Fixtures.cli([
            "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "30", "--record-movie", movie,
        ])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let original = try Data(contentsOf: URL(fileURLWithPath: movie))
        try """
        event.on("frame_end", function()
          if emu.framecount() == 10 then
            assert(tastudio.set_button(3, 1, "a", true))
            emu.exit(0)
          end
        end)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--tastudio", movie, "--script", script])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(try MovieText.read(path: movie).log.input(at: 3).isPressed(.a, port: 0), run.stdout + run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: movie + ".bak")), original)
        XCTAssertTrue(run.stdout.contains("saved the TAS editor's changes to \(movie)"), run.stdout)
        XCTAssertTrue(run.stdout.contains("\(movie).bak"), run.stdout)
        XCTAssertFalse(run.stderr.contains("untouched"), run.stderr)
    }

    func testTastudioFindsTheMoviesROMBesideItAndRefusesAnotherGamesMovie() throws {
        let folder = Fixtures.temporaryFolder()
        let rom = folder + "/mine.nes"
        try FileManager.default.copyItem(atPath: Fixtures.root + "/build/roms/dodge.nes", toPath: rom)
        let movie = folder + "/mine.rlm"
        let recorded = try Fixtures.cli([
            "run", rom, "--headless", "--quiet", "--frames", "20", "--record-movie", movie,
        ])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        // No ROM given: the one beside the movie (not the built-in demo).
        let found = try Fixtures.cli(["run", "--headless", "--frames", "5", "--tastudio", movie])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.contains("content  mine.nes"), found.stdout)
        // Given another game: refused, naming both and their checksums; --force plays it with a warning.
        let other = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "5", "--tastudio", movie])
        XCTAssertEqual(other.status, 1, other.stderr)
        XCTAssertTrue(other.stderr.contains("mine.nes, SHA-1"), other.stderr)
        XCTAssertTrue(other.stderr.contains("this is demo.nes (SHA-1"), other.stderr)
        let forced = try Fixtures.cli([
            "run", Fixtures.nesROM, "--headless", "--frames", "5", "--tastudio", movie, "--force",
        ])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(
            forced.stderr.contains("warning: movie: the movie was recorded with other content"), forced.stderr)
        // A movie that names its game but carries no checksum: the lookup wants that name; a ROM the person
        // gives plays with a loud warning (imported movies name a title, a ROM may have been renamed).
        var text = try String(contentsOfFile: movie, encoding: .utf8)
        text = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.hasPrefix("content-")
        }.joined(separator: "\n")
        let named = folder + "/named.rlm"
        try text.write(toFile: named, atomically: true, encoding: .utf8)
        let byName = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "5", "--tastudio", named])
        XCTAssertEqual(byName.status, 0, byName.stderr)
        XCTAssertTrue(
            byName.stderr.contains(
                "warning: movie: the movie names other content (mine.nes, no checksum), this is demo.nes: it may desync"
            ),
            byName.stderr)
        let renamed = folder + "/elsewhere/named.rlm"
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: false)
        try text.replacingOccurrences(of: "content mine.nes", with: "content gone.nes").write(
            toFile: renamed, atomically: true, encoding: .utf8)
        let notFound = try Fixtures.cli(["run", "--headless", "--frames", "5", "--tastudio", renamed])
        XCTAssertEqual(notFound.status, 1, notFound.stderr)
        XCTAssertTrue(notFound.stderr.contains("give the ROM: the movie was recorded with gone.nes"), notFound.stderr)
        // And the lookup without a ROM refuses rather than falling back to the demo.
        try FileManager.default.removeItem(atPath: rom)
        let missing = try Fixtures.cli(["run", "--headless", "--frames", "5", "--tastudio", movie])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(
            missing.stderr.contains("give the ROM: the movie was recorded with mine.nes (SHA-1"), missing.stderr)
    }

    func testHotkeysAnswerTheirOwnKeysOnlyAndAHoldEndsWhenATookOpenedMeanwhile() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/hotkeys.lua")
        let emulator = harness.host.emulator
        harness.run(1)
        // p is the pause hotkey; ctrl+p is another key (some tool's shortcut), also typed within one frame (the
        // ctrl already up when the frame's events are handled: the event's own modifiers tell).
        key(harness, "p", ctrl: true, run: false)
        XCTAssertFalse(emulator.paused, "ctrl+p is not p")
        harness.host.deliver([
            .keyDown("left ctrl", repeat: false, modifiers: .ctrl), .keyDown("p", repeat: false, modifiers: .ctrl),
            .keyUp("p", modifiers: .ctrl), .keyUp("left ctrl"),
        ])
        XCTAssertFalse(emulator.paused, "a quick ctrl+p is not p either")
        key(harness, "p", run: false)
        XCTAssertTrue(emulator.paused, "p pauses")
        emulator.paused = false
        // tab held fast-forwards; a tool takes the keyboard meanwhile; releasing tab still ends it.
        harness.host.deliver([.keyDown("tab", repeat: false)])
        XCTAssertEqual(emulator.speed, 0)
        try harness.load("assert(input.capture(true))", name: "tool.lua")
        harness.host.deliver([.keyUp("tab")])
        XCTAssertEqual(emulator.speed, 1, "the release reached the hotkeys")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testF3ShowsAndHidesTheEditorAndTheKeyThatOpensItIsNotAlsoItsKey() throws {
        let harness = try openEditor(defaults: ["hotkeys"])
        defer { harness.close() }
        let engine = harness.host.emulator.movie
        key(harness, "f3")
        XCTAssertFalse(engine.editorEngaged, "f3 in the editor hides it")
        XCTAssertEqual(harness.host.sidePanel, 0)
        key(harness, "f3")
        XCTAssertTrue(engine.editorEngaged, "f3 heard by the hotkeys shows it again, and it stays")
        XCTAssertGreaterThan(harness.host.sidePanel, 0)
        key(harness, "f3")
        XCTAssertFalse(engine.editorEngaged)
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testWithTheKeyboardTheEditorPausesWhereTheMovieEnds() throws {
        let harness = try openEditor()
        defer { harness.close() }
        let emulator = harness.host.emulator, engine = emulator.movie
        let length = engine.movie!.length
        harness.run(length - engine.frame - 1)
        XCTAssertFalse(emulator.paused)
        harness.run(1)
        XCTAssertEqual(engine.frame, length)
        XCTAssertTrue(emulator.paused, "paused at the end: the movie does not run on unseen")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testASaveWhoseBackupCannotBeMadeIsRefusedAndTheFileStaysAsItWas() throws {
        let harness = try openEditor()
        defer { harness.close() }
        let path = try XCTUnwrap(harness.host.emulator.movie.path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.createDirectory(atPath: path + ".bak", withIntermediateDirectories: false)
        try harness.load(
            """
            assert(tastudio.set_button(5, 1, "a", true))
            print(tastudio.save())
            """, name: "save.lua")
        let line = try XCTUnwrap(harness.lines.last)
        XCTAssertTrue(line.hasPrefix("nil\t"), line)
        XCTAssertTrue(line.contains("not saved"), line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original, "the movie's file untouched")
        XCTAssertTrue(harness.host.emulator.movie.hasUnsavedChanges, "the edit is still there to save elsewhere")
    }
}
