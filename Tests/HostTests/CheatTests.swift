@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro

/// Cheats against real cores: RetroArch RAM-cheat semantics, core codes (Game Genie, GameShark),
/// `.cht` files, RAM search and hardcore mode.
final class CheatTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func lua(
        _ source: String, frames: Int, rom: String = Fixtures.nesROM, core: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> ScriptHarness {
        let harness = try ScriptHarness(rom: rom, core: core)
        try harness.load(source)
        harness.run(frames)
        for failure in harness.failures { XCTFail(failure.message, file: file, line: line) }
        return harness
    }

    func testRAMCheatsFollowRetroArchSemantics() throws {
        let harness = try lua(
            """
            local set = cheats.add_ram({address = 5, value = 42, description = "A counter"})
            for _ = 1, 3 do joypad.set(1, {a = true}); emu.frameadvance(); emu.frameadvance() end
            assert(memory.read_u8(5) == 42, "set: the counter stays at 42")
            assert(cheats.enable(set, false) and not cheats.enable(999, true))
            cheats.add_ram({address = 0x300, value = 2, type = "increase"})
            emu.frameadvance(); emu.frameadvance()
            assert(memory.read_u8(0x300) == 4, memory.read_u8(0x300))
            cheats.clear()
            -- Conditions run the next cheat only when they hold.
            memory.write_u8(0x302, 7)
            cheats.add_ram({address = 0x302, value = 7, type = "if_equal"})
            cheats.add_ram({address = 0x303, value = 1})
            cheats.add_ram({address = 0x302, value = 9, type = "if_equal"})
            cheats.add_ram({address = 0x304, value = 1})
            -- RetroArch's if_less runs the next cheat when value < memory.
            cheats.add_ram({address = 0x302, value = 5, type = "if_less"})
            cheats.add_ram({address = 0x305, value = 1})
            emu.frameadvance()
            assert(memory.read_u8(0x303) == 1 and memory.read_u8(0x304) == 0 and memory.read_u8(0x305) == 1)
            cheats.clear()
            -- 16-bit big-endian, three iterations, value +1 and one value (2 bytes) further each time.
            cheats.add_ram({address = 0x310, value = 0x1234, size = 16, big_endian = true,
                            repeat_count = 3, repeat_value_step = 1, repeat_address_step = 1})
            -- 4-bit: only the high nibble, value given at the mask's bit positions.
            memory.write_u8(0x320, 0x05)
            cheats.add_ram({address = 0x320, value = 0xA0, size = 4, mask = 0xF0})
            emu.frameadvance()
            assert(memory.read_bytes(0x310, 6) == "\\x12\\x34\\x12\\x35\\x12\\x36", "repeats")
            assert(memory.read_u8(0x320) == 0xA5, string.format("%02x", memory.read_u8(0x320)))
            local list = cheats.list()
            assert(#list == 2 and list[1].size == 16 and list[1].big_endian and list[2].mask == 0xF0 and list[2].type \
            == "set")
            assert(cheats.remove(list[1].id) and #cheats.list() == 1)
            print("ok")
            """, frames: 20)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
    }

    func testMoviesWarnWhenCheatsAreOn() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try lua(
            """
            cheats.add_ram({address = 0x300, value = 1})
            assert(movie.record("\(folder)/c.rlm"))
            emu.frameadvance()
            assert(movie.stop())
            """, frames: 3)
        XCTAssertTrue(
            harness.errors.contains("movie: 1 cheat is on; the movie replays only with the same cheats"), harness.errors
        )
        harness.close()
    }

    /// A memory write is not input: a movie recorded around one says so once (its replay goes elsewhere).
    func testMoviesWarnOnceOfAMemoryWriteWhileRecording() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try lua(
            """
            memory.write_u8(0x300, 1)  -- before recording: nothing to say
            assert(movie.record("\(folder)/w.rlm"))
            emu.frameadvance()
            assert(not pcall(memory.write_u8, 0x7fffffff, 1))  -- refused: not a write
            memory.write_u8(0x300, 2)
            memory.write_bytes(0x301, "ab")
            emu.frameadvance()
            assert(movie.stop())
            assert(movie.record("\(folder)/w2.rlm"))
            memory.write_u8(0x300, 3)
            assert(movie.stop())
            """, frames: 4)
        let told = harness.errors.components(separatedBy: "memory was written while recording").count - 1
        XCTAssertEqual(told, 2, harness.errors)
        harness.close()
    }

    func testCheatErrors() throws {
        let harness = try lua(
            """
            local function message(f) local ok, m = pcall(f); assert(not ok); return m end
            print(message(function() cheats.add_ram({value = 1}) end))
            print(message(function() cheats.add_ram({address = 1, value = 1, size = 12}) end))
            print(message(function() cheats.add_ram({address = 1, value = 1, type = "freeze"}) end))
            print(message(function() cheats.search("bigger", 1) end))
            print(message(function() cheats.search("equal", 1) end))
            print(select(2, cheats.load("/nonexistent.cht")))
            """, frames: 0)
        XCTAssertEqual(
            harness.lines,
            [
                "cheats.add_ram: bad field 'address' in argument #1 (is required)",
                "cheats.add_ram: bad field 'size' in argument #1 (must be 1, 2, 4, 8, 16 or 32 (bits))",
                """
                cheats.add_ram: bad field 'type' in argument #1 (unknown type 'freeze'; types are set, increase, \
                decrease, if_equal, if_not_equal, if_less, if_greater)
                """,
                """
                cheats.search: bad argument #1 'comparison' (unknown comparison 'bigger'; one of equal, \
                not_equal, less, greater, less_equal, greater_equal, changed, unchanged, increased, decreased, \
                increased_by, decreased_by)
                """,
                "cheats.search: no search started (call cheats.search_start first)",
                "/nonexistent.cht: no such cheat file\tfailed",
            ])
        harness.close()
    }

    /// A 6-letter NES Game Genie code writing `value` at `address` (from the documented letter layout).
    private func gameGenie(address: Int, value: Int) -> String {
        let a = address - 0x8000
        let n = [
            (value & 7) | ((value >> 4) & 8), ((value >> 4) & 7) | ((a >> 4) & 8), (a >> 4) & 7,
            ((a >> 12) & 7) | (a & 8), (a & 7) | ((a >> 8) & 8), ((a >> 8) & 7) | (value & 8),
        ]
        let letters = Array("APZLGITYEOXUKSVN")
        return String(n.map { letters[$0] })
    }

    func testCoreCodesChangeTheGame() throws {
        // The demo's "inc player_x" (E6 03) sits at $C0E1; Game Genie turns it into "dec" (C6).
        let rom = try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM))
        XCTAssertEqual(Array(rom[16 + 0xE1...16 + 0xE2]), [0xE6, 0x03], "the demo's code moved: update the address")
        let code = gameGenie(address: 0xC0E1, value: 0xC6)
        let nes = try lua(
            """
            for _ = 1, 10 do emu.frameadvance() end
            local x = memory.read_u8(3)
            local id = cheats.add_code("\(code)", {description = "right moves left"})
            for _ = 1, 10 do joypad.set(1, {right = true}); emu.frameadvance() end
            print(x - memory.read_u8(3))
            cheats.enable(id, false)
            for _ = 1, 10 do joypad.set(1, {right = true}); emu.frameadvance() end
            print(x - memory.read_u8(3))
            """, frames: 40)
        XCTAssertEqual(nes.lines, ["10", "0"], "with the code right moves left; without it, back to normal")
        nes.close()

        // Gambatte's GameShark codes write RAM: 01 VV LLHH sets $HHLL to VV every frame.
        let gb = try lua(
            """
            cheats.add_code("012A05C0")
            for _ = 1, 5 do emu.frameadvance() end
            print(memory.read_u8(0xC005, "bus"))
            """, frames: 10, rom: Fixtures.gbROM, core: "gambatte")
        XCTAssertEqual(gb.lines, ["42"])
        gb.close()
    }

    func testCheatFilesRoundTripAndRetroArchFilesLoad() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        cheats = "3"

        cheat0_desc = "Infinite lives"
        cheat0_code = "SXIOPO"
        cheat0_enable = "false"

        cheat1_desc = "Max A"
        cheat1_code = ""
        cheat1_enable = "true"
        cheat1_handler = "1"
        cheat1_memory_search_size = "3"
        cheat1_cheat_type = "1"
        cheat1_value = "99"
        cheat1_address = "5"
        cheat1_address_bit_position = "255"
        cheat1_big_endian = "false"
        cheat1_repeat_count = "1"
        cheat1_repeat_add_to_value = "0"
        cheat1_repeat_add_to_address = "1"
        cheat1_rumble_type = "0"
        cheat1_rumble_port = "0"

        cheat2_desc = old style
        cheat2_code = 0123:45
        cheat2_enable = true
        """.write(toFile: folder + "/game.cht", atomically: true, encoding: .utf8)
        let harness = try lua(
            """
            assert(cheats.load("\(folder)/game.cht") == 3)
            local list = cheats.list()
            assert(list[1].code == "SXIOPO" and not list[1].enabled)
            assert(list[2].address == 5 and list[2].value == 99 and list[2].enabled and list[2].description == "Max A")
            assert(list[3].code == "0123:45" and list[3].enabled and list[3].description == "old style")
            emu.frameadvance()
            assert(memory.read_u8(5) == 99)
            assert(cheats.save("\(folder)/saved.cht"))
            cheats.clear()
            assert(cheats.load("\(folder)/saved.cht") == 3)
            assert(cheats.load("\(folder)/game.cht", {append = true}) == 3 and #cheats.list() == 6)
            local f = io.open("\(folder)/bad.cht", "w"); f:write("cheats = 1\\ncheat0_handler = \
            1\\ncheat0_memory_search_size = 9\\n"); f:close()
            local ok, why = cheats.load("\(folder)/bad.cht")
            assert(ok == nil and why:find("memory_search_size must be 0…5") and #cheats.list() == 6, why)
            print("ok")
            """, frames: 5)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
        let saved = try String(contentsOfFile: folder + "/saved.cht", encoding: .utf8)
        XCTAssertTrue(saved.contains("cheat1_rumble_type = \"0\""), "rumble keys are kept")
        XCTAssertTrue(saved.contains("cheat1_handler = \"1\"") && saved.contains("cheat0_code = \"SXIOPO\""), saved)
        XCTAssertEqual(try CheatFile.parse(saved, name: "saved").count, 3)
    }

    func testRAMSearchFindsTheACounter() throws {
        let harness = try lua(
            """
            for _ = 1, 5 do emu.frameadvance() end
            local all = cheats.search_start()
            assert(all == 2048, all)
            local function press_a() joypad.set(1, {a = true}); emu.frameadvance(); emu.frameadvance() end
            -- A press adds one to the counter; nothing else changes it while the game waits.
            local function narrow_to_the_counter()
              for _ = 1, 3 do
                press_a()
                cheats.search("increased_by", 1)
                for _ = 1, 7 do emu.frameadvance() end
                cheats.search("unchanged")
              end
            end
            narrow_to_the_counter()
            cheats.search("equal", 3)
            local results = cheats.search_results()
            assert(cheats.search_count() == #results)
            for _, r in ipairs(results) do print(string.format("%s %d %d %d", r.domain, r.address, r.value, \
            r.previous)) end
            -- Every domain at once: the counter is found in system_ram (and nowhere else changes this way).
            for _ = 1, 5 do emu.frameadvance() end
            print(cheats.search_start({domain = "all"}) > 2048)
            narrow_to_the_counter()
            for _, r in ipairs(cheats.search_results()) do print(r.domain, r.address) end
            -- 1-bit values: the B flag ($06 is 1 while B is held) in bit 0 of its byte.
            cheats.search_start({size = 1})
            joypad.set(1, {b = true}); emu.frameadvance()
            cheats.search("equal", 1)
            emu.frameadvance()
            cheats.search("equal", 0)
            joypad.set(1, {b = true}); emu.frameadvance()
            cheats.search("increased_by", 1)
            local found = false
            for _, r in ipairs(cheats.search_results(1000)) do
              if r.address == 6 and r.mask == 1 then found = true end
            end
            print("bit", found)
            """, frames: 140)
        XCTAssertEqual(harness.lines, ["system_ram 5 3 3", "true", "system_ram\t5", "bit\ttrue"])
        harness.close()
    }

    func testHardcoreModeRefusesWhatItForbids() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try lua(
            """
            local state = savestate.create()
            assert(savestate.save(1))
            local history = rewind.new()
            history:push()
            local cheat = cheats.add_ram({address = 5, value = 9})
            assert(movie.record("\(folder)/m.rlm", {from = "now"}) and movie.stop())
            assert(emu.hardcore(true) == true)
            assert(not cheats.list()[1].enabled, "turning hardcore on disables cheats")
            local function refused(what, ok, message)
              assert(ok == nil and message:find("not allowed in hardcore mode"), what .. ": " .. tostring(message))
            end
            refused("load", savestate.load(1))
            refused("state", state:load())
            refused("rewind", history:step())
            refused("cheat", cheats.add_ram({address = 5, value = 1}))
            refused("enable", cheats.enable(cheat, true))
            refused("write", memory.write_u8(5, 1))
            refused("bytes", memory.write_bytes(5, "x"))
            refused("joypad", joypad.set(1, {a = true}))
            refused("slow", emu.speed(0.5))
            refused("movie", movie.play("\(folder)/m.rlm"))
            assert(emu.speed(0) == 0 and emu.speed(1) == 1, "fast-forward stays allowed")
            assert(savestate.save(2), "saving states is allowed")
            emu.frameadvance()
            assert(emu.hardcore(false) == false)
            assert(memory.write_u8(5, 1) == nil and memory.read_u8(5) == 1)
            assert(state:load())
            print("ok")
            """, frames: 5)
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
    }
}
