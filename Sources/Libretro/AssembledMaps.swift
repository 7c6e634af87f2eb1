import CLibretro

/// Address spaces for cores that send no memory map: the regions the core exposes placed where the
/// system's documentation puts them, with the mirrors the hardware's address decoding makes (as
/// libretro.h `select` masks). Only what the core gives is mapped; the rest is open bus. For cores that
/// do send a map, `mirrors(for:in:)` adds the mirrors such maps leave out.
///
/// The layouts (each from the system's memory map):
/// - NES: 2 KiB work RAM at $0000, mirrored to $1FFF; cartridge RAM at $6000; NROM's PRG ROM at $8000.
/// - Game Boy: work RAM at $C000 with its echo at $E000-$FDFF; video RAM at $8000; cartridge RAM at
///   $A000; ROM bank 0 at $0000.
/// - SNES: 128 KiB WRAM at $7E0000-$7FFFFF; its first 8 KiB also at $0000-$1FFF of banks $00-$3F and
///   $80-$BF (24-bit bus).
/// - PC Engine (physical 21-bit addresses, as mednafen numbers them): 8 KiB work RAM in bank $F8
///   ($1F0000), mirrored in banks $F9-$FB (SuperGrafx, `.sgx`: 32 KiB over $F8-$FB); backup RAM at bank
///   $F7 ($1EE000); a HuCard of a power-of-two size up to 1 MiB at $000000, mirrored to $0FFFFF.
/// - Game Boy Advance: 256 KiB EWRAM at $02000000, mirrored every 256 KiB to $02FFFFFF; video RAM at
///   $06000000. IWRAM ($03000000) is not a libretro region: a core without a map does not expose it.
/// - Genesis / Mega Drive: 64 KiB 68000 RAM at $FF0000, mirrored over $E00000-$FFFFFF; a cartridge of
///   up to 4 MiB with a `SEGA` header at $000000. The cores keep the RAM as 16-bit words in host order
///   (little-endian), so the bus swaps each pair of bytes back to the 68000's big-endian order.
/// - Atari 2600 (13 address lines, seen over 64 KiB): the RIOT's 128 bytes of RAM at $80-$FF, selected
///   by A12=0, A9=0, A7=1 (so also at $180, $2080, …); a 2 or 4 KiB cartridge wherever A12=1.
public enum AssembledMaps {
    /// The systems with a documented layout, told apart by content extension, or by the core's system
    /// name when the extension says nothing (`.bin`, none).
    public enum System: Sendable, Equatable {
        case nes, gameBoy, snes, pcEngine, superGrafx, gba, genesis, atari2600

        static let byExtension: [String: System] = [
            "nes": .nes, "fds": .nes, "unf": .nes, "unif": .nes,
            "gb": .gameBoy, "gbc": .gameBoy, "dmg": .gameBoy, "cgb": .gameBoy, "sgb": .gameBoy,
            "sfc": .snes, "smc": .snes, "swc": .snes, "fig": .snes,
            "pce": .pcEngine, "sgx": .superGrafx,
            "gba": .gba, "agb": .gba,
            "md": .genesis, "gen": .genesis, "smd": .genesis, "68k": .genesis, "sgd": .genesis, "mdx": .genesis,
            "a26": .atari2600,
        ]
        /// `systemname` from a core's `.info`, exactly (a core of several systems names none of these).
        static let byName: [String: System] = [
            "Nintendo Entertainment System": .nes, "Game Boy/Game Boy Color": .gameBoy, "Game Boy": .gameBoy,
            "Super Nintendo Entertainment System": .snes, "PC Engine SuperGrafx": .superGrafx,
            "Game Boy Advance": .gba, "Sega Genesis": .genesis, "Sega Mega Drive - Genesis": .genesis,
            "Atari 2600": .atari2600,
        ]

        public init?(extension ext: String?, systemName: String?) {
            let ext = ext?.lowercased() ?? ""
            if let system = Self.byExtension[ext] {
                self = system
            } else if ["", "bin", "rom"].contains(ext), let name = systemName, let system = Self.byName[name] {
                // Never a disc system's: its content is an image of hundreds of megabytes.
                self = system
            } else {
                return nil
            }
        }

        /// The CPU's address space: addresses 0...mask.
        var addressMask: Int {
            switch self {
            case .nes, .gameBoy, .atari2600: return 0xFFFF
            case .snes, .genesis: return 0xFF_FFFF
            case .pcEngine, .superGrafx: return 0x1F_FFFF
            case .gba: return 0x0FFF_FFFF
            }
        }

        /// The most system RAM the console has, where a core is known to report more: mGBA 0.7 gives a
        /// Game Boy's work RAM (32 KiB on a Color, 8 KiB before) with the GBA's size, 256 KiB, and the bytes
        /// past the console's are nobody's (never initialised, different each run).
        public var systemRAMLimit: Int? {
            self == .gameBoy ? 0x8000 : nil
        }

