import Foundation
import Media
import XCTest

/// The BizHawk layer (lua/compat/bizhawk.lua): scripts written here in BizHawk's style
/// (Tests/Fixtures/compat/bizhawk) run unmodified with `--script bizhawk:FILE` for 300 frames; a checker
/// in our own API reads what they drew from the composited picture. Facts come back as `KIND NAME=VALUE`
/// lines on stdout.
final class CompatBizHawkTests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/bizhawk/"

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
    }

    /// Runs `script` through the layer (then `checker`, ours) and returns the `kind name=value` facts.
    private func run(
        _ rom: String, core: String, script: String, checker: String? = nil
    ) throws -> (facts: [String: String], stderr: String) {
        var arguments = [
            "run", rom, "--core", core, "--headless", "--frames", "300", "--quiet", "--strict",
            "--script", "bizhawk:" + Self.fixtures + script,
        ]
        if let checker { arguments += ["--script", Self.fixtures + checker] }
        let result = try Fixtures.cli(arguments, environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var facts: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let space = line.firstIndex(of: " "), let equals = line.firstIndex(of: "=") else { continue }
            let kind = line[..<space], name = line[line.index(after: space)..<equals]
            facts["\(kind) \(name)"] = String(line[line.index(after: equals)...])
        }
        return (facts, result.stderr)
    }

    private func expect(
        _ facts: [String: String], _ expected: [String: String], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(facts[key], value, key, file: file, line: line)
        }
    }

    func testANESHudReadsWritesPressesAndDrawsAsInBizHawk() throws {
        let (facts, stderr) = try run(
            Fixtures.nesROM, core: "nestopia", script: "hud_nes.lua", checker: "check_nes.lua")
        expect(
            facts.filter { $0.key.hasPrefix("result ") },
            [
                "result guid": "true", "result unregister_id": "true", "result unregister_again": "false",
                "result system": "NES", "result main": "RAM", "result domain0": "RAM", "result current": "RAM",
                "result ram_size": "2048", "result display": "NTSC", "result romname": "demo", "result hashlen": "40",
                "result movie": "INACTIVE", "result movie_loaded": "false", "result buffer": "256x224",
                "result bits": "61440,8,2147483648", "result hex": "BEEF,007",
                // memorysavestate and userdata: the state brings back the position and the userdata of its time
                "result moved_left": "true", "result restored_x": "true", "result userdata_after_load": "saved",
                "result written_x": "50", "result written_y_bus": "60", "result float": "1.5",
                // joypad.set({B = true}, 1) held the button; joypad.get names it both ways
                "result b_flag": "1", "result b_pad": "true", "result b_all": "true",
                "result saveslot": "true", "result loadslot": "true", "result range": "true", "result rewound": "true",
                "result callbacks": "290,290,290", "result loads": "2", "result lag": "0,false",
                "result keys": "table,number", "result unregister_name": "true", "result version": "2.9.1",
            ])
        // A pressed every 4 frames for 100 frames: 25 presses (the first is at frame 1), each seen by the
        // approximated onmemorywrite once, with the new value.
        let presses = Int(facts["result presses"] ?? "") ?? -1
        XCTAssertTrue((23...26).contains(presses), "presses: \(presses)")
        XCTAssertEqual(facts["result presses_seen"], String(presses))
        XCTAssertEqual(facts["result last_press"], String(presses))
        // Pixels after compositing: drawBox includes both corners, drawRectangle is width + 1 wide as in .NET.
        expect(
            facts,
            [
                "pixel box_fill": "0000FF", "pixel box_left": "FF0000", "pixel box_corner": "FF0000",
                "pixel rect_fill": "00FF00", "pixel rect_far_edge": "00FF00", "pixel line": "00FFFF",
                "pixel pixel": "FF00FF", "pixel ellipse_fill": "FFA500", "pixel polygon_fill": "00FF00",
            ])
        XCTAssertNotEqual(facts["pixel box_outside"], "FF0000")
        XCTAssertNotEqual(facts["pixel rect_outside"], "00FF00")
        for region in ["count text_yellow", "count pixeltext_black", "count drawtext_orange"] {
            XCTAssertGreaterThan(Int(facts[region] ?? "") ?? 0, 10, region)
        }
        // Approximations say so once; the OSD message reaches stderr headless.
        XCTAssertTrue(stderr.contains("event.onmemorywrite: approximated"), stderr)
        XCTAssertTrue(stderr.contains("BizHawk-style HUD loaded"), stderr)
    }

    func testAGameBoyTrackerUsesHandheldNamesDomainsAndAnchoredText() throws {
        let (facts, _) = try run(Fixtures.gbROM, core: "gambatte", script: "hud_gb.lua", checker: "check_gb.lua")
        expect(
            facts,
            [
                "result system": "GB", "result main": "WRAM", "result main_size": "8192",
                "result bus_default": "System Bus", "result use_vram": "true", "result use_bogus": "false",
                "result rom_header": "true", "result b_flag": "1", "result pad_b": "true", "result pad_byte": "100000",
                "result u16": "EFBE", "result array": "1,2,3", "result bus_u8": "1", "result s8": "-17",
                "result hash_len": "40", "result history_unregistered": "true", "result history_len": "101",
                "result frames_ram": "true", "result split": "a+b+c", "result trim": "[gb]",
                // 60 frames of Right from x 80, 30 of Down from y 72; A on every other frame
                "result x": "138", "result y": "102", "result presses": "29",
                "pixel rect_fill": "FF00FF", "pixel rect_edge": "000000", "pixel box_edge": "00FFFF",
                "pixel line": "1E90FF",
                // "GB" (12×8 pixels) anchored bottom-right, 2 pixels in from the corner of the 160×144 picture
                "corner text": "146,134",
            ])
        XCTAssertNotEqual(facts["pixel box_inside"], "00FFFF")
        XCTAssertGreaterThan(Int(facts["count text_red"] ?? "") ?? 0, 10)
    }

    func testAGBAKeyDisplayReadsIWRAMCombinedWRAMAndTheBus() throws {
        let (facts, _) = try run(Fixtures.root + "/build/roms/demo.gba", core: "mgba", script: "hud_gba.lua")
        expect(
            facts,
            [
                "result system": "GBA", "result main": "IWRAM", "result banner": "RETROLUA-SYSTEMS",
                "result banner_combined": "RETROLUA-SYSTEMS",
                // A, then L and R: bits 0, 8 and 9 of the ROM's key word
                "result keys": "1100000001", "result keys_combined": "true", "result keys_bus": "true",
                "result frames": "true", "result pad": "true,true",
            ])
    }

    func testGenesis68KRAMIsInThe68KsByteOrder() throws {
        let (facts, _) = try run(
            SystemMatrix.roms + "airstriker.md", core: SystemMatrix.wheel + "genesis_plus_gx_libretro.so",
            script: "ram_gen.lua")
        expect(
            facts,
            [
                "result system": "GEN", "result main": "68K RAM", "result u8": "18,52", "result u16_be": "1234",
                "result u32_be": "A1B2C3D4", "result s8": "-95", "result range": "A1D4",
                // the core's own buffer holds each 16-bit word in the host's (little-endian) order
                "result raw": "34 12 00 00 B2 A1 D4 C3",
            ])
    }

    /// What connectors read besides sockets: a version they accept (2.7 to 2.9; another with the layer's option),
    /// PreferredCores, an execute hook on the vblank vector ticking once a frame, NES "PRG ROM" and SNES "CARTROM",
    /// and a failed usememorydomain that says where reads stay.
    func testConnectorsGetTheirVersionCoresTickAndROMDomains() throws {
        let script = "bizhawk:" + Self.fixtures + "connector_needs.lua"
        let cases: [(rom: String, core: String, expected: [String: String])] = [
            (
                Fixtures.nesROM, "nestopia",
                [
                    "system": "NES", "cores": "NesHawk,Snes9x,Gambatte,Gambatte,TurboNyma", "prg_size": "16384",
                    "prg_same": "true",
                ]
            ),
            (
                Fixtures.root + "/build/roms/demo.sfc", SystemMatrix.wheel + "snes9x_libretro.so",
                [
                    "system": "SNES", "cores": "QuickNes,Snes9x,Gambatte,Gambatte,TurboNyma", "cartrom_size": "32768",
                    "cartrom_title": "RETROLUA SYSTEMS", "cartrom_reset": "true",
                ]
            ),
            (Fixtures.gbROM, "gambatte", ["system": "GB", "cores": "QuickNes,Snes9x,Gambatte,Gambatte,TurboNyma"]),
        ]
        for (rom, core, expected) in cases {
            let result = try Fixtures.cli(
                [
                    "run", rom, "--core", core, "--headless", "--frames", "20", "--quiet", "--strict", "--script",
                    script,
                ],
                environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
            XCTAssertEqual(result.status, 0, result.stderr)
            var common = [
                "version": "2.9.1", "gate": "true", "tick_guid": "true", "use_missing": "false",
                "after_missing": "System Bus", "ticks": "10", "unregistered": "true", "ticks_after": "10",
            ]
            common.merge(expected) { $1 }
            for (name, value) in common.sorted(by: { $0.key < $1.key }) {
                XCTAssertTrue(result.stdout.contains("result \(name)=\(value)\n"), "\(core) \(name): \(result.stdout)")
            }
            for warning in [
                "client.getversion: reports BizHawk 2.9.1", "event.onmemoryexecute: approximated: runs once a frame",
                "memory.* keeps reading and writing 'System Bus' (available: ",
            ] {
                XCTAssertTrue(result.stderr.contains(warning), "\(core): \(result.stderr)")
            }
        }
        // content large enough to bank its ROM (here 16 KiB of PRG and 32 KiB of CHR) is told what "PRG ROM" shows
        var rom = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)))
        rom[5] = 4
        rom += [UInt8](repeating: 0, count: 0x6000)
        let cnrom = Fixtures.temporaryFolder() + "/large.nes", reader = Fixtures.temporaryFolder() + "/prg.lua"
        try Data(rom).write(to: URL(fileURLWithPath: cnrom))
        try
            "print('prg', memory.getmemorydomainsize('PRG ROM'), memory.read_u8(0, 'PRG ROM') == memory.read_u8(0x8000))"
            .write(toFile: reader, atomically: true, encoding: .utf8)
        let banked = try Fixtures.cli(
            [
                "run", cnrom, "--core", "nestopia", "--headless", "--frames", "2", "--quiet", "--script",
                "bizhawk:" + reader,
            ],
            environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertEqual(banked.status, 0, banked.stderr)
        XCTAssertTrue(banked.stdout.contains("prg\t16384\ttrue\n"), banked.stdout + banked.stderr)
        XCTAssertTrue(
            banked.stderr.contains(
                "memory.getmemorydomainsize: 'PRG ROM' is the CPU's window 0x8000-0xFFFF: on this cartridge, whose ROM "
                    + "may be banked, the banks mapped now"), banked.stderr)
        // the version is the layer's option; an unknown option stops the script with the list of options
        let older = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", "20", "--quiet", "--strict",
                "--compat", "bizhawk:version=2.7.0", "--script", Self.fixtures + "connector_needs.lua",
            ],
            environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertEqual(older.status, 0, older.stderr)
        XCTAssertTrue(older.stdout.contains("result version=2.7.0\nresult gate=true\n"), older.stdout)
        let bare = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", "20", "--quiet", "--strict",
                "--compat", "bizhawk:2.8", "--script", Self.fixtures + "connector_needs.lua",
            ],
            environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertTrue(bare.stdout.contains("result version=2.8\nresult gate=true\n"), bare.stdout + bare.stderr)
        let wrong = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", "2", "--quiet", "--strict",
                "--compat", "bizhawk:verison=2.7", "--script", "bizhawk:" + Self.fixtures + "connector_needs.lua",
            ],
            environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(
            wrong.stderr.contains("--compat bizhawk: unknown option 'verison=2.7' (options: version="), wrong.stderr)
    }

    /// comm.socketServer* with a Python server on loopback (Tests/python/test_compat_sockets.py): "LENGTH message"
    /// both ways, a reply in pieces, a timeout, screenshots as PNG, raw bytes; no server and no permission warn; a
    /// hostile server (garbage, a 100 GB length, a close mid-reply, a dripped reply) breaks nothing.
    func testCommSocketServerTalksToAPythonServer() throws {
        try Fixtures.assertPytestPasses(
            "test_compat_sockets.py", selecting: "bizhawk", summary: "3 passed", timeout: 300)
    }

    func testASettingsFormKeepsItsValuesAndOldScriptsNumbersWork() throws {
        // forms has no window here: the controls keep their values, so a bot reads its defaults and runs
        let (facts, stderr) = try run(Fixtures.nesROM, core: "nestopia", script: "settings_form.lua")
        expect(
            facts,
            [
                "result every": "30", "result name": "run 1", "result turbo": "true", "result turbo_property": "True",
                // dropdown items are sorted, the first selected
                "result button": "A", "result unknown_handle": "true", "result openfile": "true",
                "result plugged": "true,true,false,false",
                "result clock": "01:02", "result unpack": "3", "result getn": "2", "result pow": "1024.0",
                "result presses": "4", "result held_A": "true",
                "result speed_percent": "200", "result unknown_setting": "true",
                "result savestates": "1,true", "result rewind": "true,512", "result movies": "Finish,table,table",
                "result luacore": "Lua 5.4", "result short_hex": "true",
                "result blank_b": "false", "result invert_select": "true", "result false_start": "false",
                // destroying the form ran its onclose once; destroyall had nothing left
                "result closed": "1", "result after_destroy": "true",
            ])
        XCTAssertNil(facts["result clicked"], "no button is ever clicked")
        XCTAssertTrue(stderr.contains("forms: approximated in Retrolua (no window is shown"), stderr)
        XCTAssertTrue(stderr.contains("'invert' inverts the player's input in BizHawk; here it presses"), stderr)
    }

    func testMistakesAndMissingFeaturesGetClearErrors() throws {
        let (facts, stderr) = try run(Fixtures.nesROM, core: "nestopia", script: "bad_input.lua")
        let expected: [String: String] = [
            "address_string": "mainmemory.read_u8: bad argument #1 'address' (number expected, got string)",
            "address_nan": "mainmemory.write_u8: bad argument #1 'address' (finite number expected",
            "domain_missing": "memory domain 'CHR' is not available: the core (nestopia) does not expose it",
            "domain_unknown": "unknown memory domain 'Bogus' (available: RAM, System Bus",
            "domain_number": "bad argument #2 'domain' (string expected, got number)",
            "colour_name": "unknown colour 'notacolour'",
            "colour_table": "gui.drawBox: bad argument #5 'color' (number or string expected, got table)",
            "missing_x": "gui.drawBox: bad argument #1 'x' (number expected, got nil)",
            "surface": "unknown surface 'window'",
            "polygon": "gui.drawPolygon: bad argument #1 'points' (table expected, got string)",
            "forms_other": "forms.somethingElse: not available",
            "tastudio": "tastudio.setplayback: bad argument #1 'frame' (must be 0 or more)",
            "tastudio_ui":
                "tastudio.addcolumn: not available in Retrolua (the editor's columns are the movie's buttons)",
            "memory_read_hook": "event.onmemoryread: not available", "exec_hook": "no executed addresses",
            "write_hook_any": "give an address", "registers": "CPU registers", "comm": "control socket",
            "corestate": "no state 'nope'", "joypad_buttons": "joypad.set: bad argument #1 'buttons'",
            "callback": "event.onframeend: bad argument #1 'luaf' (function expected, got number)",
            "userdata_value": "userdata.set: bad argument #2 'value'", "hex": "bizstring.hex: bad argument #1",
            "range_length": "bad argument #2 'length' (1000000000000 is more than all of 'RAM', 0x800 bytes)",
            "tool": "client.openrom: not available", "out_of_range": "0",
        ]
        for (name, fragment) in expected.sorted(by: { $0.key < $1.key }) {
            let message = facts["error \(name)"] ?? "(missing)"
            XCTAssertTrue(message.contains(fragment), "\(name): \(message)")
            // errors name the script's line, not the layer's
            XCTAssertFalse(message.contains("bizhawk.lua"), "\(name): \(message)")
        }
        XCTAssertTrue(stderr.contains("outside 'RAM' (size 0x800): reads give 0"), stderr)
    }

    func testEveryFunctionIsRecordedAndBizHawksNamesAreCovered() throws {
        // The layer's own table (README's support table comes from it): every name BizHawk 2.11 lists is in it.
        let script = Fixtures.temporaryFolder() + "/table.lua"
        try """
        local compat = require("compat.common")
        local counts, names = {}, {}
        for _, entry in ipairs(compat.support.bizhawk) do
          counts[entry.status] = (counts[entry.status] or 0) + 1
          names[entry.name] = true
        end
        for status, n in pairs(counts) do print("count " .. status .. "=" .. n) end
        for name in pairs(names) do print("name " .. name .. "=1") end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "2", "--quiet", "--script", "bizhawk:" + script],
            environment: ["RETROLUA_LUA_DIR": Fixtures.root + "/lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try String(
            contentsOfFile: Fixtures.root + "/Tests/Fixtures/compat/bizhawk/peer_names.txt",
            encoding: .utf8)
        var missing: [String] = []
        for line in list.split(separator: "\n") where !line.hasPrefix("#") {
            // a module none of whose functions exist here has one row, "MODULE.*"
            for name in line.split(separator: " ") where !result.stdout.contains("name \(name)=1\n") {
                let module = name.split(separator: ".").first ?? ""
                if !result.stdout.contains("name \(module).*=1\n") { missing.append(String(name)) }
            }
        }
        XCTAssertEqual(missing, [], "BizHawk functions the layer does not record")
        XCTAssertTrue(result.stdout.contains("count supported="), result.stdout)
    }

    /// client.SetGameExtraPadding puts room around the game for trackers: what a script draws there shows (it
    /// was drawn inside the game picture, where trackers' panels were invisible), client.screenshot keeps it
    /// (the client area), the run's own screenshot is the game alone, and bufferwidth/height stay the game's.
    func testGameExtraPaddingHoldsDrawingOutsideTheGame() throws {
        let folder = Fixtures.temporaryFolder()
        let client = folder + "/client.png", game = folder + "/game.png", plain = folder + "/plain.png"
        try """
        client.SetGameExtraPadding(10, 20, 30, 40)
        console.writeline("result buffer=" .. client.bufferwidth() .. "x" .. client.bufferheight())
        event.onframeend(function()
          gui.drawBox(0, 0, 4, 4, "red", "red")             -- in the padding's top-left corner
          gui.drawBox(15, 25, 17, 27, "blue", "blue")       -- the game's (5, 5)
          gui.drawBox(270, 250, 290, 270, "lime", "lime")   -- in the right and bottom padding
          if emu.framecount() == 19 then client.screenshot("\(client)") end
        end)
        """.write(toFile: folder + "/tracker.lua", atomically: true, encoding: .utf8)
        let base = [
            "run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--quiet", "--strict", "--frames", "20",
        ]
        let result = try Fixtures.cli(
            base + ["--allow-files", "--script", "bizhawk:" + folder + "/tracker.lua", "--screenshot", game])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("result buffer=256x224"), result.stdout)
        let reference = try Fixtures.cli(base + ["--screenshot", plain])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let padded = try PNGFile.read(client), bare = try PNGRead.rgb(plain), shot = try PNGRead.rgb(game)
        XCTAssertEqual([padded.width, padded.height], [256 + 40, 224 + 60], "the client area")
        let image = PNGRead.Image(rgba: padded.rgba, width: padded.width)
        XCTAssertEqual(image.pixel(2, 2), 0xFF0000, "drawn in the padding")
        XCTAssertEqual(image.pixel(280, 260), 0x00FF00, "drawn in the right and bottom padding")
        XCTAssertEqual(image.pixel(8, 100), 0, "the padding is black where nothing was drawn")
        XCTAssertEqual(image.pixel(15, 25), 0x0000FF, "drawn on the game")
        var moved = 0
        for y in 0..<224 {
            for x in 0..<256 where !(5...7).contains(x) || !(5...7).contains(y) {
                if image.pixel(10 + x, 20 + y) != bare.pixel(x, y) { moved += 1 }
            }
        }
        XCTAssertEqual(moved, 0, "the game's pixels inside the padding")
        XCTAssertEqual(shot.width, 256, "the run's screenshot is the game alone")
        XCTAssertEqual(shot.pixel(5, 5), 0x0000FF, "with what was drawn over it, at the game's coordinates")
        XCTAssertEqual(shot.pixel(0, 0), bare.pixel(0, 0), "the padding's drawing is not in it")
    }

    /// In a real window the padding grows the window at the game's scale (2x: 100 game pixels are 200 window
    /// pixels), so the tracker drawn there is seen beside the game, not over it.
    func testGameExtraPaddingGrowsTheWindow() throws {
        let home = Fixtures.temporaryFolder()
        try """
        local frames = 0
        event.onframeend(function()
          frames = frames + 1
          if frames == 30 then client.SetGameExtraPadding(0, 0, 100, 20) end
          if frames == 5 or frames == 60 then
            print(string.format("window %d %d at %d", client.screenwidth(), client.screenheight(), frames))
          end
        end)
        """.write(toFile: home + "/pad.lua", atomically: true, encoding: .utf8)
        let session = try WindowSession(
            [
                Fixtures.gbROM, "--core", "gambatte", "--no-audio", "--scale", "2", "--script",
                "bizhawk:" + home + "/pad.lua",
            ],
            home: home)
        XCTAssertTrue(session.waitUntil { session.stdout.contains(" at 60") }, session.stdout + session.stderr)
        XCTAssertTrue(session.stdout.contains("window 320 288 at 5\n"), session.stdout)
        XCTAssertTrue(session.stdout.contains("window 520 328 at 60\n"), session.stdout)
        _ = session.stop()
    }
}
