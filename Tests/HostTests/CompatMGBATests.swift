import Foundation
import XCTest

/// The mGBA layer (lua/compat/mgba.lua): scripts written here in mGBA's style (Tests/Fixtures/compat/mgba) run
/// unmodified for 300 frames on demo.gba (and demo.gb on gambatte and mgba); they check what they read, wrote and
/// pressed themselves, and the screenshot shows the canvas layer they painted.
final class CompatMGBATests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/mgba/"
    private static let gbaROM = Fixtures.root + "/build/roms/demo.gba"

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        guard FileManager.default.fileExists(atPath: Self.gbaROM) else { throw XCTSkip("demo.gba not built") }
    }

    private func run(
        _ script: String, rom: String = gbaROM, core: String = "mgba", frames: Int = 300, shot: String? = nil,
        home: String = Fixtures.temporaryFolder()
    ) throws -> Fixtures.Result {
        var arguments = ["run", rom, "--core", core, "--headless", "--frames", String(frames), "--strict", "--quiet"]
        arguments += ["--script", "mgba:" + script]
        if let shot { arguments += ["--screenshot", shot] }
        return try Fixtures.cli(arguments, home: home)
    }

    func testKeyWatchPressesReadsWritesPaintsAndStores() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png", home = Fixtures.temporaryFolder()
        let result = try run(Self.fixtures + "key_watch.lua", shot: shot, home: home)
        result.assertChecksPassed("mgba watch: 26 checks, 0 failed, 300 frames")
        // The text buffer's last contents are printed when the run ends.
        XCTAssertTrue(result.stdout.contains("[watch]\nframe "), result.stdout)
        XCTAssertTrue(result.stderr.contains("'start' runs before the first frame"), "warned once: " + result.stderr)
        let image = try PNGRead.rgb(shot)
        // The layer sits at (8, 80): a green rectangle with a red 1-pixel border, a yellow line, a blue circle.
        XCTAssertEqual(image.pixel(8, 80), 0xFF0000, "border")
        XCTAssertEqual(image.pixel(20, 90), 0x00FF00, "inside")
        XCTAssertEqual(image.pixel(30, 110), 0xFFFF00, "line")
        XCTAssertEqual(image.pixel(88, 95), 0x0000FF, "circle")
        XCTAssertNotEqual(image.pixel(60, 90), 0x00FF00, "the layer was cleared each frame before repainting")
        // The storage bucket persists per script in the data folder: a second run counts 2.
        let bucket = home + "/.local/share/retrolua/data/mgba-storage/key_watch/progress.json"
        XCTAssertEqual(try String(contentsOfFile: bucket, encoding: .utf8), "{\"runs\":1}")
        let again = try run(Self.fixtures + "key_watch.lua", frames: 20, home: home)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOfFile: bucket, encoding: .utf8), "{\"runs\":2}")
    }

    func testOverlayTextAnchorsAndTheScriptGlobal() throws {
        // mGBA's own demo scripts anchor painter text with C.ALIGN and load files through script.dir
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run(Self.fixtures + "overlay_corners.lua", frames: 5, shot: shot)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("script true true"), result.stdout)
        XCTAssertTrue(result.stdout.contains("missing image nil"), result.stdout)
        let image = try PNGRead.rgb(shot)
        // "BR" (12x8) ends at the bottom-right corner of the 240x160 picture, "TL" starts at the top-left
        XCTAssertGreaterThan(image.count(x: 228..<240, y: 152..<160, color: 0xFF0000), 5, "bottom-right text")
        XCTAssertEqual(image.count(x: 0..<228, y: 0..<160, color: 0xFF0000), 0, "nothing red elsewhere")
        XCTAssertGreaterThan(image.count(x: 111..<129, y: 76..<84, color: 0x00FF00), 5, "centred text")
        XCTAssertGreaterThan(image.count(x: 0..<12, y: 0..<8, color: 0x0000FF), 5, "top-left text")
    }

    func testGameBoyKeysAndDomainsOnGambatteAndMGBA() throws {
        for core in ["gambatte", "mgba"] {
            let result = try run(Self.fixtures + "gb_right.lua", rom: Fixtures.gbROM, core: core, frames: 60)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(
                result.stdout.contains("gb\ttrue\tRETROLUA\t80\t90\ttrue\t70224\t65408"), core + ": " + result.stdout)
        }
    }

    /// Bad input: each call fails with a message naming the method (and argument), or says why libretro cannot
    /// do it; none crashes the run or is silently ignored.
    func testBadInputAndWhatLibretroCannotDoFailClearly() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local cases = {
          function() return emu:read8("x") end,
          function() return emu:write16(0x03000000, {}) end,
          function() return emu:readRange(0x02000000, -1) end,
          function() return emu:addKey(99) end,
          function() return emu:setKeys("A") end,
          function() return emu:loadStateBuffer(5) end,
          function() return emu:checksum(C.CHECKSUM.MD5) end,
          function() return emu:readRegister("r0") end,
          function() return emu:setBreakpoint(print, 0x08000000) end,
          function() return emu:setWatchpoint(print, 0x03000000, C.WATCHPOINT_TYPE.READ) end,
          function() return callbacks:add("frame", 5) end,
          function() return callbacks:add("nosuch", print) end,
          function() return callbacks:add(7, print) end,
          function() return image.newPainter({}) end,
          function() return canvas:newLayer("w", 10) end,
          function() return storage:getBucket("../escape") end,
          function() return emu:runFrame() end,
          function() return util.makeBitmask(3) end,
          function() return console:createBuffer("b"):setSize("x", 2) end,
        }
        for i, case in ipairs(cases) do print(i, pcall(case)) end
        print("unmapped", emu:read8(0x09000000), emu:loadStateBuffer("junk"), canvas:newLayer(0, 10))
        -- without --allow-net, connecting is an expected failure, so a script that checks for nil carries on;
        -- socket.tcp() gives a socket (mGBA's never fails) whose bind and connect fail with the message
        local tcp, tcp_message = socket.tcp()
        local connected, connect_message = socket.connect("127.0.0.1", 8888)
        print("socket", type(tcp), tcp_message, connected, connect_message, socket.ERRORS.AGAIN)
        print("method", tcp:connect("127.0.0.1", 8888))
        print("index", pcall(function() return tcp.nosuch.field end))
        callbacks:add("frame", function() if emu:currentFrame() == 3 then emu.exit_for_test = true end end)
        """.write(toFile: folder + "/bad.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/bad.lua", frames: 5)
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = [
            "emu:read8: bad argument #1 'address' (integer expected, got string)",
            "emu:write16: bad argument #2 'value' (integer expected, got table)",
            "emu:readRange: bad argument #2 'length' (0…16 MiB expected)",
            "emu:addKey: bad argument #1 'key' (0…63 expected)",
            "emu:setKeys: bad argument #1 'keys' (integer expected, got string)",
            "emu:loadStateBuffer: bad argument #1 'buffer' (string expected, got number)",
            "emu:checksum: MD5 is not available in Retrolua (CRC32 and SHA1 are)",
            "emu:readRegister: not available in Retrolua (libretro exposes no CPU registers)",
            "emu:setBreakpoint: not available in Retrolua (libretro has no execution hook)",
            "emu:setWatchpoint: read watchpoints are not available in Retrolua",
            "callbacks:add: bad argument #2 'function' (function expected, got number)",
            "callbacks:add: unknown callback 'nosuch'",
            "callbacks:add: bad argument #1 'callback' (string expected, got number)",
            "image.newPainter: bad argument #1 'image' (Image expected)",
            "canvas:newLayer: bad argument #1 'width' (integer expected, got string)",
            "storage:getBucket: bad argument #1 'bucket'",
            "emu:runFrame: not available in Retrolua",
            "util.makeBitmask: bad argument #1 'bits' (table expected)",
            "TextBuffer:setSize: bad argument #1 'cols' (integer expected, got string)",
        ]
        assertNumberedCasesFail(result.stdout, expected)
        XCTAssertTrue(result.stdout.contains("unmapped\t0\tfalse\tnil"), result.stdout)
        let noNet = "network access needs --allow-net (loopback only)"
        for line in [
            "socket\ttable\tnil\tnil\t\(noNet)", "\ttemporary failure\n", "method\tnil\t\(noNet)",
            "index\tfalse\t", "attempt to index a nil value (field 'nosuch')",
        ] {
            XCTAssertTrue(result.stdout.contains(line), line + " in " + result.stdout)
        }
        XCTAssertTrue(result.stderr.contains("reads as 0"), "unmapped reads warn once: " + result.stderr)
    }

    /// A translucent fill blends once per pixel: a filled rectangle or circle got an outline of its own colour over
    /// its edge, blended twice there.
    func testTranslucentFillsBlendOncePerPixel() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local layer = canvas:newLayer(100, 60)
        local painter = image.newPainter(layer.image)
        callbacks:add("frame", function()
          painter:setBlend(true)
          painter:setFill(true)
          painter:setStrokeWidth(0)
          painter:setFillColor(0xFF000000)
          painter:drawRectangle(0, 0, 100, 60)         -- opaque black
          painter:setFillColor(0x80FFFFFF)
          painter:drawRectangle(10, 10, 30, 20)        -- half-transparent white
          painter:drawCircle(50, 10, 21)               -- and a circle of it, no stroke
          layer:update()
        end)
        """.write(toFile: folder + "/fills.lua", atomically: true, encoding: .utf8)
        let shot = folder + "/fills.png"
        let result = try run(folder + "/fills.lua", frames: 5, shot: shot)
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try PNGRead.rgb(shot)
        let inside = image.pixel(20, 20)
        XCTAssertTrue((0x78...0x88).contains(inside >> 16), "half white over black: " + String(inside, radix: 16))
        for (x, y) in [(10, 10), (39, 10), (10, 29), (39, 29), (25, 10), (10, 20)] {
            XCTAssertEqual(image.pixel(x, y), inside, "rectangle edge (\(x), \(y))")
        }
        XCTAssertEqual(image.pixel(9, 10), 0, "outside")
        XCTAssertEqual(image.pixel(60, 20), inside, "circle centre")
        for (x, y) in [(60, 10), (50, 20), (70, 20), (60, 30)] {
            XCTAssertEqual(image.pixel(x, y), inside, "circle edge (\(x), \(y))")
        }
    }

    /// mGBA's sockets with Python peers on loopback (Tests/python/test_compat_sockets.py): a line server serving
    /// two clients at once and an abrupt one, a client script, and the refusal without --allow-net.
    func testSocketsTalkToPythonPeersOnLoopback() throws {
        try Fixtures.assertPytestPasses("test_compat_sockets.py", selecting: "mgba", summary: "3 passed", timeout: 300)
    }

    func testTheSupportTableRecordsEveryFunction() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        local counts = { supported = 0, approximated = 0, unsupported = 0 }
        for _, entry in ipairs(require("compat.common").support.mgba) do
          counts[entry.status] = (counts[entry.status] or 0) + 1
        end
        print("counts", counts.supported, counts.approximated, counts.unsupported)
        """.write(toFile: folder + "/table.lua", atomically: true, encoding: .utf8)
        let result = try run(folder + "/table.lua", frames: 2)
        XCTAssertEqual(result.status, 0, result.stderr)
        let counts =
            result.stdout.split(separator: "\n").first { $0.hasPrefix("counts") }?
            .split(separator: "\t").dropFirst().compactMap { Int($0) } ?? []
        XCTAssertEqual(counts.count, 3, result.stdout)
        XCTAssertGreaterThan(counts.reduce(0, +), 80, result.stdout)
    }
}