        /// The console's whole picture, where cores show less of it: NES cores hide the overscan, 8 lines
        /// at the top and bottom of 240 by default (nestopia's `nestopia_overscan_v`; `_h` also 8 columns).
        public var fullPicture: (width: Int, height: Int)? {
            self == .nes ? (256, 240) : nil
        }

        /// What a core's `width`×`height` picture leaves out of the console's, split evenly between the edges
        /// (zero where the console's picture is not known or not cut).
        public func crop(width: Int, height: Int) -> (top: Int, bottom: Int, left: Int, right: Int) {
            guard let full = fullPicture, width > 0, height > 0, width <= full.width, height <= full.height else {
                return (0, 0, 0, 0)
            }
            let rows = full.height - height, columns = full.width - width
            return (rows / 2, rows - rows / 2, columns / 2, columns - columns / 2)
        }
    }

    /// A flag of Retrolua's own (above libretro's) on assembled descriptors: the block holds 16-bit
    /// words in host byte order, so the bus reads byte `n` of it at `n ^ 1`. Honoured on assembled maps
    /// only (a core's map cannot ask for it).
    public static let hostOrderWords: UInt64 = 1 << 48

    /// Cartridge ROM whose place on the bus never changes, copied out of the content: an NROM (mapper 0)
    /// NES game's PRG ROM at $8000-$FFFF (16 KiB mirrored), a Game Boy cartridge's bank 0 at $0000-$3FFF.
    /// Banked ROM is left out: which bank is in is the core's, and libretro does not say.
    public final class FixedROM: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
        /// Where the bytes sit on the bus, and the address bits that select them (0: exactly once).
        let start: Int
        let select: Int

