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
}
