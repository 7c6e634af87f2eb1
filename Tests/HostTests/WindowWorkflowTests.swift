import Foundation
import XCTest

/// What a person does in a default windowed run (default profile, every default script loaded), keys typed
/// into a real window: the frontend's own UI acts for the person, so it is never refused by the sandbox.
final class WindowWorkflowTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testF8TakesAScreenshotInADefaultRun() throws {
        let session = try WindowSession(["--no-audio"])
        let folder = session.home + "/.local/share/retrolua/screenshots"
        func shots() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".png") }
        }
        XCTAssertTrue(try session.press("F8") { !shots().isEmpty }, "no screenshot in \(folder): \(session.stderr)")
        XCTAssertFalse(session.stderr.contains("outside the folders"), session.stderr)
        XCTAssertEqual(session.stop(), 143, "SIGTERM ends it cleanly: " + session.stderr)
    }

    /// One sitting with every default loaded: save and load a state, open and close the menu and the RAM
    /// tools (the keys typed while they are open reach neither the game nor the hotkeys), take a screenshot,
    /// quit with escape. Nothing is refused, nothing fails, the battery save is written.
    func testASittingWithEveryDefault() throws {
        let session = try WindowSession(["--no-audio"])
        let data = session.home + "/.local/share/retrolua"
        func said(_ text: String) -> Bool { session.waitUntil(seconds: 10) { session.stderr.contains(text) } }
        XCTAssertTrue(try session.press("F2") { session.stderr.contains("saved slot") }, session.stderr)
        try session.press("F4")
        XCTAssertTrue(said("loaded slot"), session.stderr)
        try session.press("F1")  // the menu takes the keyboard: p is the menu's, not the pause hotkey's
        try session.press("p", "Escape")
        try session.press("F12")  // the RAM tools too
        try session.press("p", "Escape")
        XCTAssertFalse(
            session.stderr.contains("] paused"), "a key typed into a tool reached the hotkeys: \(session.stderr)")
        try session.press("F8")
        XCTAssertTrue(said("screenshot " + data + "/screenshots/"), session.stderr)
        try session.press("Escape")
        XCTAssertEqual(session.waitForExit(), 0, session.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: data + "/saves/" + Fixtures.srm()), "battery save written")
        for word in ["failed", "outside the folders", "error"] {
            XCTAssertFalse(session.stderr.lowercased().contains(word), "\(word): \(session.stderr)")
        }
    }

    /// A tool's side panel goes with the tool: when the script that asked for the room fails, the window
    /// (here the headless hud) returns to the game's width.
    func testASidePanelGoesWithTheScriptThatAskedForIt() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(
            "gui.side_panel(200) event.on('frame_end', function() if emu.framecount() == 3 then error('tool broke') end end)",
            name: "tool.lua")
        harness.run(1)
        XCTAssertEqual(harness.host.sidePanel, 200)
        let wide = harness.host.screen.hudCanvas.width
        harness.run(5)
        XCTAssertEqual(harness.failures.count, 1, "\(harness.failures)")
        XCTAssertEqual(harness.host.sidePanel, 0, "the failed tool's room is given back")
        XCTAssertEqual(harness.host.screen.hudCanvas.width, wide - 200)
    }

    func testAScriptTheUserRunsStaysConfined() throws {
        // The frontend's freedom is its own: a script given with --script still may not write the screenshots
        // folder (nor anything outside its data folder) under the default profile.
        let home = Fixtures.temporaryFolder()
        let script = home + "/shot.lua"
        try """
        local ok, problem = gui.screenshot(emu.paths().screenshots .. "/mine.png")
        print(ok and "written" or problem)
        emu.exit(0)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["run", "--headless", "--frames", "5", "--script", script], home: home)
        XCTAssertTrue(result.stdout.contains("outside the folders"), result.stdout + result.stderr)
    }
}
