import CLibretro

/// Address spaces for cores that send no memory map: the regions the core exposes placed where the
/// system's documentation puts them. Only what the core gives is mapped; the rest is open bus.
public enum AssembledMaps {
    /// The systems with a documented layout, told apart by content extension or the core's system name.
    public enum System: Sendable {
        case nes, gameBoy

        public init?(extension ext: String?, systemName: String?) {
            let ext = ext?.lowercased() ?? ""
            let name = systemName ?? ""
            if ["nes", "fds", "unf", "unif"].contains(ext) || name.contains("Nintendo Entertainment System") {
                self = .nes
            } else if ["gb", "gbc", "dmg", "cgb", "sgb"].contains(ext) || name == "Game Boy/Game Boy Color" {
                self = .gameBoy
            } else {
                return nil
            }
        }
    }

    /// Cartridge ROM whose place on the bus never changes, copied out of the content: an NROM (mapper 0)
    /// NES game's PRG ROM at $8000-$FFFF (16 KiB mirrored), a Game Boy cartridge's bank 0 at $0000-$3FFF.
    /// Banked ROM is left out: which bank is in is the core's, and libretro does not say.
    public final class FixedROM: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
        /// Where the bytes sit on the bus.
        let start: Int

        init(_ source: ArraySlice<UInt8>, repeatedTo length: Int, at start: Int) {
            self.start = start
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
            }
        }
    }

    /// The assembled bus, or nil when the layout would map nothing the core exposes.
    public static func bus(for system: System, core: Core, rom: FixedROM? = nil) -> MemoryMap? {
        let ram = core.memoryRegion(.systemRAM)
        let save = core.memoryRegion(.saveRAM)
        let video = core.memoryRegion(.videoRAM)
        var descriptors: [MemoryDescriptor] = []
        let systemRAM = UInt64(RETRO_MEMDESC_SYSTEM_RAM), saveRAM = UInt64(RETRO_MEMDESC_SAVE_RAM)
        switch system {
        case .nes:
            // 2 KiB of work RAM mirrored over $0000-$1FFF; cartridge RAM at $6000-$7FFF.
            if let ram {
                descriptors.append(
                    MemoryDescriptor(
                        flags: systemRAM, pointer: ram.pointer, start: 0, select: 0xE000, length: min(ram.size, 0x800)))
            }
            if let save {
                descriptors.append(
                    MemoryDescriptor(
                        flags: saveRAM, pointer: save.pointer, start: 0x6000, select: 0xE000,
                        length: min(save.size, 0x2000)))
            }
        case .gameBoy:
            // Work RAM at $C000-$DFFF with its echo at $E000-$FDFF; video RAM at $8000; cartridge RAM at $A000.
            if let ram {
                let length = min(ram.size, 0x2000)
                descriptors.append(
                    MemoryDescriptor(
                        flags: systemRAM, pointer: ram.pointer, start: 0xC000, select: 0xE000, length: length))
                descriptors.append(
                    MemoryDescriptor(flags: systemRAM, pointer: ram.pointer, start: 0xE000, length: 0x1E00))
            }
            if let video {
                descriptors.append(
                    MemoryDescriptor(pointer: video.pointer, start: 0x8000, length: min(video.size, 0x2000)))
            }
            if let save {
                descriptors.append(
                    MemoryDescriptor(
                        flags: saveRAM, pointer: save.pointer, start: 0xA000, select: 0xE000,
                        length: min(save.size, 0x2000)))
            }
        }
        if let rom {
            descriptors.append(
                MemoryDescriptor(
                    flags: UInt64(RETRO_MEMDESC_CONST), pointer: rom.bytes.baseAddress, start: rom.start,
                    length: rom.bytes.count))
        }
        guard !descriptors.isEmpty else { return nil }
        // The whole 64 KiB address space (libretro.h's "clarify the size" descriptor).
        descriptors.append(MemoryDescriptor(pointer: nil, start: 0, select: 0xFFFF, length: 0))
        return MemoryMap(addressSpace: "", descriptors: descriptors, source: .assembled)
    }
}
