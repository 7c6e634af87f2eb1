import CLibretro
import CRetroShim

/// One address space of the emulated machine (a `SET_MEMORY_MAPS` address space, or one assembled from
/// the core's regions), with libretro.h's descriptor rules applied: the first descriptor whose `select`
/// bits of an address equal those of `start` claims it; the byte is found by subtracting `start`,
/// removing the `disconnect` bits, reducing by `len` (clearing the highest bits until below it) and
/// adding `offset`. `select == 0` maps the block exactly once; `len == 0` is as large as `select` and
/// `disconnect` allow; a NULL `ptr` is open bus.
public struct MemoryMap: @unchecked Sendable {
    /// Whether the core sent this map, or Retrolua assembled it from the core's regions and the
    /// system's documented layout.
    public enum Source: String, Sendable { case core, assembled }

    /// One descriptor after the header's derivations (select from len, len from select).
    public struct Entry: @unchecked Sendable {
        /// `ptr + offset`; nil: open bus (the descriptor claims addresses but has nothing behind them).
        public let base: UnsafeMutableRawPointer?
        public let start: UInt
        /// The bits that must equal `start`'s; for blocks mapped exactly once, `free` are the bits that vary.
        public let select: UInt
        public let free: UInt
        public let disconnect: UInt
        /// The block's size after `len == 0` is derived: offsets are reduced below it.
        public let length: UInt
        /// Bytes of the block any address can reach (what must be readable).
        public let reach: UInt
        public let exactlyOnce: Bool
        public let flags: UInt64
        public var writable: Bool { flags & UInt64(RETRO_MEMDESC_CONST) == 0 }
        public var bigEndian: Bool { flags & UInt64(RETRO_MEMDESC_BIGENDIAN) != 0 }

        /// Whether this descriptor claims `address`.
        @inline(__always)
        public func claims(_ address: UInt) -> Bool {
            guard exactlyOnce else { return (address ^ start) & select == 0 }
            guard address >= start else { return false }
            let delta = address &- start
            return delta & ~free == 0 && MemoryMap.reduce(delta, disconnect) < length
        }

        /// The offset into the block for a claimed address.
        @inline(__always)
        public func offset(_ address: UInt) -> UInt {
            var value = MemoryMap.reduce(address &- start, disconnect)
            while value >= length { value &= ~MemoryMap.highestBit(value) }
            return value
        }
    }

    /// The address space's name from the descriptors (`""` for the main one).
    public let addressSpace: String
    /// Addresses 0..<size (from the largest address any descriptor names, rounded up to a power of two).
    public let size: Int
    public let entries: [Entry]
    public let source: Source

    /// The descriptor claiming `address` and the offset in its block (nil: unmapped or open bus).
    public func locate(_ address: Int) -> (entry: Int, offset: Int)? {
        guard address >= 0, address < size else { return nil }
        let value = UInt(address)
        for (index, entry) in entries.enumerated() where entry.claims(value) {
            guard entry.base != nil else { return nil }
            return (index, Int(entry.offset(value)))
        }
        return nil
    }

    // MARK: Bit helpers (libretro.h's reference algorithm)

    /// Every bit below the highest set one, set.
    @inline(__always)
    static func fillDown(_ value: UInt) -> UInt {
        value == 0 ? 0 : UInt.max >> UInt(value.leadingZeroBitCount)
    }

    @inline(__always)
    static func highestBit(_ value: UInt) -> UInt {
        value == 0 ? 0 : UInt(1) << UInt(UInt.bitWidth - 1 - value.leadingZeroBitCount)
    }

    /// `value` with the bits at `mask`'s positions removed (higher bits shift down).
    @inline(__always)
    static func reduce(_ value: UInt, _ mask: UInt) -> UInt {
        var value = value, mask = mask
        while mask != 0 {
            let below = (mask &- 1) & ~mask
            value = (value & below) | ((value >> 1) & ~below)
            mask = (mask & (mask &- 1)) >> 1
        }
        return value
    }

    /// `value` with a zero bit inserted at each of `mask`'s positions (the inverse of `reduce`).
    static func inflate(_ value: UInt, _ mask: UInt) -> UInt {
        var value = value, mask = mask
        while mask != 0 {
            let below = (mask &- 1) & ~mask
            value = ((value & ~below) << 1) | (value & below)
            mask &= mask &- 1
        }
        return value
    }

