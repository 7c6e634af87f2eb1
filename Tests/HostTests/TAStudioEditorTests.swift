@testable import Emulation
import Foundation
import XCTest
@testable import Host
import Libretro
import Media

/// The default TAS editor (lua/defaults/tastudio.lua) driven as a player would: synthetic mouse clicks
/// and drags on its piano roll, and key presses, headless (the hud takes the frame's size: 256×224, font
/// scale 1, so row `r` is at y = 22 + 10·r, port 1's button column `c` at x = 48 + 12·c, the frame
/// numbers at x < 48; NES columns: up down left right select start b a).
final class TAStudioEditorTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func openEditor() throws -> ScriptHarness {
        let harness = try ScriptHarness()
        let emulator = harness.host.emulator
        let path = harness.folder + "/editor.rlm"
        try emulator.movie.record(to: path, options: .init())
        for frame in 0..<120 {
            emulator.playerInput = InputState()
            emulator.playerInput.set(.right, frame % 2 == 0)
            emulator.runFrame()
        }
        emulator.playerInput = InputState()
        try emulator.movie.stop()
        var options = MovieEngine.PlayOptions()
        options.readOnly = false
        try emulator.playMovie(at: path, options: options)
        try harness.load(file: Fixtures.root + "/lua/defaults/tastudio.lua")
        emulator.movie.editorEngaged = true
        try emulator.seekMovie(to: 2)
        return harness
    }

    /// Moves the mouse to row `row`, column `x`, with the left button as given, and runs a frame.
    private func mouse(_ harness: ScriptHarness, row: Int, x: Int, left: Bool, right: Bool = false) {
        harness.host.devices.mouse.x = x
        harness.host.devices.mouse.y = 22 + 10 * row + 4
        harness.host.devices.mouse.buttons = Set((left ? ["left"] : []) + (right ? ["right"] : []))
        harness.run(1)
    }

    private func button(_ column: Int) -> Int { 48 + 12 * column + 6 }

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
        func key(_ name: String, ctrl: Bool = false) {
            harness.host.devices.keys = ctrl ? ["left ctrl"] : []
            harness.host.deliver([.keyDown(name, repeat: false)])
            harness.host.devices.keys = []
            harness.run(1)
        }
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
        XCTAssertEqual(engine.frame, 3)
        key("g", ctrl: true)
        XCTAssertEqual(engine.frame, 41, "seeks to 40, then the frame after the key ran")
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
    }

    func testTheEditorStaysHiddenUntilEngagedAndDrawsNothingWithoutAMovie() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/tastudio.lua")
        harness.host.devices.mouse.buttons = ["left"]
        harness.host.deliver([.keyDown("insert", repeat: false)])
        harness.run(3)
        XCTAssertEqual(harness.failures.count, 0, "\(harness.failures)")
        XCTAssertTrue(harness.host.hudCanvas.isEmpty, "nothing drawn while hidden")
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
}
