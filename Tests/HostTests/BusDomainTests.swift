@testable import Emulation
import Foundation
import XCTest
@testable import Host

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
