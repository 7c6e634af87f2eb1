import Foundation
import XCTest

@testable import Emulation

/// The TAS editor in a real window under the test X server, the default profile and every default script
/// loaded, keys typed by xdotool as a person types them.
final class TAStudioWindowTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A 40-frame movie of the demo, recorded headless.
    private func recordMovie(_ folder: String) throws -> String {
        let movie = folder + "/edit.rlm"
        let recorded = try Fixtures.cli([
            "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "40", "--record-movie", movie,
        ])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        return movie
    }

    func testTheEditorOpensPausedBesideThePictureHoldsTheKeysAndSavesToTheMovie() throws {
        let home = Fixtures.temporaryFolder()
        let movie = try recordMovie(home)
        let original = try Data(contentsOf: URL(fileURLWithPath: movie))
        // Reports what the person would see: paused or not, the movie's frame, the hud and the panel.
        let probe = home + "/probe.lua"
        try """
        local draws = 0
        event.on("draw", function()
          draws = draws + 1
          if draws == 1 or draws % 30 == 0 then
            local game, panel = gui.surface_size("hud"), gui.side_panel()
            print(string.format("draw %d paused %s frame %d window %d game %d panel %d mode %s readonly %s", draws,
              tostring(emu.paused()), tastudio.frame(), game + panel, game, panel, tastudio.mode(),
              tostring(movie.readonly())))
          end
        end)
        """.write(toFile: probe, atomically: true, encoding: .utf8)
        let session = try WindowSession(
            ["--no-audio", "--scale", "2", "--tastudio", movie, "--script", probe], home: home)
        func last() -> String {
            session.stdout.split(separator: "\n").last { $0.hasPrefix("draw ") }.map(String.init) ?? ""
        }
        XCTAssertTrue(session.waitUntil { last().hasPrefix("draw 30 ") }, session.stdout + session.stderr)
        let first = session.stdout.split(separator: "\n").first { $0.hasPrefix("draw 1 ") }.map(String.init) ?? ""
        XCTAssertTrue(first.contains("paused true frame 0"), "opens paused at the first frame: \(first)")
        // The window widened by the panel: the picture keeps its size beside the roll.
        func number(_ line: String, _ name: String) -> Int {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: Substring(name)), index + 1 < words.count else { return -1 }
            return Int(words[index + 1]) ?? -1
        }
        let panel = number(last(), "panel")
        XCTAssertGreaterThan(panel, 0, last())
        XCTAssertEqual(number(last(), "window"), number(first, "window") + panel, "the window widens: \(last())")
        XCTAssertEqual(number(last(), "game"), number(first, "window"), "the picture keeps its room: \(last())")
        // Typed into the editor: ctrl+z with z a game button, ctrl+m (not read-only), a marker note "hnp" (not
        // reset, frame advance, resume); then ctrl+s saves the movie.
        try session.press("ctrl+z", "ctrl+m", "ctrl+n")
        try session.type("hnp")
        try session.press("Return", "ctrl+s")
        let saved = session.waitUntil {
            (try? MovieText.read(path: movie))?.markers[0] == "hnp"
        }
        XCTAssertTrue(saved, "ctrl+s saved the marker to the movie: " + session.stdout + session.stderr)
        XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: movie + ".bak")), original, "the previous file kept")
        XCTAssertEqual(try MovieText.read(path: movie).length, 40, "the movie did not run on")
        session.waitUntil(seconds: 2) { false }  // a few more draws
        XCTAssertTrue(last().contains("paused true frame 0"), "still paused, still at frame 0: \(last())")
        XCTAssertTrue(last().contains("readonly false"), "ctrl+m did not toggle read-only: \(last())")
        // An edit left unsaved (8: the a button on the current frame) is saved to the movie at exit.
        try session.press("8")
        session.waitUntil(seconds: 1) { false }
        XCTAssertEqual(session.stop(), 143, session.stderr)
        XCTAssertFalse(session.stderr.contains("untouched"), session.stderr)
        XCTAssertTrue(try MovieText.read(path: movie).log.input(at: 0).isPressed(.a, port: 0), session.stdout)
        XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: movie + ".bak")), original, "still the file opened")
    }

    /// Chords and a click sent within one frame (xdotool without delays, as a remote desktop or a fast typist
    /// sends them): the editor reads each key event's own modifiers and the mouse's press and release events, so
    /// ctrl+n opens a note rather than advancing a frame, and a click toggles its cell.
    func testAChordAndAClickWithinOneFrameReachTheEditorAsSuch() throws {
        let home = Fixtures.temporaryFolder()
        let movie = try recordMovie(home)
        let probe = home + "/probe.lua"
        try """
        local draws = 0
        event.on("draw", function()
          draws = draws + 1
          if draws % 10 == 0 then
            print(string.format("draw %d frame %d note [%s] a5 %s x0 %d scale %d", draws, tastudio.frame(),
              tostring(tastudio.marker(0)), tostring(tastudio.get_button(5, 1, "a")), gui.surface_size("hud"),
              gui.text_scale("hud")))
          end
        end)
        """.write(toFile: probe, atomically: true, encoding: .utf8)
        let session = try WindowSession(
            ["--no-audio", "--scale", "2", "--tastudio", movie, "--script", probe], home: home)
        defer { session.stop() }
        func last() -> String {
            session.stdout.split(separator: "\n").last { $0.hasPrefix("draw ") }.map(String.init) ?? ""
        }
        func number(_ name: String) -> Int {
            let words = last().split(separator: " ")
            guard let index = words.firstIndex(of: Substring(name)), index + 1 < words.count else { return -1 }
            return Int(words[index + 1]) ?? -1
        }
        XCTAssertTrue(session.waitUntil { number("draw") >= 30 }, session.stdout + session.stderr)
        // ctrl+n as one xdotool key with no delay, a note typed into it.
        try session.quickly(["key", "--delay", "0", "ctrl+n"])
        try session.type("ab")
        try session.press("Return")
        XCTAssertTrue(session.waitUntil { last().contains("note [ab]") }, last())
        // The same chord as four events sent back to back, then more of the note.
        try session.quickly(["keydown", "ctrl", "keydown", "n", "keyup", "n", "keyup", "ctrl"])
        try session.type("cd")
        try session.press("Return")
        XCTAssertTrue(session.waitUntil { last().contains("note [abcd]") }, last())
        XCTAssertEqual(number("frame"), 0, "no n reached the frame advance: \(last())")
        // A click (press and release back to back) on frame 5's a cell: the roll's layout at the editor's scale,
        // beside the picture (x0): rows of 8·scale+2 pixels below two header rows, then the frame numbers (7
        // characters and 6 pixels), then a 2-character cell per button (NES: a is the 8th).
        let (x0, scale) = (number("x0"), number("scale"))
        XCTAssertGreaterThan(x0, 0, last())
        let (char, line) = (6 * scale, 8 * scale + 2)
        let x = x0 + char * 7 + 6 + 7 * char * 2 + char, y = line * 2 + 2 + 5 * line + line / 2
        try session.quickly(["mousemove", "--window", "%w", String(x), String(y), "click", "1"])
        XCTAssertTrue(session.waitUntil { last().contains("a5 true") }, last())
        XCTAssertEqual(number("frame"), 0, last())
        XCTAssertEqual(session.stop(), 143, session.stderr)
    }
}
