@testable import Emulation
import Foundation
import Libretro
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// `bus` against the direct domains at mirrored addresses, on real cores: snes9x's memory map (WRAM only
/// through select/disconnect mirrors), fceumm's 1 KiB blocks, gambatte's map, mGBA's map as the default
/// domain, nestopia's assembled bus; and bus addresses no map names.
final class BusDomainTests: XCTestCase {
    private static let cores = Fixtures.root + "/build/cores/"

    private func harness(rom: String, core: String) throws -> ScriptHarness {
        for path in [rom, core] where path.hasPrefix("/") && !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("\(path) is missing (scripts/setup)")
        }
        return try ScriptHarness(rom: rom, core: core)
    }

    /// Runs `checks` (Lua that prints "ok" lines or raises) after a few frames; returns what it printed.
    @discardableResult
    private func check(rom: String, core: String, _ checks: String) throws -> String {
        let harness = try harness(rom: rom, core: core)
        defer { harness.close() }
        try harness.load(
            """
            emu.frameadvance()
            local function same(bus, domain, address, count)
              for i = 0, count - 1 do
                local a, b = memory.read_u8(bus + i, "bus"), memory.read_u8(address + i, domain)
                assert(a == b, string.format("bus %X = %d, %s %X = %d", bus + i, a, domain, address + i, b))
              end
            end
            local function refused(address)
              local ok, message = pcall(memory.read_u8, address, "bus")
              assert(not ok and message:find("not mapped in 'bus'"), tostring(message))
            end
            local function source(name)
              for _, d in ipairs(memory.domains()) do if d.name == name then return d.source end end
            end
            \(checks)
            print("done")
            """)
        harness.run(3)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        XCTAssertTrue(harness.output.contains("done"), harness.output + harness.errors)
        return harness.output
    }

    func testSNES9xWorkRAMAndItsMirrors() throws {
        try check(
            rom: Fixtures.root + "/build/roms/demo.sfc", core: Self.cores + "snes9x_libretro.so",
            """
            assert(source("bus") == "map")
            memory.write_u8(0x1234, 0x5A, "system_ram")
            memory.write_u8(0x1FFFF, 0xA5, "system_ram")
            same(0x7E0000, "system_ram", 0, 64)
            same(0x7E1230, "system_ram", 0x1230, 16)
            same(0x7FFFF0, "system_ram", 0x1FFF0, 16)
            for _, bank in ipairs({0x00, 0x3F, 0x80, 0xBF}) do same(bank * 0x10000 + 0x1230, "system_ram", 0x1230, 16) end
            assert(memory.read_u8(0x001234, "bus") == 0x5A)
            memory.write_u8(0x801FFF, 0x77, "bus")
            assert(memory.read_u8(0x1FFF, "system_ram") == 0x77)
            assert(memory.read_u16_le(0x7EFFFF, "bus") == memory.read_u16_le(0xFFFF, "system_ram"))
            assert(not pcall(memory.write_u8, 0x008000, 1, "bus"), "ROM is read-only")
            assert(memory.domains()[#memory.domains()].size == 0x1000000)
            refused(0x1000000); refused(-1); refused(math.maxinteger); refused(math.mininteger)
            assert(#memory.hash("bus") == 40 and #memory.hash("bus", 0x7E0000, 0x20000) == 40)
            """)
    }

    func testFCEUmmMapsRAMAndCartridgeRAMInBlocks() throws {
        try check(
            rom: Fixtures.nesROM, core: Self.cores + "fceumm_libretro.so",
            """
            same(0x0000, "system_ram", 0, 0x800)
            assert(memory.read_u16_le(0x03FF, "bus") == memory.read_u16_le(0x03FF, "system_ram"), "across two blocks")
            refused(0x8000); refused(0x2000)
            assert(#memory.hash("bus") == 40)
            """)
    }

    func testNestopiaGetsAnAssembledBusWithMirrors() throws {
        // The demo is NROM-128: its 16 KiB of PRG ROM at $8000 and again at $C000 (the reset vector's home).
        let rom = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)))
        XCTAssertEqual(rom[4], 1, "one 16 KiB PRG bank")
        try check(
            rom: Fixtures.nesROM, core: "nestopia",
            """
            assert(memory.read_u8(0x8000, "bus") == \(rom[16]) and memory.read_u8(0xC000, "bus") == \(rom[16]))
            assert(memory.read_u16_le(0xFFFC, "bus") == \(Int(rom[16 + 0x3FFC]) | Int(rom[16 + 0x3FFD]) << 8))
            local ok, why = pcall(memory.write_u8, 0x8000, 1, "bus")
            assert(not ok and why:find("read%-only"), why)
            assert(source("bus") == "assembled" and source("system_ram") == "region")
            for _, mirror in ipairs({0x0000, 0x0800, 0x1000, 0x1800}) do same(mirror, "system_ram", 0, 0x800) end
            assert(memory.read_u16_le(0x07FF, "bus") == memory.read_u8(0x7FF, "system_ram") | memory.read_u8(0, "system_ram") << 8)
            memory.write_u16_le(0x0FFF, 0xBEEF, "bus")
            assert(memory.read_u8(0x7FF, "system_ram") == 0xEF and memory.read_u8(0, "system_ram") == 0xBE)
            refused(0x2000); refused(0x5FFF); refused(0x10000)
            assert(#memory.hash("bus") == 40)
            """)
    }

    func testFCEUmmsMapGetsTheWorkRAMMirrorsItLeavesOut() throws {
        try check(
            rom: Fixtures.nesROM, core: Self.cores + "fceumm_libretro.so",
            """
            for _, mirror in ipairs({0x0800, 0x1000, 0x1800}) do same(mirror, "system_ram", 0, 0x800) end
            memory.write_u16_le(0x17FF, 0xBEEF, "bus")
            assert(memory.read_u8(0x7FF, "system_ram") == 0xEF and memory.read_u8(0, "system_ram") == 0xBE)
            assert(source("bus") == "map")
            refused(0x2000)
            """)
    }

    func testGameBoyMapsGetTheEchoRAM() throws {
        for core in ["gambatte", "mgba"] {
            try check(
                rom: Fixtures.gbROM, core: core,
                """
                local ram = source("system_ram") and "system_ram" or "bus_C000"
                memory.write_u8(0xE123, 0x5A, "bus")
                assert(memory.read_u8(0xC123, "bus") == 0x5A, "written through the echo")
                same(0xE000, ram, 0, 0x1000)
                for i = 0, 0xDFF, 0x101 do assert(memory.read_u8(0xF000 + i, "bus") == memory.read_u8(0xD000 + i, "bus")) end
                """)
        }
    }

    func testPCEngineGetsAnAssembledPhysicalBus() throws {
        let rom = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/build/roms/demo.pce")))
        try check(
            rom: Fixtures.root + "/build/roms/demo.pce", core: "mednafen_pce_fast",
            """
            assert(source("bus") == "assembled")
            for _, bank in ipairs({0xF8, 0xF9, 0xFA, 0xFB}) do same(bank * 0x2000, "system_ram", 0, 0x2000) end
            memory.write_u8(0x1F7FFF, 0x77, "bus")
            assert(memory.read_u8(0x1FFF, "system_ram") == 0x77)
            assert(memory.read_u8(0, "bus") == \(rom[0]) and memory.read_u8(0xFE000, "bus") == \(rom[0]), "ROM, mirrored")
            assert(not pcall(memory.write_u8, 0, 1, "bus"), "ROM is read-only")
            assert(#memory.read_bytes(0x1EE000, 0x800, "bus") == 0x800, "backup RAM")
            refused(0x1F8000); refused(0x200000)
            """)
    }

    func testAtari2600RAMIsSelectedByA12A9AndA7() throws {
        let rom = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/build/roms/demo.a26")))
        try check(
            rom: Fixtures.root + "/build/roms/demo.a26", core: Self.cores + "stella_libretro.so",
            """
            for _, mirror in ipairs({0x80, 0x180, 0x480, 0x2080, 0xE180}) do same(mirror, "system_ram", 0, 0x80) end
            memory.write_u8(0x1FF, 0x42, "bus")
            assert(memory.read_u8(0x7F, "system_ram") == 0x42)
            assert(memory.read_u8(0x1000, "bus") == \(rom[0]) and memory.read_u8(0xF000, "bus") == \(rom[0]))
            refused(0x00); refused(0x100); refused(0x280)  -- the TIA, the TIA again, the RIOT's ports
            """)
    }

    func testGenesisRAMReadsInThe68000sByteOrderOverItsMirrors() throws {
        for core in ["genesis_plus_gx", "picodrive"] {
            try check(
                rom: Fixtures.root + "/build/roms/airstriker.md", core: Self.cores + core + "_libretro.so",
                """
                assert(source("bus") == "assembled")
                memory.write_u16_le(0, 0xBEEF, "system_ram")  -- the core's host-order word 0
                assert(memory.read_u8(0xFF0000, "bus") == 0xBE and memory.read_u8(0xFF0001, "bus") == 0xEF)
                assert(memory.read_u16(0xFF0000, "bus") == 0xBEEF and memory.read_u16_be(0xE00000, "bus") == 0xBEEF)
                memory.write_u32_be(0xFFFFFC, 0x12345678, "bus")
                assert(memory.read_u16_le(0xFFFC, "system_ram") == 0x1234 and memory.read_u16_le(0xFFFE, "system_ram") == 0x5678)
                assert(memory.read_bytes(0x100, 4, "bus") == "SEGA" and not pcall(memory.write_u8, 0x100, 1, "bus"))
                assert(#memory.hash("bus", 0xFF0000, 0x10000) == 40)
                refused(0xA00000)
                """)
        }
    }

    /// The layouts for cores that send no map on systems whose tested cores all send one (SNES, GBA),
    /// on blocks of our own; and systems told apart by extension first.
    func testSNESAndGBALayoutsAndSystemDetection() throws {
        let ram = UnsafeMutableRawPointer.allocate(byteCount: 0x4_0000, alignment: 16)
        defer { ram.deallocate() }
        let snes = try XCTUnwrap(AssembledMaps.bus(for: .snes, systemRAM: (ram, 0x2_0000), saveRAM: nil, videoRAM: nil))
        XCTAssertEqual(snes.size, 0x100_0000)
        for (address, offset) in [(0x7E_1234, 0x1234), (0x7F_0000, 0x1_0000), (0x00_1234, 0x1234), (0xBF_1FFF, 0x1FFF)]
        {
            XCTAssertEqual(snes.locate(address)?.offset, offset, String(address, radix: 16))
        }
        for address in [0x40_1234, 0xC0_0000, 0x00_2000, 0x7D_FFFF] {
            XCTAssertNil(snes.locate(address), String(address, radix: 16))
        }
        let gba = try XCTUnwrap(AssembledMaps.bus(for: .gba, systemRAM: (ram, 0x4_0000), saveRAM: nil, videoRAM: nil))
        XCTAssertEqual(gba.locate(0x0200_0010)?.offset, 0x10)
        XCTAssertEqual(gba.locate(0x02FC_0010)?.offset, 0x10)
        XCTAssertNil(gba.locate(0x0300_0000))
        // A region too small for a whole word maps nothing (never a block as large as the select allows).
        XCTAssertNil(AssembledMaps.bus(for: .genesis, systemRAM: (ram, 1), saveRAM: nil, videoRAM: nil))
        typealias System = AssembledMaps.System
        XCTAssertEqual(System(extension: "sfc", systemName: "Super Nintendo Entertainment System"), .snes)
        XCTAssertEqual(System(extension: "bin", systemName: "Atari 2600"), .atari2600)
        XCTAssertEqual(System(extension: "sgx", systemName: nil), .superGrafx)
        XCTAssertEqual(System(extension: "md", systemName: "Sega 8/16-bit (Various)"), .genesis)
        XCTAssertNil(System(extension: "sms", systemName: "Sega 8/16-bit (Various)"))
        XCTAssertNil(System(extension: "chd", systemName: "PC Engine/PCE-CD"), "never a disc image")
    }

    func testGambatteMapAndMGBAsMapAsTheDefaultDomain() throws {
        try check(
            rom: Fixtures.gbROM, core: "gambatte",
            """
            same(0xC000, "system_ram", 0, 0x2000)
            refused(0x10000)
            """)
        let output = try check(
            rom: Fixtures.gbROM, core: "mgba",
            """
            for _, d in ipairs(memory.domains()) do if d.default then print("default " .. d.name) end end
            print("hash " .. memory.hash())
            same(0xC000, "bus_C000", 0, 0x1000)
            """)
        XCTAssertTrue(output.contains("default bus"), output)
    }
}

