@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media

/// RetroAchievements: the pure-Lua engine's own suite under a stock lua5.4, and a set unlocking in the
/// homebrew NES demo through the default achievements script.
final class AchievementsTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// achievements_test.lua: rcheevos' semantics; achievements_limits_test.lua: measured values and hostile input;
    /// achievements_differential_test.lua: random definitions against an independent model of rcheevos.
    func testThePureLuaEngineSuitePassesUnderStockLua() throws {
        for suite in ["achievements_test.lua", "achievements_limits_test.lua", "achievements_differential_test.lua"] {
            let result = try Fixtures.cli(
                [], executable: "/usr/bin/lua5.4", arguments: [Fixtures.root + "/Tests/lua/" + suite])
            XCTAssertEqual(result.status, 0, suite + ": " + result.stdout + result.stderr)
            XCTAssertTrue(result.stdout.contains("ok "), suite + ": " + result.stdout)
        }
    }

    /// A harness with the demo's achievement set installed and the default achievements script loaded.
    /// `set` replaces the demo's set with that JSON text.
    private func harness(settings: String? = nil, folder: String? = nil, set: String? = nil) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        let config = harness.folder + "/config"
        try FileManager.default.createDirectory(atPath: config + "/achievements", withIntermediateDirectories: true)
        if let set {
            try set.write(toFile: config + "/achievements/demo.json", atomically: true, encoding: .utf8)
        } else {
            try FileManager.default.copyItem(
                atPath: Fixtures.root + "/examples/achievements/demo.json", toPath: config + "/achievements/demo.json")
        }
        if let settings { try settings.write(toFile: config + "/achievements.lua", atomically: true, encoding: .utf8) }
        if let folder {
            try? FileManager.default.createDirectory(
                atPath: harness.folder + "/data/achievements", withIntermediateDirectories: true)
            try? FileManager.default.copyItem(
                atPath: folder + "/data/achievements/demo.txt", toPath: harness.folder + "/data/achievements/demo.txt")
        }
        try harness.load(file: Fixtures.root + "/lua/defaults/achievements.lua")
        return harness
    }

    /// Plays the demo so that every achievement of examples/achievements/demo.json unlocks.
    private static let player = """
        local function hold(buttons, frames) for _ = 1, frames do joypad.set(1, buttons); emu.frameadvance() end end
        hold({}, 10)
        hold({a = true}, 1)                 -- first press: achievement 1, the leaderboard starts
        hold({right = true}, 10)            -- x 120 → 130: the leaderboard submits
        hold({right = true}, 70)            -- x → 200: achievement 2
        hold({b = true}, 30)
        hold({}, 1)                         -- B released: the hit count resets
        hold({b = true}, 61)                -- 60 frames in a row: achievement 3
        for _ = 1, 4 do hold({a = true}, 1); hold({}, 1) end  -- A five times: the unofficial one
        hold({}, 60)
        print("done", memory.read_u8(3), memory.read_u8(5))
        """

    func testTheDemoSetUnlocksAndProgressIsKept() throws {
        let harness = try harness()
        try harness.load(Self.player)
        harness.run(14)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the leaderboard attempt's tracker is drawn")
        harness.run(286)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertEqual(harness.lines, ["done\t200\t5"])
        let messages = harness.errors
        for expected in [
            "Retrolua NES demo: 4 achievements to earn, 1 leaderboards",
            "achievements: 'Broken' (5) skipped:",
            "Achievement unlocked: First press (1 points)",
            "Leaderboard attempt started: Fastest to x=130",
            "Achievement unlocked: Far right (5 points)",
            "Achievement unlocked: Patience (10 points)",
            "Unofficial: 2/5", "Unofficial: 4/5",
            "Achievement unlocked: Unofficial (0 points) [unofficial]",
        ] {
            XCTAssertTrue(messages.contains(expected), "missing '\(expected)' in:\n\(messages)")
        }
        XCTAssertNotNil(messages.range(of: "Leaderboard Fastest to x=130: "), messages)
        let first = try XCTUnwrap(messages.range(of: "First press")),
            far = try XCTUnwrap(messages.range(of: "Far right"))
        XCTAssertLessThan(first.lowerBound, far.lowerBound, "unlocks in play order")
        harness.close()
        let progress = try String(contentsOfFile: harness.folder + "/data/achievements/demo.txt", encoding: .utf8)
        XCTAssertEqual(progress, "1\n2\n3\n4\n")

        // The next session remembers: nothing left to earn.
        let again = try self.harness(folder: harness.folder)
        XCTAssertTrue(again.errors.contains("Retrolua NES demo: 0 achievements to earn"), again.errors)
        again.close()
    }

    /// The rows holding white pixels on the hud (the tracker is the only white drawn), as a range.
    private func whiteRows(_ canvas: Canvas) -> ClosedRange<Int>? {
        let pixels = canvas.pixels
        var top = Int.max, bottom = -1
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let i = (y * canvas.width + x) * 4
                if pixels[i] == 255, pixels[i + 1] == 255, pixels[i + 2] == 255, pixels[i + 3] == 255 {
                    top = min(top, y)
                    bottom = max(bottom, y)
                    break
                }
            }
        }
        return bottom < 0 ? nil : top...bottom
    }

    /// A leaderboard attempt's tracker grows with the window, as the OSD's text does (it stayed at 1×).
    func testTheLeaderboardTrackerDrawsAtTheOSDScale() throws {
        var heights: [Int] = []
        for scale in [1, 3] {
            let harness = try harness()
            defer { harness.close() }
            harness.host.screen.windowSize = (256 * scale, 224 * scale)
            try harness.load(
                """
                for _ = 1, 10 do joypad.set(1, {}); emu.frameadvance() end
                joypad.set(1, {a = true}); emu.frameadvance()   -- the leaderboard attempt starts
                """)
            harness.run(16)
            for failure in harness.failures { XCTFail(failure.message) }
            XCTAssertTrue(harness.errors.contains("Leaderboard attempt started"), harness.errors)
            let rows = try XCTUnwrap(whiteRows(harness.host.screen.hudCanvas), "the tracker is drawn at \(scale)×")
            heights.append(rows.count)
        }
        // gui.text_scale is 1 in a 256×224 window and 2 in a 768×672 one: digits 7 and 14 pixels tall.
        XCTAssertEqual(heights, [7, 14])
    }

    /// Valid JSON that is not a set, and sets with fields of the wrong types: a message naming the file, no crash.
    func testMalformedSetsAreReportedNotFatal() throws {
        let cases: [(json: String, expected: String)] = [
            ("42", "the top level must be an object (the game's PatchData), not a number"),
            ("[1, 2]", "the top level must be an object (the game's PatchData), not an array"),
            ("\"text\"", "not a string"),
            ("{\"Achievements\": 5}", "'Achievements' must be an array, ignored"),
            ("{\"Achievements\": [1, {\"ID\": \"x\"}]}", "achievement #1 skipped: no integer ID"),
            (
                "{\"Achievements\": [{\"ID\": 7, \"MemAddr\": 5, \"Title\": {}, \"Points\": \"many\"}],"
                    + " \"Leaderboards\": [true, {\"Mem\": []}], \"RichPresencePatch\": \"Display:\\n@Number(0xZ)\"}",
                "leaderboard '#1' skipped"
            ),
            ("{\"PatchData\": 3, \"Title\": [], \"ConsoleID\": \"NES\"}", ": 0 achievements to earn, 0 leaderboards"),
        ]
        for (json, expected) in cases {
            let harness = try harness(set: json)
            harness.run(2)
            for failure in harness.failures { XCTFail("\(json): \(failure.message)") }
            let messages = harness.errors
            XCTAssertTrue(messages.contains(expected), "\(json): missing '\(expected)' in:\n\(messages)")
            if expected.hasPrefix("the top level") || expected.hasPrefix("not a") {
                XCTAssertTrue(messages.contains("/config/achievements/demo.json: "), "names the file: \(messages)")
            }
            harness.close()
        }
    }

    func testHardcoreFromTheSettings() throws {
        let harness = try harness(settings: "return { hardcore = true }")
        try harness.load(
            """
            assert(emu.hardcore())
            local ok, message = savestate.load(1)
            assert(ok == nil and message:find("hardcore"), message)
            print("ok")
            """)
        XCTAssertEqual(harness.lines, ["ok"])
        XCTAssertTrue(harness.errors.contains("(hardcore)"), harness.errors)
        harness.close()
    }

    func testRetroAchievementsAddressesMapOntoTheCore() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            local ra_memory = require("retrolua.ra_memory")
            local peek = assert(ra_memory.peek(7, memory))
            memory.write_u8(0x05, 0x34); memory.write_u8(0x06, 0x12)
            assert(peek(0x05, 1) == 0x34 and peek(0x05, 2) == 0x1234, "RAM")
            assert(peek(0x0805, 1) == 0x34 and peek(0x1805, 2) == 0x1234, "mirrors")
            memory.write_u8(0, 0x99, "save_ram")
            assert(peek(0x6000, 1) == 0x99, "cartridge RAM")
            assert(peek(0x5000, 1) == 0 and peek(0x7FFF, 4) == memory.read_u8(0x1FFF, "save_ram"), "outside: 0")
            local none, why = ra_memory.peek(12, memory)
            assert(none == nil and why:find("console 12"), why)
            -- Snapshot mode reads the copies refresh() takes, mirrors and all.
            local snap, refresh = ra_memory.peek(7, memory, {snapshot = true})
            assert(snap(0x05, 2) == 0x1234 and snap(0x1805, 1) == 0x34 and snap(0x6000, 1) == 0x99, "snapshot")
            memory.write_u8(0x05, 0x77)
            assert(snap(0x05, 1) == 0x34, "the copy until refreshed")
            refresh()
            assert(snap(0x05, 1) == 0x77 and snap(0x0805, 1) == 0x77 and snap(0x07FF, 4) == peek(0x07FF, 4), \
            "refreshed")
            print("ok")
            """)
        XCTAssertEqual(harness.lines, ["ok"])
        for failure in harness.failures { XCTFail(failure.message) }
        harness.close()

        // Game Boy: RetroAchievements addresses are bus addresses (gambatte and mGBA give memory maps).
        for core in ["gambatte", "mgba"] {
            let gb = try ScriptHarness(rom: Fixtures.gbROM, core: core)
            try gb.load(
                """
                for _ = 1, 30 do joypad.set(1, {right = true}); emu.frameadvance() end
                local peek = assert(require("retrolua.ra_memory").peek(4, memory))
                print(peek(0xC003, 1) == memory.read_u8(0xC003, "bus") and peek(0xC003, 1) > 0, peek(0xFEA0, 1))
                """)
            gb.run(40)
            for failure in gb.failures { XCTFail("\(core): \(failure.message)") }
            XCTAssertEqual(gb.lines, ["true\t0"], core)
            gb.close()
        }
    }
}