        init(_ source: ArraySlice<UInt8>, repeatedTo length: Int, at start: Int, select: Int = 0) {
            self.start = start
            self.select = select
            bytes = .allocate(byteCount: length, alignment: 16)
            for offset in stride(from: 0, to: length, by: source.count) {
                UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + source.count]).copyBytes(from: source)
            }
        }

        deinit { bytes.deallocate() }

        /// The fixed ROM of `content` for `system`, or nil (another mapper, a short or headerless file).
        public static func of(_ content: [UInt8], system: System) -> FixedROM? {
            switch system {
            case .nes:
                guard content.count >= 16, content.starts(with: [0x4E, 0x45, 0x53, 0x1A]) else { return nil }
                let mapper = (content[6] >> 4) | (content[7] & 0xF0), banks = Int(content[4])
                let start = 16 + (content[6] & 0x04 != 0 ? 512 : 0)  // a 512-byte trainer comes first
                guard mapper == 0, banks == 1 || banks == 2, content.count >= start + banks * 0x4000 else { return nil }
                return FixedROM(content[start..<start + banks * 0x4000], repeatedTo: 0x8000, at: 0x8000)
            case .gameBoy:
                guard content.count >= 0x8000 else { return nil }
                return FixedROM(content[0..<0x4000], repeatedTo: 0x4000, at: 0)
            case .pcEngine, .superGrafx:
                // A 512-byte copier header before the 8 KiB banks is skipped.
                let header = content.count % 0x2000 == 512 ? 512 : 0
                let size = content.count - header
                guard size >= 0x2000, size <= 0x10_0000, size & (size - 1) == 0 else { return nil }
                return FixedROM(content[header...], repeatedTo: size, at: 0, select: 0x10_0000)
            case .genesis:
                let header = content.count >= 0x200 ? String(decoding: content[0x100..<0x110], as: UTF8.self) : ""
                guard header.contains("SEGA"), content.count <= 0x40_0000 else { return nil }
                return FixedROM(content[...], repeatedTo: content.count, at: 0)
            case .atari2600:
                guard content.count == 0x800 || content.count == 0x1000 else { return nil }
                return FixedROM(content[...], repeatedTo: 0x1000, at: 0x1000, select: 0x1000)
            case .snes, .gba:
                // Where the cartridge sits depends on its board (LoROM, HiROM, …) or on its size: left out.
                return nil
            }
        }
    }

    /// One region the core exposes: its memory and size.
    public typealias Region = (pointer: UnsafeMutableRawPointer, size: Int)

    /// The assembled bus, or nil when the layout would map nothing the core exposes.
    public static func bus(for system: System, core: Core, rom: FixedROM? = nil) -> MemoryMap? {
        bus(
            for: system, systemRAM: core.memoryRegion(.systemRAM), saveRAM: core.memoryRegion(.saveRAM),
            videoRAM: core.memoryRegion(.videoRAM), rom: rom)
    }

    /// The assembled bus from the regions themselves (the type's comment gives each layout).
    public static func bus(
        for system: System, systemRAM ram: Region?, saveRAM save: Region?, videoRAM video: Region?,
        rom: FixedROM? = nil
    ) -> MemoryMap? {
        var descriptors: [MemoryDescriptor] = []
        let systemRAM = UInt64(RETRO_MEMDESC_SYSTEM_RAM), saveRAM = UInt64(RETRO_MEMDESC_SAVE_RAM)
        let videoRAM = UInt64(RETRO_MEMDESC_VIDEO_RAM), bigEndian = UInt64(RETRO_MEMDESC_BIGENDIAN)
        func place(
            _ region: Region?, flags: UInt64, at start: Int, select: Int = 0, length: Int
        ) {
            // An empty block is left out: a descriptor of length 0 would claim as much as its select allows.
            guard let region, min(region.size, length) > 0 else { return }
            descriptors.append(
                MemoryDescriptor(
                    flags: flags, pointer: region.pointer, start: start, select: select,
                    length: min(region.size, length)))
        }
        switch system {
        case .nes:
            place(ram, flags: systemRAM, at: 0, select: 0xE000, length: 0x800)
            place(save, flags: saveRAM, at: 0x6000, select: 0xE000, length: 0x2000)
        case .gameBoy:
            place(ram, flags: systemRAM, at: 0xC000, select: 0xE000, length: 0x2000)
            place(ram, flags: systemRAM, at: 0xE000, length: 0x1E00)
            place(video, flags: videoRAM, at: 0x8000, length: 0x2000)
            place(save, flags: saveRAM, at: 0xA000, select: 0xE000, length: 0x2000)
        case .snes:
            place(ram, flags: systemRAM, at: 0x7E_0000, select: 0xFE_0000, length: 0x2_0000)
            place(ram, flags: systemRAM, at: 0, select: 0x40_E000, length: 0x2000)
        case .pcEngine, .superGrafx:
            place(
                ram, flags: systemRAM, at: 0x1F_0000, select: 0x1F_8000, length: system == .pcEngine ? 0x2000 : 0x8000)
            place(save, flags: saveRAM, at: 0x1E_E000, length: 0x800)
        case .gba:
            place(ram, flags: systemRAM, at: 0x0200_0000, select: 0x0F00_0000, length: 0x4_0000)
            place(video, flags: videoRAM, at: 0x0600_0000, length: 0x1_8000)
        case .genesis:
            // Whole words only: an odd size would leave a byte whose partner is outside the block.
            place(
                ram.map { ($0.pointer, $0.size & ~1) }, flags: systemRAM | bigEndian | hostOrderWords,
                at: 0xE0_0000, select: 0xE0_0000, length: 0x1_0000)
        case .atari2600:
            place(ram, flags: systemRAM, at: 0x80, select: 0x1280, length: 0x80)
        }
        if let rom, let pointer = rom.bytes.baseAddress {
            place(
                (pointer, rom.bytes.count), flags: UInt64(RETRO_MEMDESC_CONST) | (system == .genesis ? bigEndian : 0),
                at: rom.start, select: rom.select, length: rom.bytes.count)
        }
        guard !descriptors.isEmpty else { return nil }
        // The whole address space (libretro.h's "clarify the size" descriptor).
        descriptors.append(MemoryDescriptor(pointer: nil, start: 0, select: system.addressMask, length: 0))
        return MemoryMap(addressSpace: "", descriptors: descriptors, source: .assembled)
    }

    /// Mirrors the hardware makes that cores' maps leave out: (first address, bytes, the address they
    /// repeat). fceumm maps NES work RAM at $0000-$07FF only; gambatte and mGBA map Game Boy work RAM
    /// without its echo at $E000-$FDFF.
    static func omittedMirrors(_ system: System) -> [(from: Int, count: Int, to: Int)] {
        switch system {
        case .nes: return [(0x0800, 0x800, 0), (0x1000, 0x800, 0), (0x1800, 0x800, 0)]
        case .gameBoy: return [(0xE000, 0x1E00, 0xC000)]
        default: return []
        }
    }

    /// Descriptors for the mirrors `map` (a core's main address space) leaves out: each address of a
    /// mirror that no descriptor of the map claims gets the byte the map has at the address it repeats,
    /// in runs that follow one block. Empty when the map covers them (or has nothing to repeat).
    public static func mirrors(for system: System, in map: MemoryMap) -> [MemoryDescriptor] {
        func claimed(_ address: Int) -> Bool { map.entries.contains { $0.claims(UInt(address)) } }
        var descriptors: [MemoryDescriptor] = []
        for mirror in omittedMirrors(system) {
            var index = 0
            while index < mirror.count {
                let address = mirror.from + index
                guard address < map.size, !claimed(address), let (entry, offset) = map.locate(mirror.to + index),
                    let base = map.entries[entry].base
                else {
                    index += 1
                    continue
                }
                var run = 1
                while index + run < mirror.count, mirror.from + index + run < map.size,
                    !claimed(mirror.from + index + run), let next = map.locate(mirror.to + index + run),
                    next.entry == entry, next.offset == offset + run
                {
                    run += 1
                }
                descriptors.append(
                    MemoryDescriptor(
                        flags: map.entries[entry].flags, pointer: base, offset: offset, start: address, length: run))
                index += run
            }
        }
        return descriptors
    }
}
