import CLibretro

/// A named, directly addressable block of the emulated machine's memory.
public struct MemoryDomain: @unchecked Sendable {
    public let name: String
    public let pointer: UnsafeMutableRawPointer
    public let size: Int
    public let bigEndian: Bool
    public let writable: Bool
    /// Where the block sits in the emulated address space, for memory-map regions.
    public let busAddress: Int?
}

/// The regions of `retro_get_memory_data` (RETRO_MEMORY_*).
public enum MemoryRegionID: UInt32, Sendable {
    case saveRAM = 0, rtc = 1, systemRAM = 2, videoRAM = 3
}

/// One SET_MEMORY_MAPS descriptor, copied so it outlives the core's array.
public struct MemoryDescriptor: @unchecked Sendable {
    public let flags: UInt64
    public let pointer: UnsafeMutableRawPointer?
    public let offset: Int
    public let start: Int
    public let select: Int
    public let disconnect: Int
    public let length: Int
    public let addressSpace: String

    init(_ raw: retro_memory_descriptor) {
        flags = raw.flags
        pointer = raw.ptr
        offset = raw.offset
        start = Int(raw.start)
        select = Int(raw.select)
        disconnect = Int(raw.disconnect)
        length = raw.len
        addressSpace = raw.addrspace.map { String(cString: $0) } ?? ""
    }
}

extension Core {
    /// The core's memory: the standard regions first (`system_ram`, `save_ram`, `video_ram`, `rtc`),
    /// then one domain per memory-map descriptor that has backing memory.
    public func memoryDomains() -> [MemoryDomain] {
        var domains: [MemoryDomain] = []
        for (name, id) in [
            ("system_ram", MemoryRegionID.systemRAM), ("save_ram", .saveRAM), ("video_ram", .videoRAM), ("rtc", .rtc),
        ] {
            if let region = memoryRegion(id) {
                domains.append(
                    MemoryDomain(
                        name: name, pointer: region.pointer, size: region.size,
                        bigEndian: false, writable: true, busAddress: nil))
            }
        }
        var used = Set(domains.map(\.name))
        for descriptor in memoryDescriptors {
            guard let base = descriptor.pointer, descriptor.length > 0 else { continue }
            var name = descriptor.addressSpace.isEmpty ? "bus" : descriptor.addressSpace
            name += "_" + String(descriptor.start, radix: 16, uppercase: true)
            if used.contains(name) { continue }
            used.insert(name)
            domains.append(
                MemoryDomain(
                    name: name, pointer: base + descriptor.offset, size: descriptor.length,
                    bigEndian: descriptor.flags & UInt64(RETRO_MEMDESC_BIGENDIAN) != 0,
                    writable: descriptor.flags & UInt64(RETRO_MEMDESC_CONST) == 0,
                    busAddress: descriptor.start))
        }
        return domains
    }

    /// The game's work RAM, for hashing it: `system_ram`, else the memory map's regions flagged as
    /// system RAM (cores such as mGBA expose Game Boy WRAM only there).
    public func systemRAM() -> [UnsafeRawBufferPointer] {
        if let region = memoryRegion(.systemRAM) {
            return [UnsafeRawBufferPointer(start: region.pointer, count: region.size)]
        }
        return memoryDescriptors.compactMap { descriptor in
            guard descriptor.flags & UInt64(RETRO_MEMDESC_SYSTEM_RAM) != 0, let base = descriptor.pointer,
                descriptor.length > 0
            else { return nil }
            return UnsafeRawBufferPointer(start: base + descriptor.offset, count: descriptor.length)
        }
    }

    /// `retro_get_memory_data`/`size` for one region id, or nil when the core has none.
    public func memoryRegion(_ id: MemoryRegionID) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        guard let pointer = symbols.getMemoryData(id.rawValue) else { return nil }
        let size = symbols.getMemorySize(id.rawValue)
        return size > 0 ? (pointer, size) : nil
    }
}
