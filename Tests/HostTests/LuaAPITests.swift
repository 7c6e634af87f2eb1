@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media

/// Each module's happy paths and error messages, executed as Lua against nestopia and the NES demo.
final class LuaAPITests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// Loads `source`, runs `frames`, and fails the test with the script's own error if it failed.
    @discardableResult
    private func lua(
        _ source: String, frames: Int = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        try harness.load(source)
        harness.run(frames)
        for failure in harness.failures { XCTFail(failure.message, file: file, line: line) }
        return harness
    }

    /// The message of the error raised by `expression`, as Lua sees it.
    private func errorOf(_ expression: String, setup: String = "") throws -> String {
        let harness = try lua(
            """
            \(setup)
            local ok, message = pcall(function() return \(expression) end)
            assert(not ok, "expected an error")
            print(message)
            """)
        harness.close()
        return harness.lines.last ?? ""
    }

    func testEmu() throws {
        let harness = try lua(
            """
            assert(emu.framecount() == 0)
            for _ = 1, 5 do emu.frameadvance() end
            assert(emu.framecount() == 5, emu.framecount())
            assert(emu.lagcount() == 0 and emu.islagged() == false)
            local info = emu.info()
            assert(info.core == "nestopia" and info.fps > 59 and info.sample_rate == 48000, info.core)
            assert(info.width == 256 and info.rom.name == "demo" and #info.rom.sha1 == 40 and #info.rom.crc32 == 8)
            assert(info.pixel_format == "XRGB8888")
            assert(emu.speed() == 1.0 and emu.speed(2.5) == 2.5)
            assert(not emu.paused()); emu.pause(); assert(emu.paused()); emu.unpause()
            assert(emu.option("nestopia_overscan_v") == "enabled")
            local crop = info.crop  -- nestopia hides 8 of the NES's 240 lines at the top and the bottom
            assert(info.height == 224 and crop.top == 8 and crop.bottom == 8 and crop.left == 0 and crop.right == 0)
            assert(emu.option("nestopia_overscan_v", "disabled") == "disabled")
            emu.frameadvance()
            crop = emu.info().crop
            assert(emu.info().height == 240 and crop.top == 0 and crop.bottom == 0, emu.info().height)
            local none, message = emu.option("no_such_key")
            assert(none == nil and message == "the core has no option 'no_such_key'", message)
            local bad, why = emu.option("nestopia_overscan_v", "sideways")
            assert(bad == nil and why:find("not one of"), why)
            local options = emu.options()
            assert(#options > 10 and options[1].key and options[1].values[1] and options[1].default)
            emu.reset()
            print("ok")
            """, frames: 6)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.run(3)
        XCTAssertEqual(harness.session.core.options.value("nestopia_overscan_v"), "disabled")
        harness.close()
    }

    /// Room around the picture is its script's, as the side panel is: it goes when the script fails, and
    /// another script's stays.
    func testPaddingGoesWithTheScriptThatSetIt() throws {
        let harness = try ScriptHarness()
        try harness.load(
            "gui.padding(4, 8, 12, 16); emu.frameadvance(); emu.frameadvance(); error('gone')", name: "a.lua")
        harness.run(1)
        XCTAssertEqual(harness.host.screen.padding, ScreenPadding(left: 4, top: 8, right: 12, bottom: 16))
        harness.run(3)
        XCTAssertEqual(harness.failures.map(\.script), ["a.lua"])
        XCTAssertEqual(harness.host.screen.padding, .none)
        try harness.load("gui.padding(1, 2, 3, 4); event.on(\"frame_end\", function() end)", name: "b.lua")
        harness.run(2)
        XCTAssertEqual(harness.host.screen.padding, ScreenPadding(left: 1, top: 2, right: 3, bottom: 4))
        harness.close()
    }

    func testEmuErrors() throws {
        XCTAssertEqual(try errorOf("emu.speed(-1)"), "emu.speed: bad argument #1 'factor' (must be 0 or more)")
        XCTAssertEqual(
            try errorOf("emu.speed('fast')"), "emu.speed: bad argument #1 'factor' (number expected, got string)")
        XCTAssertEqual(try errorOf("emu.option(nil)"), "emu.option: bad argument #1 'key' (string expected, got nil)")
        XCTAssertEqual(
            try errorOf("emu.exit(1.5)"), "emu.exit: bad argument #1 'code' (number has no integer representation)")
        XCTAssertEqual(try errorOf("emu.exit(999)"), "emu.exit: bad argument #1 'code' (must be 0…255)")
    }

    func testFrameAdvanceOnlyFromTheMainChunk() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            event.on("frame_end", function()
              local ok, message = pcall(emu.frameadvance)
              print(message)
              event.off(1)
            end)
            """)
        harness.run(2)
        XCTAssertEqual(
            harness.lines,
            ["emu.frameadvance: only the main chunk can wait for frames; callbacks already run once per frame"])
    }

    func testMemoryReadsWritesAndErrors() throws {
        let harness = try lua(
            """
            for _ = 1, 5 do emu.frameadvance() end
            memory.write_u8(0x300, 0xFE)
            assert(memory.read_u8(0x300) == 0xFE and memory.read_s8(0x300) == -2)
            memory.write_u16_le(0x300, 0x1234)
            assert(memory.read_u8(0x300) == 0x34 and memory.read_u16_be(0x300) == 0x3412 and memory.read_u16(0x300) \
            == 0x1234)
            memory.write_u32_be(0x300, 0xDEADBEEF)
            assert(memory.read_u32_be(0x300) == 0xDEADBEEF and memory.read_u32_le(0x300) == 0xEFBEADDE)
            assert(memory.read_s32_be(0x300) == -559038737)
            memory.write_u24_le(0x310, 0xABCDEF)
            assert(memory.read_u24_le(0x310) == 0xABCDEF and memory.read_u24_be(0x310) == 0xEFCDAB)
            assert(memory.read_s24_le(0x310) == 0xABCDEF - 0x1000000)
            memory.write_s16_le(0x320, -2)
            assert(memory.read_u16_le(0x320) == 0xFFFE and memory.read_s16_le(0x320) == -2)
            memory.write_f32_le(0x330, 1.5)
            assert(memory.read_f32_le(0x330) == 1.5)
            memory.write_f64_be(0x340, -0.25)
            assert(memory.read_f64_be(0x340) == -0.25)
            memory.write_bytes(0x350, "\\1\\2\\3")
            assert(memory.read_bytes(0x350, 3) == "\\1\\2\\3" and memory.read_bytes(0x350, 0) == "")
            assert(memory.read_u8(0x7FF) ~= nil)
            assert(#memory.hash() == 40 and memory.hash("system_ram", 0x350, 3) == memory.hash(nil, 0x350, 3))
            local names = {}
            for _, d in ipairs(memory.domains()) do names[d.name] = d end
            assert(names.system_ram.size == 2048 and names.system_ram.default and names.save_ram.size == 8192, \
            "domains")
            assert(memory.read_u8(0, "save_ram") >= 1, "power-on count")
            print("ok")
            """, frames: 5)
        XCTAssertEqual(harness.lines, ["ok"])
        XCTAssertEqual(harness.session.systemRAM()[0x350...0x352], [1, 2, 3])
        harness.close()

        XCTAssertEqual(
            try errorOf("memory.read_u8('x')"),
            "memory.read_u8: bad argument #1 'address' (integer expected, got string)")
        XCTAssertEqual(
            try errorOf("memory.read_u8()"),
            "memory.read_u8: bad argument #1 'address' (integer expected, got no value)")
        XCTAssertEqual(
            try errorOf("memory.read_u16_le(0x7FF)"),
            "memory.read_u16_le: address 0x7FF (2 bytes) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(
            try errorOf("memory.read_u8(-1)"),
            "memory.read_u8: address -0x1 (1 byte) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(
            try errorOf("memory.read_u8(0, 'vram2')"),
            "memory.read_u8: bad argument #2 'domain' (no domain 'vram2'; the core has system_ram, save_ram, bus)")
        XCTAssertEqual(
            try errorOf("memory.write_u8(0, 256)"),
            "memory.write_u8: bad argument #2 'value' (256 does not fit in 8 bits)")
        XCTAssertEqual(
            try errorOf("memory.write_u8(0, '1')"),
            "memory.write_u8: bad argument #2 'value' (integer expected, got string)")
        XCTAssertEqual(
            try errorOf("memory.read_bytes(0, -1)"), "memory.read_bytes: bad argument #2 'length' (must be 0 or more)")
    }

    func testJoypadOverridesReachTheGame() throws {
        let harness = try lua(
            """
            for _ = 1, 4 do emu.frameadvance() end
            local x0 = memory.read_u8(3)
            for _ = 1, 10 do joypad.set(1, {right = true}); emu.frameadvance() end
            assert(memory.read_u8(3) == x0 + 10, "right x10")
            assert(joypad.get(1).right == true and joypad.get(1).left == false)
            emu.frameadvance()
            assert(joypad.get().right == false, "overrides last one frame")
            -- Set inside the input event: applies to this very frame.
            local id = event.on("input", function() joypad.set(1, {a = true}) end)
            emu.frameadvance()
            event.off(id)
            emu.frameadvance()
            assert(memory.read_u8(5) == 1, "one A press")
            -- nil leaves the player's input; several calls in one frame combine.
            joypad.set(1, {up = true}); joypad.set(1, {b = true, up = nil})
            emu.frameadvance()
            assert(memory.read_u8(2) == 0x48, string.format("%02x", memory.read_u8(2)))
            joypad.set_analog(2, "left", -32768, 1000)
            emu.frameadvance()
            local analog = joypad.get_analog(2)
            assert(analog.left_x == -32768 and analog.left_y == 1000 and analog.right_x == 0)
            print("ok")
            """, frames: 20)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
        XCTAssertEqual(
            try errorOf("joypad.set(1, {jump = true})"),
            """
            joypad.set: bad argument #2 'buttons' (unknown button 'jump'; buttons are b, y, select, start, up, \
            down, left, right, a, x, l, r, l2, r2, l3, r3)
            """
        )
        XCTAssertEqual(
            try errorOf("joypad.set(1, {a = 1})"),
            "joypad.set: bad argument #2 'buttons' ('a' must be a boolean, got number)")
        XCTAssertEqual(try errorOf("joypad.set(9, {})"), "joypad.set: bad argument #1 'port' (must be 1…8)")
        XCTAssertEqual(
            try errorOf("joypad.set_analog(1, 'middle', 0, 0)"),
            "joypad.set_analog: bad argument #2 'stick' (\"left\" or \"right\" expected, got \"middle\")")
    }

    func testHostInputDevices() throws {
        let harness = try lua(
            """
            assert(next(input.keys()) == nil)
            input.set_key("Left", true); input.set_key("a", true); input.set_key("a", false)
            local keys = input.keys()
            assert(keys.left and not keys.a)
            input.set_mouse{x = 10, y = 20, left = true}
            local mouse = input.mouse()
            assert(mouse.x == 10 and mouse.y == 20 and mouse.left and not mouse.right)
            input.set_gamepad(1, {name = "Pad", buttons = {a = true}, axes = {leftx = 99999}})
            local pads = input.gamepads()
            assert(#pads == 1 and pads[1].name == "Pad" and pads[1].buttons.a and pads[1].axes.leftx == 32767)
            input.set_gamepad(1, nil)
            assert(#input.gamepads() == 0)
            print("ok")
            """)
        XCTAssertEqual(harness.lines, ["ok"])
        XCTAssertEqual(harness.host.screen.devices.keys, ["left"])
        harness.close()
        XCTAssertEqual(
            try errorOf("input.set_key('a', 'yes')"),
            "input.set_key: bad argument #2 'pressed' (boolean expected, got string)")
        XCTAssertEqual(
            try errorOf("input.set_mouse{x = 'left'}"),
            "input.set_mouse: bad field 'x' in argument #1 (integer expected, got string)")
    }

    func testSavestatesSlotsFilesObjectsAndScriptData() throws {
        let harness = try lua(
            """
            for _ = 1, 10 do emu.frameadvance() end
            savestate.data("mine.level", {name = "one", best = 3, list = {1, 2, 3}})
            local state = savestate.create()
            assert(state:frame() == 10 and state:size() > 1000)
            assert(savestate.save(3) == true)
            local path = os.tmpname()
            assert(savestate.save(path))
            local x = memory.read_u8(3)
            for _ = 1, 10 do joypad.set(1, {right = true}); emu.frameadvance() end
            savestate.data("mine.level", "changed")
            assert(memory.read_u8(3) == x + 10 and emu.framecount() == 20)
            assert(state:load())
            assert(memory.read_u8(3) == x and emu.framecount() == 10, "object load")
            local data = savestate.data("mine.level")
            assert(data.name == "one" and data.best == 3 and data.list[3] == 3, "script data restored")
            for _ = 1, 3 do emu.frameadvance() end
            assert(savestate.load(3) and emu.framecount() == 10 and memory.read_u8(3) == x, "slot load")
            assert(savestate.load(path) and emu.framecount() == 10, "file load")
            local copy = assert(savestate.from_bytes(state:bytes()))
            assert(copy:size() == state:size() and copy:load())
            local missing, message = savestate.load(7)
            assert(missing == nil and message:find("no such savestate"), message)
            local junk, why = savestate.from_bytes("RLST\\1\\0")
            assert(junk == nil and why:find("not a savestate"), why)
            local f = io.open(path, "wb"); f:write("garbage that is not a state"); f:close()
            local bad, reason = savestate.load(path)
            assert(bad == nil and reason:find("bytes"), reason)
            assert(emu.framecount() == 10, "a refused state leaves the game alone")
            os.remove(path)
            savestate.data("mine.level", nil)
            assert(savestate.data("mine.level") == nil)
            print("ok")
            """, frames: 40)
        XCTAssertEqual(harness.lines, ["ok"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: harness.folder + "/states/demo/slot3.state"))
        harness.close()
        XCTAssertEqual(
            try errorOf("savestate.save(true)"),
            "savestate.save: bad argument #1 'slot_or_path' (integer or string expected, got boolean)")
        XCTAssertEqual(
            try errorOf("savestate.data('k', print)"),
            """
            savestate.data: bad argument #2 'value' (a function cannot be stored (only nil, booleans, numbers, \
            strings and tables))
            """
        )
    }

    func testRewindReturnsToTheExactRAMOfEarlierFrames() throws {
        let harness = try lua(
            """
            local ring = rewind.new{memory_mb = 4}
            for _ = 1, 5 do emu.frameadvance() end
            local history = {}
            for i = 1, 120 do
              ring:push()
              history[i] = memory.hash()
              joypad.set(1, {right = i % 3 ~= 0, a = i % 2 == 0})
              emu.frameadvance()
            end
            assert(ring:count() == 120 and ring:memory() < 200000, ring:memory())
            for i = 120, 1, -1 do
              assert(ring:step())
              assert(memory.hash() == history[i], "frame " .. i)
              assert(emu.framecount() == 4 + i, emu.framecount())
            end
            assert(ring:step() == false and ring:count() == 0)
            print("ok")
            """, frames: 130)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
        XCTAssertEqual(
            try errorOf("rewind.new{memory_mb = 0}"),
            "rewind.new: bad field 'memory_mb' in argument #1 (must be more than 0 and at most 4096)")
    }

    func testGuiDrawsOnTheEmuSurfaceOnly() throws {
        let harness = try lua(
            """
            for _ = 1, 5 do emu.frameadvance() end
            local w, h = gui.surface_size("emu")
            assert(w == 256 and h == 224, w .. "x" .. h)
            local tw, th = gui.text(0, 0, "HI", {color = "#ff0000", bg = 0xFF000000})
            assert(tw == 12 and th == 8 and select(1, gui.text_size("ab\\ncd")) == 12)
            gui.rect(20, 20, 10, 10, {color = "white", fill = "#00ff00"})
            gui.pixel(40, 40, {color = 0xFFFFFF00})
            gui.line(0, 100, 255, 100, {color = "cyan"})
            gui.circle(60, 60, 5, {fill = "magenta"})
            gui.text(0, 0, "hud only", {surface = "hud", color = "red"})
            assert(gui.screenshot(os.getenv("SHOT")))
            print("ok")
            """.replacingOccurrences(
                of: "os.getenv(\"SHOT\")", with: "\"\(NSTemporaryDirectory())gui-\(getpid()).png\""), frames: 5)
        XCTAssertEqual(harness.lines, ["ok"])
        let image = try PNGRead.rgb(NSTemporaryDirectory() + "gui-\(getpid()).png")
        XCTAssertEqual(image.pixel(25, 25), 0x00FF00, "rect fill")
        XCTAssertEqual(image.pixel(20, 20), 0xFFFFFF, "rect outline")
        XCTAssertEqual(image.pixel(40, 40), 0xFFFF00, "pixel")
        XCTAssertEqual(image.pixel(128, 100), 0x00FFFF, "line")
        XCTAssertEqual(image.pixel(60, 60), 0xFF00FF, "circle fill")
        XCTAssertEqual(image.pixel(200, 200), Fixtures.nesBlue, "the game shows through")
        XCTAssertEqual(image.pixel(11, 7), 0x000000, "text background, not the hud text")
        harness.close()

        XCTAssertEqual(
            try errorOf("gui.text(0, 0, 'x', {color = 'mauve'})"),
            """
            gui.text: bad field 'color' in argument #4 ('mauve' is not a colour (0xAARRGGBB, \"#rrggbb[aa]\" or \
            one of black, blue, cyan, gray, green, grey, magenta, orange, purple, red, transparent, white, \
            yellow))
            """
        )
        XCTAssertEqual(
            try errorOf("gui.rect(0, 0, 1, 1, {surface = 'tv'})"),
            "gui.rect: bad argument #5 'surface' (\"emu\" or \"hud\" expected, got \"tv\")")
        XCTAssertEqual(
            try errorOf("gui.image(0, 0, '/nonexistent.png')"),
            "gui.image: /nonexistent.png: cannot read content: not a readable PNG: No such file or directory")
    }

    func testImagesFromPNGFilesBlendOntoTheFrame() throws {
        let folder = Fixtures.temporaryFolder()
        // 2x1: opaque green, then half-transparent red.
        try PNGFile.write(rgba: [0, 255, 0, 255, 255, 0, 0, 128], width: 2, height: 1, to: folder + "/tiny.png")
        let harness = try lua(
            """
            for _ = 1, 5 do emu.frameadvance() end
            local image = assert(gui.load_image(FOLDER .. "/tiny.png"))
            assert(image:width() == 2 and image:height() == 1)
            -- Metamethods live on the metatable (where Lua looks for them), methods in __index.
            local meta = getmetatable(image)
            assert(type(meta.__gc) == "function" and meta.__index.__gc == nil and type(meta.__index.width) == \
            "function")
            local ok, problem = pcall(image.width, 42)
            assert(not ok and problem:find("image:width: bad argument #1 'self'", 1, true), problem)
            gui.image(10, 10, image)
            gui.image(20, 20, FOLDER .. "/tiny.png")
            local missing, message = gui.load_image(FOLDER .. "/none.png")
            assert(missing == nil and message:find("none.png"), message)
            assert(gui.screenshot(FOLDER .. "/shot.png"))
            print("ok")
            """.replacingOccurrences(of: "FOLDER", with: "\"\(folder)\""), frames: 5)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
        let shot = try PNGRead.rgb(folder + "/shot.png")
        XCTAssertEqual(shot.pixel(10, 10), 0x00FF00)
        XCTAssertEqual(shot.pixel(20, 20), 0x00FF00)
        // Half red over the blue background.
        let blended = shot.pixel(11, 10)
        XCTAssertEqual(blended >> 16, 0x8A, accuracy: 2)
        XCTAssertEqual(blended & 0xFF, 0x7E, accuracy: 2)
    }

    func testMemoryMapDomainsOnACoreWithoutSystemRAM() throws {
        // Debian's mGBA exposes Game Boy WRAM only through its memory map.
        let harness = try ScriptHarness(rom: Fixtures.gbROM, core: "mgba")
        try harness.load(
            """
            for _ = 1, 10 do emu.frameadvance() end
            local names = {}
            for _, d in ipairs(memory.domains()) do names[#names + 1] = d.name .. (d.default and "*" or "") end
            print(table.concat(names, " "))
            print(memory.read_u8(0xC003), memory.read_u8(3, "bus_C000"), memory.read_u8(0xC004, "bus"))
            print(pcall(memory.read_u8, 0xFEA0, "bus"))
            """)
        harness.run(10)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        XCTAssertTrue(harness.lines[0].hasPrefix("bus_0 bus_4000 bus_8000 bus_C000 "), harness.lines[0])
        XCTAssertTrue(harness.lines[0].hasSuffix(" bus*"), "the bus is the default domain: \(harness.lines[0])")
        XCTAssertEqual(harness.lines[1], "80\t80\t72")
        XCTAssertEqual(harness.lines[2], "false\tmemory.read_u8: address 0xFEA0 (1 byte) is not mapped in 'bus'")
    }

    func testEventAndWatchErrors() throws {
        XCTAssertEqual(
            try errorOf("event.on('tick', print)"),
            """
            event.on: bad argument #1 'name' (unknown event 'tick'; one of frame_start, input, frame_end, draw, \
            state_saved, state_loaded, reset, exit, key_down, key_up, mouse_down, mouse_up, gamepad, message, \
            movie_start, movie_end, movie_desync, movie_changed, script_failed, script_loaded, agent)
            """
        )
        XCTAssertEqual(
            try errorOf("event.on('draw', 3)"), "event.on: bad argument #2 'fn' (function expected, got number)")
        XCTAssertEqual(
            try errorOf("event.watch(nil, 0x7FF, 2, print)"),
            "event.watch: address 0x7FF (2 bytes) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(
            try errorOf("event.watch(nil, 0, 0, print)"), "event.watch: bad argument #3 'size' (must be 1…4096)")
    }
}

/// Reads back PNGs written by the host.
enum PNGRead {
    struct Image {
        let rgba: [UInt8]
        let width: Int
        func pixel(_ x: Int, _ y: Int) -> UInt32 {
            let i = (y * width + x) * 4
            return UInt32(rgba[i]) << 16 | UInt32(rgba[i + 1]) << 8 | UInt32(rgba[i + 2])
        }
    }

    static func rgb(_ path: String) throws -> Image {
        let image = try Media.PNGFile.read(path)
        return Image(rgba: image.rgba, width: image.width)
    }
}

extension PNGRead.Image {
    /// How many pixels in the rectangle have `color` (rows past the image's end count none).
    func count(x: Range<Int>, y: Range<Int>, color: UInt32) -> Int {
        var found = 0
        for py in y where py * width * 4 < rgba.count {
            for px in x where pixel(px, py) == color { found += 1 }
        }
        return found
    }
}

/// The compatibility layers' bad-input fixtures print each case as `N<tab>false<tab>message`: every
/// case must have failed, with its expected message.
func assertNumberedCasesFail(
    _ stdout: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line
) {
    let lines = stdout.split(separator: "\n").map(String.init)
    for (i, message) in expected.enumerated() {
        let found = lines.first { $0.hasPrefix("\(i + 1)\t") } ?? ""
        XCTAssertTrue(found.hasPrefix("\(i + 1)\tfalse\t"), "case \(i + 1) must fail: " + found, file: file, line: line)
        XCTAssertTrue(found.contains(message), "case \(i + 1): \(found) should say \(message)", file: file, line: line)
    }
}

extension LuaAPITests {
    /// Found by the API fuzzer: a table walk kept its key at a fixed stack slot, so an extra argument
    /// made `lua_next` raise ("invalid key to 'next'") through the binding.
    func testExtraArgumentsAreIgnoredByFunctionsThatWalkTables() throws {
        let harness = try lua(
            """
            joypad.set(1, { a = true, b = false }, "extra", 42)
            input.set_gamepad(1, { buttons = { a = true }, axes = { leftx = 100 } }, 5, {})
            emu.frameadvance()
            print(joypad.get(1).a, input.gamepads()[1].buttons.a)
            """, frames: 3)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertEqual(harness.lines, ["true\ttrue"])
        harness.close()
    }
}
