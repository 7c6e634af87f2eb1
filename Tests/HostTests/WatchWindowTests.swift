import Foundation
import Libretro
import XCTest

/// `--watch` in a real window under the test X server: a script that fails (while running, or not compiling
/// when the run starts) is loaded again once its fix is saved, and the failure is on screen meanwhile (the
/// window grabbed as the display shows it).
final class WatchWindowTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// Whether the picture holds the OSD's failure colour (#ff6060), the note's text.
    private func showsFailure(_ picture: RGBAImage) -> Bool {
        stride(from: 0, to: picture.rgba.count, by: 4).contains {
            picture.rgba[$0] == 0xFF && picture.rgba[$0 + 1] == 0x60 && picture.rgba[$0 + 2] == 0x60
        }
    }

    /// Waits until the window shows the failure's note (or, `showing` false, no longer shows it); true without
    /// ffmpeg to grab the window with.
    private func waitForScreen(_ session: WindowSession, showing: Bool) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else { return true }
        return session.waitUntil(seconds: 10) { session.capture().map { showsFailure($0) == showing } ?? false }
    }

    /// Saves a new version of the script (its modification time set apart from the last one's, so a save within
    /// the clock's tick is seen).
    private func save(_ source: String, to path: String, version: Int) throws {
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: TimeInterval(-60 * version))], ofItemAtPath: path)
    }

    func testAScriptThatFailsWhileRunningIsShownAndReloadedWhenItsFixIsSaved() throws {
        let home = Fixtures.temporaryFolder()
        let script = home + "/live.lua"
        try save(
            """
            local frames = 0
            event.on("frame_end", function()
              frames = frames + 1
              if frames == 30 then error("broke on purpose") end
            end)
            """, to: script, version: 1)
        let session = try WindowSession(["--no-audio", "--watch", "--script", script], home: home)
        defer { session.stop() }
        XCTAssertTrue(session.waitUntil { session.stderr.contains("live.lua:4: broke on purpose") }, session.stderr)
        // The note stays (no moment to catch): the window shows it until the fix loads.
        XCTAssertTrue(waitForScreen(session, showing: true), "the failure is on screen")
        try save(
            """
            event.on("frame_end", function()
              if emu.framecount() % 30 == 0 then print("fixed and running") end
            end)
            """, to: script, version: 2)
        XCTAssertTrue(
            session.waitUntil { session.stdout.contains("fixed and running") }, session.stdout + session.stderr)
        XCTAssertTrue(session.stderr.contains("reloaded live.lua"), session.stderr)
        XCTAssertTrue(waitForScreen(session, showing: false), "the note went with the fix")
        XCTAssertEqual(session.stop(), 143, session.stderr)
    }

    func testAScriptThatDoesNotCompileAtTheStartLoadsOnceItsFixIsSaved() throws {
        let home = Fixtures.temporaryFolder()
        let script = home + "/typo.lua"
        try save("event.on(\"frame_end\", function(\n", to: script, version: 1)
        let session = try WindowSession(["--no-audio", "--watch", "--script", script], home: home)
        defer { session.stop() }
        XCTAssertTrue(session.waitUntil { session.stderr.contains("script typo.lua failed: ") }, session.stderr)
        XCTAssertTrue(waitForScreen(session, showing: true), "the failure is on screen")
        try save("print(\"compiled at last\")\nevent.on(\"frame_end\", function() end)\n", to: script, version: 2)
        XCTAssertTrue(
            session.waitUntil { session.stdout.contains("compiled at last") }, session.stdout + session.stderr)
        XCTAssertEqual(session.stop(), 143, session.stderr)
    }
}
