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
        try session.press("F8")
        XCTAssertTrue(session.waitUntil { !shots().isEmpty }, "no screenshot in \(folder): \(session.stderr)")
        XCTAssertFalse(session.stderr.contains("outside the folders"), session.stderr)
        XCTAssertEqual(session.stop(), 143, "SIGTERM ends it cleanly: " + session.stderr)
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