    /// A select whose high bits are all set (`~0x1FFF`-style, in 32 or 64 bits) says "every higher bit";
    /// only the bits below that run tell the address space's size.
    static func significantSelect(_ select: UInt) -> UInt {
        if select >> 63 != 0 { return select & ~(UInt.max << UInt(UInt.bitWidth - (~select).leadingZeroBitCount)) }
        if select >> 32 == 0 && select >> 31 != 0 {
            let low = UInt32(truncatingIfNeeded: select)
            return UInt(low & ~(UInt32.max << UInt32(32 - (~low).leadingZeroBitCount)))
        }
        return select
    }
}

extension MemoryMap {
    /// Applies the header's derivations to one address space's descriptors; `problem` hears why a
    /// descriptor is dropped or turned into open bus.
    public init(
        addressSpace: String, descriptors: [MemoryDescriptor], source: Source,
        problem: (String) -> Void = { _ in }
    ) {
        var top: UInt = 1
        for descriptor in descriptors {
            let start = UInt(bitPattern: descriptor.start), length = UInt(bitPattern: descriptor.length)
            top |=
                start | (length > 0 ? start &+ length &- 1 : 0)
                | MemoryMap.significantSelect(
                    UInt(bitPattern: descriptor.select))
        }
        top = MemoryMap.fillDown(top)
        var entries: [Entry] = []
        for (index, descriptor) in descriptors.enumerated() {
            let start = UInt(bitPattern: descriptor.start), disconnect = UInt(bitPattern: descriptor.disconnect) & top
            var length = UInt(bitPattern: descriptor.length)
            var select = UInt(bitPattern: descriptor.select) & top
            let exactlyOnce = select == 0
            var free: UInt = 0
            if exactlyOnce {
                guard length > 0 else {
                    // An empty descriptor claims nothing; one with memory behind it is a mistake worth a word.
                    if descriptor.pointer != nil {
                        problem("memory-map descriptor \(index): select and len are both 0 (ignored)")
                    }
                    continue
                }
                free = MemoryMap.inflate(MemoryMap.fillDown(length - 1), disconnect)
                select = top & ~free
            } else {
                guard start & ~select == 0 else {
                    problem("memory-map descriptor \(index): start has bits that select does not (ignored)")
                    continue
                }
                let span = MemoryMap.reduce(top & ~select, disconnect)
                if length == 0 { length = MemoryMap.fillDown(span) + 1 }
            }
            let reach = exactlyOnce ? length : min(length, MemoryMap.reduce(top & ~select, disconnect) + 1)
            var base = descriptor.pointer.map { $0 + descriptor.offset }
            if base != nil, reach > UInt(Core.maxRegionSize) {
                problem("memory-map descriptor \(index): a block of \(reach) bytes (open bus)")
                base = nil
            }
            if let pointer = base, rs_is_readable(pointer, Int(reach)) == 0 {
                problem("memory-map descriptor \(index): \(reach) bytes that are not readable memory (open bus)")
                base = nil
            }
            entries.append(
                Entry(
                    base: base, start: start, select: select, free: free, disconnect: disconnect, length: length,
                    reach: reach, exactlyOnce: exactlyOnce, flags: base == nil ? 0 : descriptor.flags))
        }
        self.addressSpace = addressSpace
        self.size = top >= UInt(Int.max) ? Int.max : Int(top) + 1
        self.entries = entries
        self.source = source
    }
}

extension Core {
    /// The core's memory maps, one per address space in the order they first appear (the unnamed
    /// space first when there is one).
    public func memoryMaps() -> [MemoryMap] {
        var spaces: [String] = []
        var grouped: [String: [MemoryDescriptor]] = [:]
        for descriptor in memoryDescriptors {
            if grouped[descriptor.addressSpace] == nil { spaces.append(descriptor.addressSpace) }
            grouped[descriptor.addressSpace, default: []].append(descriptor)
        }
        spaces.sort { $0.isEmpty && !$1.isEmpty }
        return spaces.map { space in
            MemoryMap(addressSpace: space, descriptors: grouped[space] ?? [], source: .core) { message in
                reportOnce("memory map " + space + message, message)
            }
        }
    }
}
