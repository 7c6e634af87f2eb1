@testable import Emulation
import Foundation
import Libretro
import XCTest
@testable import Scripting

/// Lua speaks the host's vocabulary: the RetroPad's buttons and bits come from the Swift enum
/// (`joypad.BUTTONS`, `joypad.mask`, `joypad.names`, `joypad.set` with a mask), and refusals carry their
/// kind as a third value.
final class LuaVocabularyTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// Loads `source`, runs `frames`, fails the test with any script failure and returns what it printed.
    private func lua(
        _ source: String, frames: Int = 0, setup: (ScriptHarness) -> Void = { _ in }, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [String] {
        let harness = try ScriptHarness()
        defer { harness.close() }
        setup(harness)
        try harness.load(source)
        harness.run(frames)
        for failure in harness.failures { XCTFail(failure.message, file: file, line: line) }
        return harness.lines
    }

    func testButtonsAreTheSwiftEnumsNamesAndBits() throws {
        let lines = try lua(
            """
            local names = {}
            for name, bit in pairs(joypad.BUTTONS) do names[#names + 1] = name .. "=" .. bit end
            table.sort(names)
            print(table.concat(names, " "))
            """)
        let expected = RetroPadButton.allCases.map { "\($0.name)=\($0.rawValue)" }.sorted()
        XCTAssertEqual(lines, [expected.joined(separator: " ")])
        XCTAssertEqual(RetroPadButton.allCases.count, 16)
    }

    func testMaskAndNamesRoundTrip() throws {
        let lines = try lua(
            """
            local masks = {}
            for mask = 0, 0xFFFF, 257 do masks[#masks + 1] = mask end  -- 0x0000, 0x0101, … 0xFFFF
            for bit = 0, 15 do masks[#masks + 1] = 1 << bit end
            for _, mask in ipairs(masks) do
              local names = joypad.names(mask)
              assert(joypad.mask(names) == mask, mask)
              local pressed = {}
              for _, name in ipairs(names) do pressed[name] = true end
              pressed.select = pressed.select or false  -- false entries count as released
              assert(joypad.mask(pressed) == mask, mask)
            end
            local B = joypad.BUTTONS
            assert(joypad.mask({}) == 0 and #joypad.names(0) == 0)
            assert(joypad.mask({ "a", "start", up = true, down = false }) == (1 << B.a | 1 << B.start | 1 << B.up))
            assert(table.concat(joypad.names(0x109), ",") == "b,start,a")
            for _, bad in ipairs({ "joypad.mask({'jump'})", "joypad.mask({a = 1})", "joypad.names(0x10000)",
                                   "joypad.names(-1)", "joypad.set(1, 0x10000)" }) do
              local ok, message = pcall(load("return " .. bad))
              assert(not ok and message:find("bad argument #", 1, true), bad .. ": " .. tostring(message))
            end
            local _, unknown = pcall(joypad.mask, { "jump" })
            print(unknown)
            """)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.last?.hasPrefix("joypad.mask: bad argument #1 'buttons' (unknown button 'jump'") ?? false)
    }

    /// A mask sets every button: its bits pressed, the others released, over the player's own input.
    func testSetWithAMaskSetsWhatItSays() throws {
        let lines = try lua(
            """
            local B = joypad.BUTTONS
            local wanted = 1 << B.b | 1 << B.start | 1 << B.r3
            joypad.set(1, wanted)
            emu.frameadvance()
            assert(joypad.mask(joypad.get(1)) == wanted, "the mask replaced the player's a")
            joypad.set(1, 1 << B.left)
            joypad.set(1, { start = true })  -- calls in one frame combine
            emu.frameadvance()
            print(table.concat(joypad.names(joypad.mask(joypad.get(1))), ","))
            emu.frameadvance()
            assert(joypad.get(1).a and not joypad.get(1).left, "overrides last one frame")
            print("ok")
            """, frames: 4, setup: { $0.playerInput(a: true) })
        XCTAssertEqual(lines, ["start,left", "ok"])
    }

    /// Each refusal names its kind: returned after `nil, message` for rules and failures (and for the
    /// out-of-range answers a function returns), while a phase mistake stays an error.
    func testRefusalsReturnTheirKind() throws {
        let folder = Fixtures.temporaryFolder()
        let lines = try lua(
            """
            local function kind_of(what, ok, message, kind)
              assert(ok == nil and type(message) == "string", what .. ": " .. tostring(message))
              print(what .. " " .. tostring(kind))
            end
            kind_of("failed", savestate.load("\(folder)/none.state"))
            assert(movie.record("\(folder)/m.rlm"))
            emu.frameadvance()
            assert(movie.stop())
            assert(movie.play("\(folder)/m.rlm"))
            kind_of("out_of_range", movie.input(99))
            kind_of("movie", emu.reset())
            assert(movie.stop())
            kind_of("movie", movie.input(0))
            assert(emu.hardcore(true))
            kind_of("hardcore", memory.write_u8(5, 1))
            kind_of("hardcore", joypad.set(1, 0))
            emu.hardcore(false)
            local polled = false
            event.on("input", function()
              if polled then return end
              polled = true
              local ok, message = pcall(emu.reset)
              assert(not ok and message:find("input poll", 1, true), tostring(message))
              print("phase raised")
            end)
            emu.frameadvance()
            """, frames: 3)
        XCTAssertEqual(
            lines,
            [
                "failed failed", "out_of_range out_of_range", "movie movie", "movie movie", "hardcore hardcore",
                "hardcore hardcore", "phase raised",
            ])
    }
}
