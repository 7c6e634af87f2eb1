import CLibretro
import Foundation
import XCTest
@testable import Libretro

/// libretro.h's descriptor rules on its own sample descriptors (SNES WRAM and mirrors, LoROM), on what
/// real cores send (gambatte's open-bus cartridge RAM, mGBA's 127-byte HRAM), and on nonsense.
final class MemoryMapTests: XCTestCase {
    private let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
    override func tearDown() { block.deallocate() }

    private func map(_ descriptors: [MemoryDescriptor], problems: UnsafeMutablePointer<[String]>? = nil) -> MemoryMap {
        MemoryMap(addressSpace: "", descriptors: descriptors, source: .core) { problems?.pointee.append($0) }
    }

    private func offset(_ map: MemoryMap, _ address: Int) -> Int? { map.locate(address).map(\.offset) }

    func testSNESWorkRAMThroughSelectAndDisconnectMirrors() {
        // snes9x: WRAM at $7E0000 (select 0xFE0000, len 0) and mirrored at $00-3F/$80-BF:0000-1FFF.
        let snes = map([
            MemoryDescriptor(pointer: block, start: 0x7E0000, select: 0xFE0000, disconnect: 0xFE0000, length: 0),
            MemoryDescriptor(pointer: block, start: 0, select: 0x40E000, disconnect: 0xFF0000, length: 0),
        ])
        XCTAssertEqual(snes.size, 0x1000000)
        XCTAssertEqual(snes.entries[0].length, 0x20000, "len 0: as large as select allows")
        XCTAssertEqual(snes.entries[1].length, 0x2000)
        XCTAssertEqual(offset(snes, 0x7E0000), 0)
        XCTAssertEqual(offset(snes, 0x7FFFFF), 0x1FFFF)
        for bank in [0x00, 0x01, 0x3F, 0x80, 0xBF] {
            XCTAssertEqual(offset(snes, bank << 16 | 0x1234), 0x1234, "bank \(bank)")
        }
        XCTAssertNil(snes.locate(0x002000), "$2000 is not WRAM")
        XCTAssertNil(snes.locate(0x401234), "bank $40 is not a mirror")
        XCTAssertNil(snes.locate(0x1000000))
        XCTAssertNil(snes.locate(-1))
        XCTAssertNil(snes.locate(Int.max))
    }

    func testLoROMRemovesDisconnectedBitsAndMirrorsByLength() {
        // libretro.h's LoROM sample: 512 KiB in the upper halves of banks $00-3F.
        let rom = map([
            MemoryDescriptor(
                flags: UInt64(RETRO_MEMDESC_CONST), pointer: block, start: 0x008000, select: 0x408000,
                disconnect: 0x8000, length: 512 * 1024)
        ])
        XCTAssertEqual(offset(rom, 0x008000), 0)
        XCTAssertEqual(offset(rom, 0x018000), 0x8000, "bit 15 is removed, the bank bits shift down")
        XCTAssertEqual(offset(rom, 0x0FFFFF), 0x7FFFF)
        XCTAssertEqual(offset(rom, 0x108000), 0, "past 512 KiB: the highest bit is cleared")
        XCTAssertNil(rom.locate(0x000000))
        XCTAssertFalse(rom.entries[0].writable)
    }

    func testLengthThatIsNotAPowerOfTwoClearsHighBitsAsTheHeaderSays() {
        // The header's own example: len 0x1800, offset 0x1C00 clears 0x1000 first.
        let odd = map([MemoryDescriptor(pointer: block, start: 0, select: 0xE000, length: 0x1800)])
        XCTAssertEqual(offset(odd, 0x1C00), 0x0C00)
        XCTAssertEqual(offset(odd, 0x17FF), 0x17FF)
    }

    func testSelectZeroMapsExactlyOnceEvenWithAnOddLength() {
        // gambatte's OAM: 0xA0 bytes at $FE00, select 0.
        let oam = map([
            MemoryDescriptor(pointer: block, start: 0xFE00, length: 0xA0),
            MemoryDescriptor(pointer: block + 0x1000, start: 0xC000, length: 0x1000),
        ])
        XCTAssertEqual(oam.size, 0x10000)
        XCTAssertEqual(offset(oam, 0xFE9F), 0x9F)
        XCTAssertNil(oam.locate(0xFEA0))
        XCTAssertNil(oam.locate(0xFDFF))
        XCTAssertEqual(offset(oam, 0xCFFF), 0xFFF)
        XCTAssertNil(oam.locate(0xD000))
    }

    func testTheFirstDescriptorClaimsAndANullOneIsOpenBus() {
        // gambatte: no cartridge RAM at $A000-$BFFF (ptr NULL, select with every high bit set).
        let bus = map([
            MemoryDescriptor(pointer: nil, start: 0xA000, select: -0x2000, length: 0),
            MemoryDescriptor(pointer: block, start: 0x8000, select: 0xC000, length: 0x4000),
        ])
        XCTAssertEqual(bus.size, 0x10000, "a select whose high bits are all set does not make the space 2^64")
        XCTAssertNil(bus.locate(0xA000), "claimed by the open-bus descriptor first")
        XCTAssertEqual(offset(bus, 0x8000), 0)
        XCTAssertEqual(offset(bus, 0x9FFF), 0x1FFF)
        XCTAssertNil(bus.locate(0xBFFF))
    }

    func testAddressSpacesAndBadDescriptors() {
        var problems: [String] = []
        let bad = map(
            [
                MemoryDescriptor(pointer: block, start: 0x100, length: 0),  // select and len both 0
                MemoryDescriptor(pointer: block, start: 0x8001, select: 0x8000, length: 16),  // start outside select
                MemoryDescriptor(pointer: block, start: 0x4000, select: 0xC000, length: 1 << 40),  // too large
                MemoryDescriptor(pointer: block, start: 0, select: 0xC000, length: 0x100),
            ], problems: &problems)
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertEqual(bad.entries.count, 2)
        XCTAssertNil(bad.locate(0x4000), "a block too large to be true is open bus")
        XCTAssertEqual(offset(bad, 0x3FFF), 0xFF)
    }

    func testUnreadableBlockBecomesOpenBus() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let guarded = mmap(nil, page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(guarded, page * 2) }
        mprotect(guarded + page, page, PROT_NONE)
        var problems: [String] = []
        let short = map([MemoryDescriptor(pointer: guarded, start: 0, length: page * 2)], problems: &problems)
        XCTAssertNil(short.locate(0))
        XCTAssertTrue(problems.first?.contains("not readable memory") == true, "\(problems)")
    }
}
