import Foundation
import Support
import XCTest

/// The FCEUX layer (lua/compat/fceux.lua): scripts written here in FCEUX's style
/// (Tests/Fixtures/compat/fceux) run unmodified for 300 frames on our ROMs; they check what they read,
/// wrote and pressed themselves, and the screenshot shows what they drew, at FCEUX's coordinates
/// (nestopia crops 8 lines of overscan: FCEUX's y 8 is the picture's row 0).
final class CompatFCEUXTests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/fceux/"
    private static let dodge = Fixtures.root + "/build/roms/dodge.nes"

    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func run(
        _ script: String, rom: String = Fixtures.nesROM, shot: String? = nil, extra: [String] = []
    )
        throws -> Fixtures.Result
    {
        var arguments = ["run", rom, "--headless", "--frames", "300", "--strict", "--quiet", "--compat", "fceux"]
        arguments += ["--script", script] + extra
        if let shot { arguments += ["--screenshot", shot] }
        return try Fixtures.cli(arguments)
    }

    func testRAMWatchBotReadsWritesPressesAndDraws() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run(Self.fixtures + "ram_watch_bot.lua", shot: shot)
        result.assertChecksPassed("fceux ram watch: 58 checks, 0 failed")
        let image = try PNGRead.rgb(shot)
        // gui.box(10, 30, 40, 50, 0x00FF00FF, "blue"): 0xRRGGBBAA fill, named outline, corners inclusive.
        XCTAssertEqual(image.pixel(20, 40 - 8), 0x00FF00)
        XCTAssertEqual(image.pixel(10, 30 - 8), 0x0000FF)
        XCTAssertEqual(image.pixel(40, 50 - 8), 0x0000FF)
        // gui.text(60, 30, "HP 100", "red") on FCEUX's default background.
        XCTAssertGreaterThan(image.count(x: 60..<100, y: 22..<30, color: 0xFF0000), 15)
        XCTAssertGreaterThan(image.count(x: 58..<100, y: 21..<31, color: 0x1B1269), 40)
        // A number where text is expected is drawn as text, white by default.
        XCTAssertGreaterThan(image.count(x: 60..<92, y: 34..<42, color: 0xFFFFFF), 15)
        XCTAssertEqual(image.pixel(25, 60 - 8), 0xFFFF00, "gui.line in \"#FFFF00\"")
        XCTAssertEqual(image.pixel(5, 70 - 8), 0xFF00FF, "gui.pixel with an {r, g, b} table")
        // Fractional corners are truncated: (100, 30)-(120, 50), a white outline around a clear inside.
        XCTAssertEqual(image.pixel(100, 30 - 8), 0xFFFFFF)
        XCTAssertEqual(image.pixel(120, 50 - 8), 0xFFFFFF)
        XCTAssertNotEqual(image.pixel(110, 40 - 8), 0xFFFFFF)
        // gui.register's box: "P16" (the 2C02 palette's red) inside a white outline.
        XCTAssertEqual(image.pixel(210, 207 - 8), 0xF83800)
        XCTAssertEqual(image.pixel(200, 200 - 8), 0xFFFFFF)
    }

    func testHitboxViewerOnDodgeLoopsUntilTheRunEndsAndReportsFromItsExitCallback() throws {
        guard FileManager.default.fileExists(atPath: Self.dodge) else { throw XCTSkip("dodge.nes not built") }
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run(Self.fixtures + "dodge_hitboxes.lua", rom: Self.dodge, shot: shot)
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = result.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix("dodge bot:") } ?? ""
        XCTAssertTrue(line.hasPrefix("dodge bot: 292 frames, 0 mismatches, 292 moves checked"), result.stdout)
        XCTAssertFalse(line.contains(" 0 boxes"), line)
        XCTAssertTrue(result.stderr.contains("module(): approximated"), "approximations warn once: " + result.stderr)
        let image = try PNGRead.rgb(shot)
        XCTAssertGreaterThan(image.count(x: 0..<256, y: 0..<224, color: 0x00FF00), 30, "the player's green box")
        XCTAssertGreaterThan(image.count(x: 0..<256, y: 0..<224, color: 0xFF0000), 60, "hazards' red boxes")
        XCTAssertGreaterThan(image.count(x: 8..<110, y: 4..<12, color: 0xFFFFFF), 30, "the score line")
    }

    /// The benchmark's hitbox viewer (scripts/bench-support) written for FCEUX and written for our API draws
    /// the same picture: FCEUX's colours, corners, text defaults and overscan offset translate exactly.
    func testTheSameOverlayThroughTheLayerAndThroughOurAPIIsPixelIdentical() throws {
        guard FileManager.default.fileExists(atPath: Self.dodge) else { throw XCTSkip("dodge.nes not built") }
        let support = Fixtures.root + "/scripts/bench-support/"
        let folder = Fixtures.temporaryFolder()
        let theirs = try Fixtures.cli([
            "run", Self.dodge, "--headless", "--frames", "120", "--quiet", "--compat", "fceux", "--script",
            support + "fceux_hitbox.lua", "--screenshot", folder + "/fceux.png",
        ])
        XCTAssertEqual(theirs.status, 0, theirs.stderr)
        let ours = try Fixtures.cli([
            "run", Self.dodge, "--headless", "--frames", "120", "--quiet", "--script", support + "native_hitbox.lua",
            "--screenshot", folder + "/ours.png",
        ])
        XCTAssertEqual(ours.status, 0, ours.stderr)
        let a = try PNGRead.rgb(folder + "/fceux.png"), b = try PNGRead.rgb(folder + "/ours.png")
        XCTAssertEqual(a.rgba.count, b.rgba.count)
        XCTAssertTrue(a.rgba == b.rgba, "the two overlays differ")
        XCTAssertGreaterThan(a.count(x: 0..<256, y: 0..<224, color: 0xFF0000), 100, "the red boxes are there")
    }

    /// Bad input to the layer: each call fails with a message naming the function (and argument), or
    /// says why libretro cannot do it; none crashes the run or is silently ignored.
    func testBadInputAndWhatLibretroCannotDoFailClearly() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local cases = {
          function() return memory.readbyte("x") end,
          function() return memory.readbyte(nil) end,
          function() return memory.writebyte(0, {}) end,
          function() return memory.readword({}) end,
          function() return gui.pixel(1, 2, "nocolour") end,
          function() return gui.text(nil, 2, "s") end,
          function() return joypad.set(9, {A = true}) end,
          function() return joypad.set(1, "A") end,
          function() return savestate.load({}) end,
          function() return savestate.create(11) end,
          function() return memory.registerexec(0x8000, function() end) end,
          function() return memory.registerwrite(0, 1, 5) end,
          function() return memory.getregister("a") end,
          function() return zapper.set({x = 1}) end,
          function() return taseditor.setplayback(-1) end,
          function() return rom.readbyte(0) end,
          function() return emu.speedmode("warp") end,
          function() return setfenv(1, {}) end,
          function() return movie.length() end,
          function() return emu.getscreenpixel(300, 0) end,
          function() return require("iuplua") end,
          function() return rom.gethash(5) end,
        }
        for i, case in ipairs(cases) do
          local ok, message = pcall(case)
          print(i, ok, message)
        end
        print("taseditor.engaged", taseditor.engaged())
        print("unknown name in gui.box", pcall(gui.box, 1, 2, 3, 4, "nocolour"))
        print("gui.text on a float", pcall(gui.text, 1.5, 2.5, 3.0))
        -- auxlib (FCEUX's iup loader) loads, as scripts require it whether or not they open a dialog
        print("auxlib", (pcall(require, "auxlib")), dialogs, type(handles))
        print("iup", pcall(function() return iup.dialog{} end))
        emu.exit(0)
        """.write(toFile: folder + "/bad.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/bad.lua")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let expected = [
            "memory.readbyte: bad argument #1 'address' (number expected, got string)",
            "memory.readbyte: bad argument #1 'address' (number expected, got nil)",
            "memory.writebyte: bad argument #2 'value' (number expected, got table)",
            "memory.readword: bad argument #1 'address' (number expected, got table)",
            "gui.pixel: unknown colour nocolour",
            "gui.text: bad argument #1 'x' (number expected, got nil)",
            "joypad.set: invalid port 9 (valid range 1-4)",
            "joypad.set: bad argument #2 'buttons' (table expected, got string)",
            "savestate.load: bad argument #1 (savestate object",
            "savestate.create: invalid player's savestate 11",
            "memory.registerexec: not available in Retrolua (libretro cores report no executed addresses",
            "memory.registerwrite: bad argument #3 'func' (function or nil expected, got number)",
            "memory.getregister: not available in Retrolua (CPU registers",
            "zapper.set: not available in Retrolua",
            "taseditor.setplayback: bad argument #1 'frame' (must be 0 or more)",
            "rom.readbyte: cannot read the ROM file",
            "emu.speedmode: invalid mode warp",
            "setfenv: not available in Lua 5.4",
            "movie.length: No movie loaded.",
            "emu.getscreenpixel: bad coordinates",
            "require(\"iuplua\"): FCEUX's Windows module iuplua is not available in Retrolua",
            "rom.gethash: bad argument #1 'type' (string expected, got number)",
        ]
        XCTAssertEqual(lines.count, expected.count + 5, result.stdout + result.stderr)
        XCTAssertTrue(lines.contains("auxlib\ttrue\t0\ttable"), result.stdout)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("iup\tfalse\t") && $0.contains("iup.dialog: not available in Retrolua") },
            result.stdout)
        for (index, message) in expected.enumerated() {
            let line = lines.first { $0.hasPrefix("\(index + 1)\tfalse\t") } ?? "case \(index + 1) missing"
            XCTAssertTrue(line.contains(message), "\(line) should contain \(message)")
        }
        XCTAssertTrue(lines.contains("taseditor.engaged\tfalse"), result.stdout)
        // As in FCEUX, an unknown colour name in an optional colour draws the default, with a warning here.
        XCTAssertTrue(lines.contains("unknown name in gui.box\ttrue"), result.stdout)
        XCTAssertTrue(result.stderr.contains("gui.box: unknown colour \"nocolour\""), result.stderr)
        XCTAssertTrue(lines.contains("gui.text on a float\ttrue\t7"), result.stdout)
    }

    /// FCEUX's movie functions over ours: an .fm2 recorded, played back read-only to its end, with FCEUX's
    /// mode strings; a relative path is the script's folder.
    func testMovieRecordPlaybackAndModeStrings() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        print("record", movie.record("take.fm2", 0, "tester"))
        for i = 1, 6 do
          joypad.set(1, {right = true, A = (i == 6)})
          emu.frameadvance()
        end
        print("recording", movie.mode(), movie.active(), movie.recording(), movie.length(), movie.filename(),
          movie.ispoweron(), movie.isfromsavestate())
        movie.stop()
        print("stopped", movie.mode(), movie.active())
        print("play", movie.play("take.fm2", true))
        for i = 1, 3 do emu.frameadvance() end
        print("playing", movie.mode(), movie.playing(), movie.framecount(), movie.readonly())
        for i = 1, 5 do emu.frameadvance() end
        print("end", movie.mode(), memory.readbyte(0x0005))
        movie.close()
        emu.exit(0)
        """.write(toFile: folder + "/tas.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/tas.lua", extra: ["--allow-files"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in [
            "record\ttrue", "recording\trecord\ttrue\ttrue\t6\ttake.fm2\ttrue\tfalse", "stopped\tnil\tfalse",
            "play\ttrue", "playing\tplayback\ttrue\t3\ttrue", "end\tfinished\t1",
        ] {
            XCTAssertTrue(result.stdout.contains(line), "\(line) in " + result.stdout + result.stderr)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/take.fm2"))
    }

    /// The support table the README's section is generated from: every FCEUX function has a status, and the
    /// ones that read the ROM work when the script may read it.
    func testEverySupportEntryHasAStatusAndTheROMReadsWithAllowFiles() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local compat = require("compat.common")
        local counts, bad = {}, 0
        for _, entry in ipairs(compat.support.fceux) do
          counts[entry.status] = (counts[entry.status] or 0) + 1
          if not (entry.status == "supported" or entry.status == "approximated" or entry.status == "unsupported") then
            bad = bad + 1
          end
        end
        print("statuses", counts.supported, counts.approximated, counts.unsupported, bad)
        print("rom", rom.readbyte(0), rom.readbyte(1), memory.readbyte(0xFFFD))
        print("md5", rom.gethash("md5"))
        emu.exit(0)
        """.write(toFile: folder + "/support.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/support.lua", extra: ["--allow-files"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let statuses = result.stdout.split(separator: "\n").first { $0.hasPrefix("statuses") } ?? ""
        let fields = statuses.split(separator: "\t").dropFirst().compactMap { Int($0) }
        XCTAssertEqual(fields.count, 4, result.stdout)
        XCTAssertGreaterThan(fields.first ?? 0, 100, "supported functions")
        XCTAssertEqual(fields.last, 0, "entries with an unknown status")
        // "N" (0x4E) "E" (0x45) of the iNES header; $FFFD: the reset vector's high byte, from PRG ROM.
        XCTAssertTrue(result.stdout.contains("rom\t78\t69\t"), result.stdout)
        // FCEUX's game hash: the MD5 of the ROM without its 16-byte header.
        let rom = try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)).dropFirst(16)
        XCTAssertTrue(result.stdout.contains("md5\t" + Hashing.md5(Data(rom))), result.stdout)
    }
}