/// Movie verification on a core without system RAM (mGBA on Game Boy content): the log covers the core's
/// RAM-like memory, the header says so, and a tampered movie is caught.
final class VerificationCoverTests: XCTestCase {
    func testTamperedMovieOnMGBAGameBoyIsCaught() throws {
        try Fixtures.requireROMs()
        let folder = Fixtures.temporaryFolder()
        let movie = folder + "/gb.rlm"
        let recorded = try Fixtures.cli(
            [
                "movie", "record", movie, Fixtures.gbROM, "--core", "mgba", "--headless", "--frames", "90",
                "--verify-log",
            ])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertTrue(
            recorded.stderr.contains("the verification log hashes the core's RAM-like memory"), recorded.stderr)
        var text = try String(contentsOfFile: movie, encoding: .utf8)
        XCTAssertTrue(text.contains("\nverify-covers memory\n"), text)
        let verified = try Fixtures.cli(["movie", "verify", movie, Fixtures.gbROM, "--core", "mgba"])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(
            verified.stdout.contains("in sync") && verified.stdout.contains("RAM-like memory"), verified.stdout)
        // Hold every button on frame 40: the game's RAM (its input byte) changes there.
        var lines = text.components(separatedBy: "\n")
        let input = try XCTUnwrap(lines.firstIndex(of: "[input]"))
        let line = lines[input + 41]
        lines[input + 41] = String(line.prefix(3)) + "UDLRSsYBXA" + String(line.dropFirst(13))
        text = lines.joined(separator: "\n")
        try text.write(toFile: movie, atomically: true, encoding: .utf8)
        let tampered = try Fixtures.cli(["movie", "verify", movie, Fixtures.gbROM, "--core", "mgba"])
        XCTAssertEqual(tampered.status, 1, tampered.stdout + tampered.stderr)
        XCTAssertTrue(tampered.stdout.contains("desync   frame 40"), tampered.stdout)
    }
}

