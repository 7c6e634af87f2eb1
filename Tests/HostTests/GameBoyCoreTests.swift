@testable import Emulation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro

/// The homebrew Game Boy ROM on gambatte and mGBA; RAM layout in examples/roms/gb/README.md.
final class GameBoyCoreTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// WRAM at $C000: gambatte exposes it as system RAM, Debian's mGBA only through its memory map.
    private func wram(_ session: Session) throws -> [UInt8] {
        let domains = session.core.memoryDomains()
        let domain = try XCTUnwrap(
            domains.first { $0.name == "system_ram" } ?? domains.first { $0.busAddress == 0xC000 },
            "no domain covers $C000: \(domains.map(\.name))")
        return Array(UnsafeRawBufferPointer(start: domain.pointer, count: min(domain.size, 0x100)))
    }

    private func exercise(core: String, lightGrey: UInt32) throws {
        let session = try Fixtures.session(rom: Fixtures.gbROM, core: core)
        defer { try? session.close() }
        XCTAssertEqual(session.core.systemInfo.validExtensions.contains("gb"), true)
        session.run(10)
        var ram = try wram(session)
        let counter = Int(ram[0]) | Int(ram[1]) << 8
        XCTAssertEqual(ram[3], 80)
        XCTAssertEqual(ram[4], 72)
        session.run(10, holding: [.right])
        session.run(4, holding: [.up])
        for _ in 0..<3 {
            session.run(1, holding: [.a])
            session.run(1)
        }
        session.run(1, holding: [.b])
        ram = try wram(session)
        XCTAssertEqual(Int(ram[0]) | Int(ram[1]) << 8, counter + 21, "one game frame per retro_run")
        XCTAssertEqual(ram[3], 90)
        XCTAssertEqual(ram[4], 68)
        XCTAssertEqual(ram[5], 3)
        XCTAssertEqual(ram[6], 1)
        XCTAssertEqual(ram[2], 0b0010_0000, "B in the Game Boy joypad byte")

        let frame = try XCTUnwrap(Emulator(session: session).runFrames(limit: 1).lastFrame)
        XCTAssertEqual(frame.format, .rgb565)
        XCTAssertEqual(frame.width, 160)
        XCTAssertEqual(frame.height, 144)
        // The background is BG colour 1 (light grey); the sprite (colour 3) is black.
        XCTAssertEqual(frame.rgb(x: 2, y: 2), lightGrey)
        XCTAssertEqual(frame.rgb(x: Int(ram[3]) + 3, y: Int(ram[4]) + 3), 0x000000)
    }

    // Each core has its own DMG palette for shade 1 (both RGB565 greys).
    func testGambatte() throws { try exercise(core: "gambatte", lightGrey: 0xA5A2A5) }

    func testMGBA() throws { try exercise(core: "mgba", lightGrey: 0xADAAAD) }

    func testGameBoyContentPicksAGameBoyCore() throws {
        let session = try Fixtures.session(rom: Fixtures.gbROM)
        defer { try? session.close() }
        XCTAssertTrue(["gambatte", "mgba"].contains(session.coreName))
    }
}
