import Foundation
import XCTest

/// The edge of the compatibility layers where published scripts stopped (issue 25): how a script file is read
/// (a UTF-8 BOM), where its relative writes go, what ends a run, the names a few layers missed, what `auto`
/// reads, and the errors a script gets when it uses a name that is not there.
final class CompatEdgeTests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/edge/"
    private static let gbaROM = Fixtures.root + "/build/roms/demo.gba"
    private var folder = ""

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        folder = Fixtures.temporaryFolder()
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(
        _ arguments: [String], rom: String = Fixtures.nesROM, timeout: Double = 60
    ) throws
        -> Fixtures.Result
    {
        try Fixtures.cli(["run", rom, "--headless", "--quiet"] + arguments, timeout: timeout)
    }

    func testAHeadlessRunEndsWhenItsLayerRunScriptHasEnded() throws {
        // No frame limit: the run ends because the script is done (it registered nothing). Before, the FCEUX,
        // BizHawk and mGBA layers' own callbacks kept it alive until killed.
        let script = try write("print('main chunk done')\n", "done.lua")
        for (layer, rom) in [
            ("fceux", Fixtures.nesROM), ("bizhawk", Fixtures.nesROM), ("mesen", Fixtures.nesROM),
            ("mgba", Self.gbaROM),
        ] {
            let result = try run(["--compat", layer, "--script", script], rom: rom, timeout: 20)
            XCTAssertEqual(result.status, 0, layer + ": " + result.stderr)
            XCTAssertTrue(result.stdout.contains("main chunk done"), layer + ": " + result.stdout)
        }
        // A script that registered a callback still runs (here until the frame limit), and BizHawk's unfinished
        // console.write line is still written when the run ends.
        let kept = try write(
            "local n = 0\nFCEU.registerafter(function() n = n + 1 end)\n"
                + "emu.registerexit(function() print('frames seen', n) end)\n", "kept.lua")
        let fceux = try run(["--compat", "fceux", "--frames", "12", "--script", kept], timeout: 20)
        XCTAssertEqual(fceux.status, 0, fceux.stderr)
        XCTAssertTrue(fceux.stdout.contains("frames seen\t12"), fceux.stdout + fceux.stderr)
        // mGBA: a text buffer is printed once the script is done, and a callback it removes no longer holds the run.
        let buffers = try write(
            "local buffer = console:createBuffer('status')\nlocal n, id = 0, nil\n"
                + "id = callbacks:add('frame', function()\n  n = n + 1\n  buffer:print('frame ' .. n .. '\\n')\n"
                + "  if n == 3 then callbacks:remove(id) end\nend)\n", "buffers.lua")
        let mgba = try run(["--compat", "mgba", "--script", buffers], rom: Self.gbaROM, timeout: 20)
        XCTAssertEqual(mgba.status, 0, mgba.stderr)
        XCTAssertTrue(mgba.stdout.contains("[status]\nframe 1\nframe 2\nframe 3\n"), mgba.stdout + mgba.stderr)
        let partial = try write("console.write('no newline')\n", "partial.lua")
        let bizhawk = try run(["--compat", "bizhawk", "--script", partial], timeout: 20)
        XCTAssertEqual(bizhawk.status, 0, bizhawk.stderr)
        XCTAssertTrue(bizhawk.stdout.contains("no newline"), bizhawk.stdout + bizhawk.stderr)
    }

    func testSetScreenBufferBeforeTheFrameRanShowsTheBufferItWasGiven() throws {
        // Mesen's example style: mask every pixel of the screen buffer, here at startFrame (before the frame ran,
        // so the buffer is the previous frame's). Mesen draws the buffer it is given over the whole picture, so
        // what shows is the previous frame masked, every pixel of it: dodge.nes moves its sprites every frame, and
        // the new frame's pixels showed through wherever the buffer matched what was read (or the game redrew).
        let dodge = Fixtures.root + "/build/roms/dodge.nes"
        guard FileManager.default.fileExists(atPath: dodge) else { throw XCTSkip("dodge.nes not built") }
        let script = try write(
            "emu.addEventCallback(function()\n  local buffer = emu.getScreenBuffer()\n"
                + "  for i = 1, #buffer do buffer[i] = buffer[i] & 0xFFFF end\n  emu.setScreenBuffer(buffer)\n"
                + "end, emu.eventType.startFrame)\n", "mask.lua")
        let previous = folder + "/previous.png", current = folder + "/current.png", masked = folder + "/masked.png"
        XCTAssertEqual(try run(["--frames", "29", "--screenshot", previous], rom: dodge).status, 0)
        XCTAssertEqual(try run(["--frames", "30", "--screenshot", current], rom: dodge).status, 0)
        let result = try run(
            ["--frames", "30", "--compat", "mesen", "--script", script, "--screenshot", masked], rom: dodge)
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try PNGRead.rgb(previous), now = try PNGRead.rgb(current), shown = try PNGRead.rgb(masked)
        var wrong = 0, moved = 0
        for y in 0..<224 {
            for x in 0..<256 {
                if shown.pixel(x, y) != before.pixel(x, y) & 0xFFFF { wrong += 1 }
                if before.pixel(x, y) != now.pixel(x, y) { moved += 1 }
            }
        }
        XCTAssertGreaterThan(moved, 0, "the game's picture changed between the frames")
        XCTAssertEqual(wrong, 0, "pixels that are not the masked buffer")
    }

    func testScriptsBeginningWithAByteOrderMarkLoadAsLuasOwnLoaderReadsThem() throws {
        // The script, a file it runs with dofile and a module it requires all begin with a UTF-8 BOM.
        let mesen = try run(
            ["--frames", "5", "--strict", "--compat", "mesen", "--script", Self.fixtures + "bom_mesen.lua"])
        XCTAssertEqual(mesen.status, 0, mesen.stderr)
        XCTAssertTrue(mesen.stdout.contains("bom script: helper module ran 3 frames"), mesen.stdout + mesen.stderr)
        // A BOM then a '#!' line: both skipped, and the lines keep their numbers (the error is on line 3).
        let plain = try run(["--frames", "5", "--script", Self.fixtures + "bom_plain.lua"])
        XCTAssertTrue(plain.stdout.contains("plain bom script"), plain.stdout + plain.stderr)
        XCTAssertTrue(plain.stderr.contains("bom_plain.lua:3: line three"), plain.stderr)
    }

    func testRelativeWritesOfALayerRunScriptLandInItsOwnDataFolder() throws {
        // A recorder writing beside itself (refused before: the script's folder is read-only by default) now writes
        // to LuaScriptData/NAME in the data folder, reads it back, renames it; a refused rename is nil, message.
        let home = Fixtures.temporaryFolder()
        let result = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "10", "--strict", "--compat", "fceux",
                "--script", Self.fixtures + "subtitle_recorder.lua",
            ], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("recorder: 5 subtitles, renamed true nil"), result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("outside: nil os.rename: /proc/take.srt: outside"), result.stdout)
        XCTAssertTrue(result.stdout.contains("settings speed 3"), result.stdout)
        let own = home + "/.local/share/retrolua/data/LuaScriptData/subtitle_recorder"
        let take = try String(contentsOfFile: own + "/take-final.srt", encoding: .utf8)
        XCTAssertTrue(take.hasPrefix("1\nframe 0 pad 0\n"), take)
        XCTAssertEqual(try String(contentsOfFile: own + "/logs/take.log", encoding: .utf8), "take done\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.fixtures + "take.srt"))
        // FCEUX's own file functions (a screenshot, a state file saved and loaded back) write there too.
        XCTAssertTrue(result.stdout.contains("screenshot true\nstate loaded true\n"), result.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: own).sorted(),
            ["logs", "settings.lua", "shots", "take-final.srt", "take.state"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: own + "/shots/end.png"))
        // A profile that lets the script write its own folder keeps its files beside it, as FCEUX does.
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/shots", withIntermediateDirectories: true)
        let copy = try write(
            try String(contentsOfFile: Self.fixtures + "subtitle_recorder.lua", encoding: .utf8), "recorder.lua")
        let allowed = try run(["--frames", "10", "--strict", "--allow-files", "--compat", "fceux", "--script", copy])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/take-final.srt"), allowed.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/shots/end.png"))
    }

    func testOlderAndMissingNamesOfBizHawkFCEUXAndMGBA() throws {
        // BizHawk 1.x: console.output, gui.text's 6th argument (its anchor), and the NES zapper in joypad.get().
        let shot = folder + "/gun.png"
        let bizhawk = try run([
            "--frames", "10", "--strict", "--script", Self.fixtures + "mouse_at_40_50.lua", "--script",
            "bizhawk:" + Self.fixtures + "bizhawk1_lightgun.lua", "--screenshot", shot,
        ])
        XCTAssertEqual(bizhawk.status, 0, bizhawk.stderr)
        XCTAssertTrue(bizhawk.stdout.contains("zapper 40,50 shots 9 port2 40"), bizhawk.stdout + bizhawk.stderr)
        XCTAssertFalse(bizhawk.stderr.contains("warning"), bizhawk.stderr)
        let image = try PNGRead.rgb(shot)
        // "GUN" in red over a blue shadow, anchored bottom right (before: red read as an unknown anchor, top left)
        XCTAssertGreaterThan(image.count(x: 230..<256, y: 206..<224, color: 0xFF0000), 20)
        XCTAssertGreaterThan(image.count(x: 230..<256, y: 206..<224, color: 0x0000FF), 10)
        XCTAssertEqual(image.count(x: 0..<30, y: 0..<12, color: 0xFF0000), 0)
        XCTAssertGreaterThan(image.count(x: 36..<45, y: 49..<52, color: 0xFFFF00), 4, "the crosshair at the mouse")
        // FCEUX's zapper.read is the mouse (NES pixels, FCEUX's 240-line y); mGBA's text metrics are methods.
        let zapper = try write(
            "emu.frameadvance()\nlocal z = zapper.read()\nprint('zapper', z.x, z.y, z.fire)\n", "zapper.lua")
        let fceux = try run([
            "--frames", "3", "--strict", "--script", Self.fixtures + "mouse_at_40_50.lua", "--script",
            "fceux:" + zapper,
        ])
        XCTAssertEqual(fceux.status, 0, fceux.stderr)
        XCTAssertTrue(fceux.stdout.contains("zapper\t40\t58\t1"), fceux.stdout + fceux.stderr)
        let metrics = try write(
            "local painter = image.newPainter(image.new(64, 32))\nlocal m = painter:textRunMetrics('hello')\n"
                + "console:log(string.format('metrics %d %d %d %d', m:width(), m:height(), m:ascender(), "
                + "m:descender()))\n", "metrics.lua")
        let mgba = try run(["--frames", "2", "--strict", "--compat", "mgba", "--script", metrics], rom: Self.gbaROM)
        XCTAssertEqual(mgba.status, 0, mgba.stderr)
        XCTAssertTrue(mgba.stdout.contains("metrics 30 8 7 1"), mgba.stdout + mgba.stderr)
    }

    func testMesen1ScriptsAreRecognisedByTheirCodeNotTheirComments() throws {
        // memType.cpuDebug is Mesen 1's (Mesen2's types carry a system prefix); the comment naming Mesen2's
        // nesMemory does not count. Mesen 1's buffer is numbered from 0: the block lands at (200, 100).
        let shot = folder + "/mesen1.png"
        let result = try run([
            "--frames", "5", "--strict", "--compat", "mesen", "--script", Self.fixtures + "mesen1_screen.lua",
            "--screenshot", shot,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("mesen1: first=true past_end=true ram="), result.stdout + result.stderr)
        let image = try PNGRead.rgb(shot)
        XCTAssertEqual(image.pixel(200, 100 - 8), 0xFF00FF)
        XCTAssertEqual(image.pixel(207, 107 - 8), 0xFF00FF)
        XCTAssertNotEqual(image.pixel(199, 100 - 8), 0xFF00FF)
    }

    func testAutoReadsCodeNotCommentsKnowsMoreNamesAndLooksIntoLoadedFiles() throws {
        try FileManager.default.createDirectory(atPath: folder + "/lib", withIntermediateDirectories: true)
        let cases: [(files: [(String, String)], rom: String, says: String)] = [
            // names in comments only: before, the comment's FCEU. and mainmemory. won over the code's emu: calls
            (
                [
                    (
                        "commented.lua",
                        "-- not FCEU.frameadvance, not mainmemory.read_u8\n--[[ memory.readbyte ]]\n"
                            + "local hp = emu:read16(0x0300)\ncallbacks:oneshot('frame', function() end)\n"
                    )
                ], Self.gbaROM, "with the mgba layer (it uses emu:read16)"
            ),
            // BizHawk's gui.draw* names beyond the listed ones
            (
                [("drawing.lua", "gui.drawEllipse(1, 1, 4, 4)\ngui.drawPolygon({{1, 1}, {2, 2}})\n")],
                Fixtures.nesROM, "with the bizhawk layer (it uses gui.drawEllipse)"
            ),
            // the names are in the files the script loads, not in the script
            (
                [
                    ("loader.lua", "local hud = require('lib.hud')\ndofile('draw_part.lua')\n"),
                    ("lib/hud.lua", "return { hp = mainmemory.read_u8(0x10) }\n"),
                    ("draw_part.lua", "event.onframeend(function() end)\n"),
                ], Fixtures.nesROM, "with the bizhawk layer (it uses mainmemory., event.onframeend)"
            ),
        ]
        for item in cases {
            for (name, text) in item.files { _ = try write(text, name) }
            let result = try run(
                ["--frames", "3", "--script", "auto:" + folder + "/" + item.files[0].0], rom: item.rom)
            XCTAssertTrue(result.stderr.contains(item.says), item.says + " in: " + result.stderr)
        }
    }

    func testANilNameSaysWhichLayerWouldRunItOrWhichNameWasMeant() throws {
        // Lua's own text was "attempt to call a nil value (field 'read_u9')" for each of these.
        let cases: [(script: String, says: String)] = [
            (
                "if memory.foo == nil and not memory.bar then print('presence tests still work') end\n"
                    + "local v = memory.read_u9(0)\n", ":2: memory.read_u9 does not exist; did you mean memory.read_u8?"
            ),
            (
                "event.on('frame_end', function() gui.rectt(1, 1, 2, 2) end)\n",
                ":1: gui.rectt does not exist; did you mean gui.rect?"
            ),
            ("local m = memory\nm.read_u9(0)\n", ":2: m.read_u9 does not exist; did you mean memory.read_u8?"),
            ("prnit('x')\n", ":1: prnit does not exist; did you mean print?"),
            (
                "local hp = memory.readbyte(0x10)\n",
                ":1: memory.readbyte is FCEUX's name, not Retrolua's: run the script with --compat fceux (or --compat auto)"
            ),
            (
                "local v = mainmemory.read_u8(0)\n",
                ":1: mainmemory is BizHawk's name, not Retrolua's: run the script with --compat bizhawk"
            ),
            (
                "local v = emu:read8(0)\n",
                ":1: emu:read8 is mGBA's name, not Retrolua's: run the script with --compat mgba"
            ),
            (
                "local t = emu.memType.cpu\n",
                ":1: emu.memType is Mesen's name, not Retrolua's: run the script with --compat mesen"
            ),
        ]
        for (index, item) in cases.enumerated() {
            let script = try write(item.script, "nil\(index).lua")
            let result = try run(["--frames", "3", "--script", script])
            XCTAssertTrue(result.stderr.contains("nil\(index).lua" + item.says), item.says + " in: " + result.stderr)
            XCTAssertFalse(result.stderr.contains("attempt to call a nil value"), result.stderr)
        }
        let presence = try run(["--frames", "3", "--script", folder + "/nil0.lua"])
        XCTAssertTrue(presence.stdout.contains("presence tests still work"), presence.stdout)
    }
}