/// Movie verification on mGBA 0.7's GBA content: its system RAM is EWRAM, which our game never touches,
/// so a log of it never changes. The recording falls back to the picture and says so; a tampered movie
/// is caught; a played log that never changes is refused as proving nothing.
final class VacuousVerificationTests: XCTestCase {
    private let core = Fixtures.root + "/build/cores/mgba_libretro.so"
    private let rom = Fixtures.root + "/build/roms/demo.gba"

    private func record(_ folder: String) throws -> (movie: String, stderr: String) {
        for path in [core, rom] where !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("\(path) is missing (scripts/setup)")
        }
        let script = folder + "/drive.lua", movie = folder + "/gba.rlm"
        try "for i = 0, 119 do joypad.set(1, {right = i % 3 == 0, a = i % 4 == 2}); emu.frameadvance() end\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let recorded = try Fixtures.cli(
            ["movie", "record", movie, rom, "--core", core, "--headless", "--script", script, "--verify-log"])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        return (movie, recorded.stderr)
    }

    /// On Game Boy content mGBA 0.7 reports its system RAM with the GBA's size, 256 KiB; past the console's
    /// 32 KiB the bytes are uninitialised, different each run. The log hashes the console's 32 KiB only.
    func testAGameBoysSystemRAMIsHashedToTheConsolesSize() throws {
        let gb = Fixtures.root + "/build/roms/demo.gb"
        for path in [core, gb] where !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("\(path) is missing (scripts/setup)")
        }
        let movie = Fixtures.temporaryFolder() + "/gb.rlm"
        let recorded = try Fixtures.cli(
            ["movie", "record", movie, gb, "--core", core, "--headless", "--frames", "60", "--verify-log"])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertTrue(recorded.stderr.contains("hashes system RAM (32768 bytes)"), recorded.stderr)
        let verified = try Fixtures.cli(["movie", "verify", movie, gb, "--core", core])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("hashing system RAM (32768 bytes)"), verified.stdout)
    }

    func testAnUnchangingRAMLogFallsBackToThePictureAndATamperedMovieIsCaught() throws {
        let folder = Fixtures.temporaryFolder()
        let (movie, stderr) = try record(folder)
        XCTAssertTrue(
            stderr.contains(
                "system RAM (262144 bytes) never changed in the recording's 120 frames, so the verification log "
                    + "hashes the picture instead"), stderr)
        var text = try String(contentsOfFile: movie, encoding: .utf8)
        XCTAssertTrue(text.contains("\nverify-covers frame\n"), text)
        let verified = try Fixtures.cli(["movie", "verify", movie, rom, "--core", core])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(
            verified.stdout.contains(
                "hashing the picture (system RAM (262144 bytes) did not change while the movie was recorded)"),
            verified.stdout)
        // Toggle "right" on frame 60: the picture changes there, EWRAM does not.
        var lines = text.components(separatedBy: "\n")
        let input = try XCTUnwrap(lines.firstIndex(of: "[input]"))
        var line = Array(lines[input + 61])
        line[6] = line[6] == "R" ? "." : "R"
        lines[input + 61] = String(line)
        text = lines.joined(separator: "\n")
        try text.write(toFile: movie, atomically: true, encoding: .utf8)
        let tampered = try Fixtures.cli(["movie", "verify", movie, rom, "--core", core])
        XCTAssertEqual(tampered.status, 1, tampered.stdout + tampered.stderr)
        XCTAssertTrue(tampered.stdout.contains("desync   frame 60 of 120: the picture differs"), tampered.stdout)
    }

    func testAPlayedLogThatNeverChangesIsNotCalledInSync() throws {
        let folder = Fixtures.temporaryFolder()
        let (movie, _) = try record(folder)
        // The log as the recording made it before the fallback: system RAM, one CRC on every frame.
        let converted = folder + "/ram.rlm"
        var lines = try String(contentsOfFile: movie, encoding: .utf8).components(separatedBy: "\n")
        let input = try XCTUnwrap(lines.firstIndex(of: "[input]"))
        for index in lines.indices where index > input && lines[index].count > 9 && lines[index].contains("|") {
            lines[index] = String(lines[index].dropLast(8)) + "0badf00d"
        }
        let cover = try XCTUnwrap(lines.firstIndex(of: "verify-covers frame"))
        lines[cover] = "verify-covers system-ram"
        try lines.joined(separator: "\n").write(toFile: converted, atomically: true, encoding: .utf8)
        let verified = try Fixtures.cli(["movie", "verify", converted, rom, "--core", core])
        XCTAssertEqual(verified.status, 1, verified.stdout + verified.stderr)
        XCTAssertTrue(
            verified.stdout.contains(
                "cannot verify: the movie's verification log hashes system RAM (262144 bytes), which never changed in "
                    + "its 120 frames (every frame logged CRC-32 0badf00d): it cannot tell a tampered movie"),
            verified.stdout)
        // A new log written by a replay falls back the same way.
        let relogged = folder + "/relogged.rlm"
        let convert = try Fixtures.cli(
            ["movie", "convert", converted, relogged, "--rom", rom, "--core", core, "--add-verify"])
        XCTAssertEqual(convert.status, 0, convert.stdout + convert.stderr)
        XCTAssertTrue(try String(contentsOfFile: relogged, encoding: .utf8).contains("\nverify-covers frame\n"))
        let again = try Fixtures.cli(["movie", "verify", relogged, rom, "--core", core])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
    }
}
