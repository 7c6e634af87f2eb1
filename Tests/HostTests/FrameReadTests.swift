@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro

/// Reading the screen from Lua (`gui.getpixel`, `gui.frame`): the same pixels the core drew, in every
/// format, on cores with different pixel formats (nestopia XRGB8888, gambatte RGB565).
final class FrameReadTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func run(_ source: String, rom: String = Fixtures.nesROM, frames: Int = 3) throws -> ScriptHarness {
        let harness = try ScriptHarness(rom: rom)
        try harness.load(source)
        harness.run(frames)
        for failure in harness.failures { XCTFail(failure.message) }
        return harness
    }

    func testGetpixelAndEveryFrameFormatAgreeWithTheCoresFrame() throws {
        for rom in [Fixtures.nesROM, Fixtures.gbROM] {
            let harness = try run(
                """
                emu.frameadvance(); emu.frameadvance()
                local rgba, w, h = gui.frame()
                local rgb = gui.frame("rgb")
                local native, nw, nh, format = gui.frame("native")
                local image = gui.frame("image")
                assert(#rgba == w * h * 4 and #rgb == w * h * 3 and image:width() == w and image:height() == h)
                for _, p in ipairs({{0, 0}, {w - 1, h - 1}, {w // 2, h // 3}, {17, 9}}) do
                  local x, y = p[1], p[2]
                  local r, g, b = gui.getpixel(x, y)
                  local i = (y * w + x)
                  assert(rgba:byte(i * 4 + 1) == r and rgba:byte(i * 4 + 2) == g and rgba:byte(i * 4 + 3) == b)
                  assert(rgba:byte(i * 4 + 4) == 255)
                  assert(rgb:byte(i * 3 + 1) == r and rgb:byte(i * 3 + 2) == g and rgb:byte(i * 3 + 3) == b)
                end
                print(w, h, nw, nh, format, #native, memory.hash ~= nil)
                """, rom: rom)
            let frame = try XCTUnwrap(harness.session.core.currentFrame())
            XCTAssertEqual(
                harness.lines.last,
                "\(frame.width)\t\(frame.height)\t\(frame.width)\t\(frame.height)\t\(frame.format)\t"
                    + "\(frame.pixels.count)\ttrue", rom)
            harness.close()
        }
    }

    func testTheFrameIsTheCoresAndTheOverlayOnlyWhenAsked() throws {
        let harness = try run(
            """
            emu.frameadvance()
            gui.rect(0, 0, 4, 4, {color = 0xFFFF00FF, fill = 0xFFFF00FF})
            local bare = gui.frame()
            local drawn = gui.frame("rgba", true)
            print(bare:byte(1), bare:byte(2), bare:byte(3), drawn:byte(1), drawn:byte(2), drawn:byte(3))
            local r, g, b = gui.getpixel(0, 0)
            print(r == bare:byte(1) and g == bare:byte(2) and b == bare:byte(3))
            """)
        let values = harness.lines[0].split(separator: "\t").map(String.init)
        XCTAssertEqual(Array(values[3...]), ["255", "0", "255"], "the overlay's magenta")
        XCTAssertNotEqual(Array(values[0..<3]), ["255", "0", "255"])
        XCTAssertEqual(harness.lines[1], "true", "getpixel reads the core's frame")
        harness.close()
    }

    func testANewImageFromPixelsIsDrawnAsGiven() throws {
        // A frame a script changed (Mesen's setScreenBuffer, say): read, edit, draw back.
        let harness = try run(
            """
            emu.frameadvance()
            local pixels, width, height = gui.frame("rgba")
            local edited = string.rep("\\0\\255\\0\\255", 8) .. pixels:sub(33)
            gui.image(0, 0, assert(gui.new_image(width, height, edited)))
            local drawn = gui.frame("rgba", true)
            print(drawn:byte(1), drawn:byte(2), drawn:byte(3), drawn:sub(33, 64) == pixels:sub(33, 64))
            print(select(2, pcall(gui.new_image, 2, 2, "abc")))
            """)
        XCTAssertEqual(harness.lines.first, "0\t255\t0\ttrue")
        XCTAssertEqual(
            harness.lines.last,
            "gui.new_image: bad argument #3 'pixels' (16 bytes (width × height × 4) expected, got 3)")
        harness.close()
    }

    func testBeforeTheFirstFrameAndMisuse() throws {
        let harness = try run(
            """
            print(gui.getpixel(0, 0))
            print(gui.frame())
            emu.frameadvance()
            for _, call in ipairs({
              function() return gui.getpixel(-1, 0) end, function() return gui.getpixel(0, 100000) end,
              function() return gui.getpixel("a", 0) end, function() return gui.frame("png") end,
              function() return gui.frame("native", true) end, function() return gui.getpixel(math.maxinteger, 0) end,
            }) do print(select(2, pcall(call))) end
            """)
        XCTAssertEqual(
            harness.lines,
            [
                "nil\tthe core has not drawn a frame yet", "nil\tthe core has not drawn a frame yet",
                "gui.getpixel: bad argument #1 'x' (outside the frame (0…255))",
                "gui.getpixel: bad argument #2 'y' (outside the frame (0…223))",
                "gui.getpixel: bad argument #1 'x' (integer expected, got string)",
                "gui.frame: bad argument #1 'format' (\"rgba\", \"rgb\", \"native\" or \"image\" expected)",
                "gui.frame: bad argument #2 'overlay' (not with the \"native\" format)",
                "gui.getpixel: bad argument #1 'x' (outside the frame (0…255))",
            ])
        harness.close()
    }
}
