@testable import Emulation
import Foundation
import XCTest
import Media

/// Every example script, run through the real CLI as a user would.
final class ExamplesTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func example(_ path: String) -> String { Fixtures.root + "/examples/" + path }

    func testFrameAdvanceScriptWithTheInputDisplay() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try Fixtures.cli([
            "run", "--script", example("scripts/frame_advance.lua"),
            "--script", example("overlays/input_display.lua"), "--screenshot", shot, "--quiet", "--headless",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout.split(separator: "\n").last, "done at frame 75: x=160 y=142")
        let image = try PNGRead.rgb(shot)
        // The last frame held Down: exactly that button is lit (#ffcc00) in the display, bottom left.
        let lit = image.count(x: 0..<100, y: 180..<224, color: 0xFFCC00)
        XCTAssertEqual(lit, 16, "the 4x4 inside of the pressed d-pad button's outlined 6x6 box")
    }

    func testRAMWatchOverlayFlashesChangedValues() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try Fixtures.cli([
            "run", "--script", example("overlays/ram_watch.lua"), "--frames", "60", "--screenshot", shot, "--quiet",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try PNGRead.rgb(shot)
        let yellow = image.count(x: 0..<90, y: 0..<12, color: 0xFFFF00)
        let white = image.count(x: 0..<90, y: 12..<50, color: 0xFFFFFF)
        XCTAssertGreaterThan(yellow, 20, "the frame counter changes every frame: its line is yellow")
        XCTAssertGreaterThan(white, 20, "the other values are steady: white")
    }

    func testSavestateSearchReachesItsTarget() throws {
        let result = try Fixtures.cli(["run", "--script", example("bots/savestate_search.lua"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stdout.split(separator: "\n").first, "reached (150, 90) in 30 frames after trying 240 branches")
    }

    func testScriptFlagsOnTheCommandLine() throws {
        let folder = Fixtures.temporaryFolder()
        try "emu.exit(7)".write(toFile: folder + "/seven.lua", atomically: true, encoding: .utf8)
        XCTAssertEqual(try Fixtures.cli(["run", "--script", folder + "/seven.lua", "--quiet"]).status, 7)

        try "event.on('frame_end', function() error('kaput') end)".write(
            toFile: folder + "/bad.lua", atomically: true, encoding: .utf8)
        let lenient = try Fixtures.cli([
            "run", "--script", folder + "/bad.lua", "--frames", "5", "--log", folder + "/log.txt",
        ])
        XCTAssertEqual(lenient.status, 1, "the run went on without the script, and a job whose script failed fails")
        XCTAssertTrue(
            lenient.stderr.contains("retrolua: script bad.lua failed: ") && lenient.stderr.contains("bad.lua:1: kaput"),
            lenient.stderr)
        XCTAssertTrue(lenient.stdout.contains("frames   5 in"), "the run went on")
        XCTAssertTrue(try String(contentsOfFile: folder + "/log.txt", encoding: .utf8).contains("kaput"))
        let strict = try Fixtures.cli(["run", "--script", folder + "/bad.lua", "--frames", "5", "--strict", "--quiet"])
        XCTAssertEqual(strict.status, 1)

        XCTAssertEqual(try Fixtures.cli(["run", "--script", folder + "/missing.lua"]).status, 1)
    }

    /// Every file `retrolua docs` writes (the Lua API reference, LuaLS stubs, luacheck globals and the site's
    /// reference pages) is as generated, and `--check` notices a change in any one of them.
    func testAPIReferenceAndStubsAreUpToDate() throws {
        let result = try Fixtures.cli([
            "docs", "--check", "--out", Fixtures.root + "/lua", "--site", Fixtures.root + "/docs",
        ])
        XCTAssertEqual(result.status, 0, result.stderr + " (regenerate with `retrolua docs`)")
        let folder = Fixtures.temporaryFolder()
        let arguments = ["docs", "--out", folder + "/lua", "--site", folder + "/docs"]
        XCTAssertEqual(try Fixtures.cli(arguments).status, 0)
        let files = [
            "lua/API.md", "lua/types/retrolua.lua", "lua/types/luacheck_globals.lua", "docs/reference/lua-api.md",
            "docs/reference/cli.md",
        ]
        for file in files {
            let path = folder + "/" + file
            let text = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertEqual(text, try String(contentsOfFile: Fixtures.root + "/" + file, encoding: .utf8), file)
            try (text + "edited\n").write(toFile: path, atomically: true, encoding: .utf8)
            let check = try Fixtures.cli(arguments + ["--check"])
            XCTAssertEqual(check.status, 1, file)
            XCTAssertTrue(check.stderr.contains("out of date") && check.stderr.contains(path), check.stderr)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
