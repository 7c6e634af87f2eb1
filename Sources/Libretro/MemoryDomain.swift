import CLibretro
import CRetroShim

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

    public init(
        flags: UInt64 = 0, pointer: UnsafeMutableRawPointer?, offset: Int = 0, start: Int, select: Int = 0,
        disconnect: Int = 0, length: Int, addressSpace: String = ""
    ) {
        self.flags = flags
        self.pointer = pointer
        self.offset = offset
        self.start = start
        self.select = select
        self.disconnect = disconnect
        self.length = length
        self.addressSpace = addressSpace
    }

    init(_ raw: retro_memory_descriptor) {
        self.init(
            flags: raw.flags, pointer: raw.ptr, offset: raw.offset, start: Int(raw.start), select: Int(raw.select),
            disconnect: Int(raw.disconnect), length: raw.len,
            addressSpace: raw.addrspace.map { String(cString: $0) } ?? "")
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

    /// `retro_get_memory_data`/`size` for one region id, or nil when the core has none (or reports a
    /// size its memory does not have: checked once per pointer and size).
    public func memoryRegion(_ id: MemoryRegionID) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        let pointer = symbols.getMemoryData(id.rawValue)
        let size = symbols.getMemorySize(id.rawValue)
        if let checked = checkedRegions[id.rawValue], checked.pointer == pointer, checked.size == size {
            return checked
        }
        let names: [MemoryRegionID: String] = [
            .saveRAM: "save RAM", .rtc: "RTC", .systemRAM: "system RAM", .videoRAM: "video RAM",
        ]
        guard let region = checkedRegion(names[id] ?? "memory", pointer: pointer, size: size) else { return nil }
        checkedRegions[id.rawValue] = region
        return region
    }

    /// SET_MEMORY_MAPS: the descriptors whose numbers add up and whose memory is readable; the rest are
    /// dropped with a warning (a descriptor past the end of the address space, a block the core does not own).
    func acceptMemoryMap(_ list: UnsafePointer<retro_memory_descriptor>, count: Int) -> [MemoryDescriptor] {
        let stride = MemoryLayout<retro_memory_descriptor>.stride
        guard count <= Core.maxMemoryDescriptors, rs_is_readable(list, count * stride) != 0 else {
            reportOnce("memory map", "a memory map of \(count) descriptors that are not readable memory")
            return []
        }
        var accepted: [MemoryDescriptor] = []
        for index in 0..<count {
            let raw = list[index]
            if let problem = Core.problem(with: raw) {
                reportOnce("memory map \(index)", "memory-map descriptor \(index): \(problem)")
                continue
            }
            accepted.append(MemoryDescriptor(raw))
        }
        return accepted
    }

    /// Thousands of descriptors are already many (fceumm's are 1 KiB each).
    static let maxMemoryDescriptors = 1 << 16

    /// What is wrong with a descriptor, if anything.
    private static func problem(with raw: retro_memory_descriptor) -> String? {
        let hex = { (value: Int) in "0x" + String(UInt(bitPattern: value), radix: 16, uppercase: true) }
        guard raw.start >= 0, raw.len >= 0, raw.offset >= 0 else {
            return "start \(hex(raw.start)), length \(hex(raw.len)) or offset \(hex(raw.offset)) out of range"
        }
        guard raw.len <= maxRegionSize, !raw.start.addingReportingOverflow(raw.len).overflow else {
            return "start \(hex(raw.start)) + length \(hex(raw.len)) overflows"
        }
        guard let pointer = raw.ptr, raw.len > 0 else { return nil }  // Open bus, or nothing to read.
        let (end, wraps) = UInt(bitPattern: Int(bitPattern: pointer)).addingReportingOverflow(UInt(raw.offset))
        guard !wraps, !end.addingReportingOverflow(UInt(raw.len)).overflow,
            rs_is_readable(pointer + raw.offset, raw.len) != 0
        else {
            return "\(hex(raw.len)) bytes at offset \(hex(raw.offset)) are not readable memory"
        }
        return nil
    }
}
