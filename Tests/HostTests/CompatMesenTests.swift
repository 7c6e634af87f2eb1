import Foundation
import XCTest

/// The Mesen layer (lua/compat/mesen.lua): a script written here in Mesen2's style
/// (Tests/Fixtures/compat/mesen) runs unmodified for 300 frames on demo.nes; it checks what it read, wrote and
/// pressed itself, and the screenshot shows what it drew, at Mesen's coordinates (the whole 256x240 NES frame:
/// nestopia crops 8 lines of overscan, so Mesen's y 8 is the picture's row 0) and with Mesen's inverted alpha.
final class CompatMesenTests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/mesen/"

    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func run(_ script: String, shot: String? = nil, frames: Int = 300) throws -> Fixtures.Result {
        var arguments = ["run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", String(frames)]
        arguments += ["--strict", "--quiet", "--script", "mesen:" + script]
        if let shot { arguments += ["--screenshot", shot] }
        return try Fixtures.cli(arguments)
    }

    func testRAMHudReadsWritesPressesAndDraws() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run(Self.fixtures + "ram_hud.lua", shot: shot)
        result.assertChecksPassed("mesen hud: 34 checks, 0 failed")
        XCTAssertTrue(result.stderr.contains("[Test] half way"), "displayMessage: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("emu.addMemoryCallback: approximated"), "warned once: " + result.stderr)
        let image = try PNGRead.rgb(shot)
        let background: UInt32 = 0x153CFE
        XCTAssertEqual(image.pixel(20, 40 - 8), 0x00FF00, "0x0000FF00 is opaque green (alpha inverted), filled")
        XCTAssertEqual(image.pixel(60, 40 - 8), 0xFF0000, "outline corner")
        XCTAssertEqual(image.pixel(70, 50 - 8), background, "an outline leaves the inside alone")
        XCTAssertEqual(image.pixel(110, 50 - 8), background, "alpha 0xFF is transparent")
        XCTAssertEqual(image.pixel(30, 70 - 8), 0xFFFF00, "drawLine")
        XCTAssertEqual(image.pixel(5, 80 - 8), 0xFF00FF, "drawPixel")
        XCTAssertEqual(image.pixel(205, 185 - 8), 0x0000FF, "a rectangle with a 400-frame duration drawn at frame 151")
        XCTAssertEqual(image.pixel(0, 0), background, "a pixel delayed 1000 frames is not drawn yet")
        XCTAssertEqual(image.pixel(5, 5), background, "clearScreen removed the permanent shape")
        XCTAssertEqual(image.pixel(150, 100 - 8), 0x00FFFF, "the player's box at X 150, Y 100")
        XCTAssertGreaterThan(image.count(x: 130..<200, y: 32..<40, color: 0xFFFFFF), 20, "drawString")
        XCTAssertEqual(image.count(x: 130..<200, y: 31..<41, color: 0), 0, "background 0x000000FF is transparent")
        XCTAssertGreaterThan(image.count(x: 130..<150, y: 51..<61, color: 0), 20, "the default background is black")
        XCTAssertEqual(image.pixel(230, 185 - 8), 0xFF0000, "setScreenBuffer, at Mesen's rows")
        XCTAssertEqual(image.pixel(219, 185 - 8), background, "setScreenBuffer leaves the rest")
    }

    /// Mesen 1's bundled scripts and the ones derived from them: a memory type that is not a number reads the
    /// CPU (Mesen reads it as 0), the screen buffer exists before the first frame and is numbered from 0 for
    /// them, overscan pixels are black, and state sections libretro lacks fail naming the field.
    func testMesen1StyleArgumentFormsWork() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run(Self.fixtures + "bundled_style.lua", shot: shot, frames: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in [
            "result read_with_function=90", "result read16_with_string=42330", "result cheat_one_argument=true",
            "result buffer_last=61439",
            "result buffer_black=true", "result overscan_pixel=FF000000", "result picture_pixel=true",
            "result bottom_ok=true", "result outside=true",
            "result apu=emu.getState: apu is not available in Retrolua (libretro cores expose no APU, cartridge or "
                + "coprocessor state)",
            "result ppu_control=ppu.control is not available", "result unknown_field=true",
            "result frame_row_8=true", "result get_after_set=true", "result master_clock=true",
        ] {
            XCTAssertTrue(result.stdout.contains(line + "\n"), line + " in " + result.stdout)
        }
        XCTAssertTrue(result.stderr.contains("reads the CPU's memory, as Mesen does"), result.stderr)
        let image = try PNGRead.rgb(shot)
        XCTAssertEqual(image.pixel(201, 100 - 8), 0xFF00FF, "setScreenBuffer of a 0-based buffer, Mesen's rows")
        XCTAssertNotEqual(image.pixel(205, 100 - 8), 0xFF00FF, "only the painted block")
        XCTAssertEqual(image.pixel(12, 20 - 8), 0x00FF00, "drawRectangle")
    }

    /// Bad input: each call fails with a message naming the function (and argument), or says why libretro
    /// cannot do it; none crashes the run or is silently ignored.
    func testBadInputAndWhatLibretroCannotDoFailClearly() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local cases = {
          function() return emu.read("x", emu.memType.nesMemory) end,
          function() return emu.read(0, 12345) end,
          function() return emu.write(0, 300, emu.memType.nesMemory) end,
          function() return emu.write16(-1, 0, emu.memType.nesMemory) end,
          function() return emu.read(0, emu.memType.snesWorkRam) end,
          function() return emu.read(0, emu.memType.nesPpuMemory) end,
          function() return emu.addEventCallback("f", emu.eventType.endFrame) end,
          function() return emu.addEventCallback(print, 999) end,
          function() return emu.addMemoryCallback(print, emu.callbackType.exec, 0x8000) end,
          function() return emu.addMemoryCallback(print, emu.callbackType.read, 0) end,
          function() return emu.drawRectangle(1, 2, {}, 4) end,
          function() return emu.drawString(nil, 1, "s") end,
          function() return emu.setInput("a", 0) end,
          function() return emu.setInput({ a = true }, 9) end,
          function() return emu.loadSavestate(5) end,
          function() return emu.getLabelAddress("main") end,
          function() return emu.step(1, emu.stepType.step) end,
          function() return emu.addCheat(emu.cheatType.nesGameGenie, "NOTACODE!!") end,
          function() return emu.getPixel(999, 0) end,
          function() return emu.isKeyPressed("") end,
        }
        for i, case in ipairs(cases) do print(i, pcall(case)) end
        print("out of range", emu.read(0x900, emu.memType.nesInternalRam), emu.loadSavestate("junk"))
        local ends = 0
        emu.addEventCallback(function() print("reset event") end, emu.eventType.reset)
        emu.addEventCallback(function()
          ends = ends + 1
          if ends == 3 then emu.reset() end
          if ends == 5 then emu.stop(0) end
        end, emu.eventType.endFrame)
        """.write(toFile: folder + "/bad.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/bad.lua", frames: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = [
            "emu.read: bad argument #1 'address' (integer expected, got string)",
            "emu.read: invalid memory type (12345)",
            "emu.write: value out of range",
            "emu.write16: address must be >= 0",
            "snesWorkRam is another console's memory (this is Nes)",
            "memory type nesPpuMemory is not available (the core exposes no such memory to Retrolua)",
            "emu.addEventCallback: bad argument #1 'callback' (function expected, got string)",
            "emu.addEventCallback: invalid event type (999)",
            "exec callbacks are not available in Retrolua (libretro has no execution hook)",
            "read callbacks are not available in Retrolua",
            "emu.drawRectangle: bad argument #3 'width' (integer expected, got table)",
            "emu.drawString: bad argument #1 'x' (integer expected, got nil)",
            "emu.setInput: bad argument #1 'input' (table expected, got string)",
            "emu.setInput: invalid port number - must be between 0 to 4",
            "emu.loadSavestate: bad argument #1 'state' (string expected, got number)",
            "emu.getLabelAddress: not available in Retrolua (Retrolua has no debugger labels)",
            "emu.step: only stepType.ppuFrame is available in Retrolua (no debugger)",
            "emu.addCheat: invalid cheat code",
            "emu.getPixel: invalid x,y coordinates",
            "emu.isKeyPressed: Invalid key name",
        ]
        assertNumberedCasesFail(result.stdout, expected)
        XCTAssertTrue(
            result.stdout.contains("out of range\t0\tfalse"), "Mesen reads 0 past a type's end: " + result.stdout)
        XCTAssertTrue(result.stdout.contains("reset event"), "emu.reset fires the reset event: " + result.stdout)
    }

    /// Mesen2's memory types for the Game Boy and the GBA land on those systems' domains; the bot's Right
    /// reaches the game through setInput.
    func testGameBoyAndGBAMemoryTypesAndInput() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local n = 0
        emu.addEventCallback(function() if n >= 10 and n < 19 then emu.setInput({ right = true }, 0) end end,
          emu.eventType.inputPolled)
        emu.addEventCallback(function()
          n = n + 1
          if n < 30 then return end
          local m = emu.memType
          if emu.getState().consoleType == "Gba" then
            print("gba", emu.read32(0, m.gbaIntWorkRam) == emu.read32(0x03000000, m.gbaMemory),
              emu.getMemorySize(m.gbaExtWorkRam), string.char(emu.read(0, m.gbaExtWorkRam), emu.read(0x02000001, m.gbaDebug)))
          else
            print("gb", emu.read(3, m.gbWorkRam), emu.read(0xC003, m.gameboyMemory), emu.getMemorySize(m.gbHighRam))
          end
          emu.stop(0)
        end, emu.eventType.endFrame)
        """.write(toFile: folder + "/systems.lua", atomically: true, encoding: .utf8)
        let gb = try Fixtures.cli([
            "run", Fixtures.gbROM, "--core", "gambatte", "--headless", "--frames", "60", "--strict", "--quiet",
            "--script", "mesen:" + folder + "/systems.lua",
        ])
        XCTAssertEqual(gb.status, 0, gb.stderr)
        XCTAssertTrue(gb.stdout.contains("gb\t89\t89\t127"), "X 80 + 9 frames of Right: " + gb.stdout)
        let gba = Fixtures.root + "/build/roms/demo.gba"
        guard FileManager.default.fileExists(atPath: gba) else { return }
        let result = try Fixtures.cli([
            "run", gba, "--core", "mgba", "--headless", "--frames", "60", "--strict", "--quiet",
            "--script", "mesen:" + folder + "/systems.lua",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("gba\ttrue\t262144\tRE"), result.stdout)
    }

    /// setScreenBuffer replaces the whole picture: a script mirroring the frame before it runs (startFrame reads the
    /// previous frame) shows that frame mirrored, with no pixel of the live frame through it (it drew only the pixels
    /// that differed from what it read, and dropped those the game redrew). A translucent filled rectangle blends
    /// once per pixel (it got an outline of its own colour on top). A flat getState key libretro lacks
    /// ("apu.dmc.…", "cpu.a") fails with the layer's message, not a nil the script then adds to.
    func testSetScreenBufferReplacesThePictureFillsBlendOnceAndFlatStateKeysFail() throws {
        let folder = Fixtures.temporaryFolder()
        let hold = """
            emu.addEventCallback(function() emu.setInput({ right = true }, 0) end, emu.eventType.inputPolled)

            """
        try hold.write(toFile: folder + "/hold.lua", atomically: true, encoding: .utf8)
        try
            (hold + """
                emu.addEventCallback(function()
                  local buffer, mirrored = emu.getScreenBuffer(), {}
                  for y = 0, 239 do
                    for x = 0, 255 do mirrored[y * 256 + x + 1] = buffer[y * 256 + (255 - x) + 1] end
                  end
                  emu.setScreenBuffer(mirrored)
                  emu.drawRectangle(10, 40, 30, 20, 0x000000, true)     -- opaque black
                  emu.drawRectangle(10, 40, 30, 20, 0x80FFFFFF, true)   -- half-transparent white over it
                end, emu.eventType.startFrame)
                local state = emu.getState()
                print("dmc", select(2, pcall(function() return state["apu.dmc.sampleAddr"] + 1 end)))
                print("cpu.a", select(2, pcall(function() return state["cpu.a"] + 1 end)))
                print("given", state["ppu.frameCount"] ~= nil, state["cpu.cycleCount"] ~= nil, state.nosuch == nil)
                """).write(toFile: folder + "/mirror.lua", atomically: true, encoding: .utf8)
        let reference = folder + "/reference.png", shot = folder + "/mirror.png"
        // The reference is the frame before: the one startFrame's buffer was read from.
        let plain = try run(folder + "/hold.lua", shot: reference, frames: 39)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let result = try run(folder + "/mirror.lua", shot: shot, frames: 40)
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in [
            ": emu.getState: apu.dmc.sampleAddr is not available in Retrolua (libretro cores expose no APU, "
                + "cartridge or coprocessor state)",
            ": emu.getState: cpu.a is not available in Retrolua (libretro cores expose no CPU registers)",
            "given\ttrue\ttrue\ttrue",
        ] {
            XCTAssertTrue(result.stdout.contains(line + "\n"), line + " in " + result.stdout)
        }
        let before = try PNGRead.rgb(reference), image = try PNGRead.rgb(shot)
        var live = 0
        for y in 0..<224 {
            for x in 0..<256 where !(10..<40).contains(x) || !(32..<52).contains(y) {
                if image.pixel(x, y) != before.pixel(255 - x, y) { live += 1 }
            }
        }
        XCTAssertEqual(live, 0, "pixels that are not the mirrored previous frame")
        let inside = image.pixel(20, 42)
        XCTAssertTrue((0x78...0x88).contains(inside >> 16), "half white over black: " + String(inside, radix: 16))
        for (x, y) in [(10, 32), (39, 32), (10, 51), (39, 51), (25, 32), (10, 40)] {
            XCTAssertEqual(image.pixel(x, y), inside, "edge (\(x), \(y)) blended like the inside")
        }
    }

    /// The support table README's section is generated from: every function recorded, each with a known status.
    func testTheSupportTableRecordsEveryFunction() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local counts = { supported = 0, approximated = 0, unsupported = 0 }
        local names = {}
        for _, entry in ipairs(require("compat.common").support.mesen) do
          counts[entry.status] = (counts[entry.status] or 0) + 1
          names[entry.name] = true
        end
        print("counts", counts.supported, counts.approximated, counts.unsupported)
        for name in pairs(emu) do
          if type(emu[name]) == "function" and not names["emu." .. name] then print("unrecorded", name) end
        end
        emu.stop(0)
        """.write(toFile: folder + "/table.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/table.lua", frames: 5)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("unrecorded"), result.stdout)
        let counts =
            result.stdout.split(separator: "\n").first { $0.hasPrefix("counts") }?
            .split(separator: "\t").dropFirst().compactMap { Int($0) } ?? []
        XCTAssertEqual(counts.count, 3, result.stdout)
        XCTAssertGreaterThan(counts.reduce(0, +), 60, result.stdout)
    }
}
