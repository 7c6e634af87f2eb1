import Libretro

/// The memory domains every door addresses: the core's regions, its memory-map descriptors, and `bus`,
/// the emulated address space pieced together from the memory map (when the core gives one). Address
/// arithmetic never traps: addresses and sizes come from untrusted scripts and requests.
public final class MemoryAccess {
    /// Plain values only (names and descriptors live beside it), so passing one around on the
    /// `memory.read_u8` path costs no reference counting.
    public struct Domain {
        public let index: Int
        public let size: Int
        public let bigEndian: Bool
        public let writable: Bool
        /// Flat domains: the whole block. The bus: nil, addresses go through the memory map.
        @usableFromInline let base: UnsafeMutableRawPointer?
        public var isBus: Bool { base == nil }
    }

    // Constants once the game is loaded: reading `let`s of a class needs no exclusivity check, which
    // `memory.read_u8` would otherwise pay on every call.
    public let domains: [Domain]
    public let names: [String]
    private let byName: [String: Int]
    @usableFromInline let busDescriptors: [MemoryDescriptor]
    public let defaultIndex: Int

    /// The domains the core exposes once its game is loaded (regions, memory map, the assembled bus).
    init(core: Core) {
        let regions = core.memoryDomains()
        var domains = regions.enumerated().map {
            Domain(index: $0, size: $1.size, bigEndian: $1.bigEndian, writable: $1.writable, base: $1.pointer)
        }
        var names = regions.map(\.name)
        let busDescriptors = core.memoryDescriptors.filter { $0.pointer != nil && $0.length > 0 }
        if !busDescriptors.isEmpty {
            let end = busDescriptors.map { $0.start + $0.length }.max() ?? 0
            let bigEndian = busDescriptors.contains { $0.flags & 2 != 0 }  // RETRO_MEMDESC_BIGENDIAN
            domains.append(Domain(index: domains.count, size: end, bigEndian: bigEndian, writable: true, base: nil))
            names.append("bus")
        }
        let byName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // system_ram, else the memory map's region flagged system RAM (RETRO_MEMDESC_SYSTEM_RAM), else
        // the bus (game documentation gives bus addresses), else the first.
        let systemRAMMap = regions.firstIndex { region in
            region.busAddress != nil && busDescriptors.contains { $0.start == region.busAddress && $0.flags & 4 != 0 }
        }
        self.domains = domains
        self.names = names
        self.byName = byName
        self.busDescriptors = busDescriptors
        defaultIndex = byName["system_ram"] ?? systemRAMMap ?? byName["bus"] ?? 0
    }

    public func name(_ domain: Domain) -> String { names[domain.index] }

    /// The default domain (what a door uses when none is named).
    @inlinable
    public func defaultDomain() throws(Refusal) -> Domain {
        guard !domains.isEmpty else { throw Refusal(.outOfRange, "the core exposes no memory") }
        return domains[defaultIndex]
    }

    /// A domain by name (nil: the default).
    public func domain(named name: String?) throws(Refusal) -> Domain {
        guard let name else { return try defaultDomain() }
        guard let index = byName[name] else {
            throw Refusal(.outOfRange, "no domain '\(name)'; the core has \(names.joined(separator: ", "))")
        }
        return domains[index]
    }

    /// The host pointer for `width` bytes at `address`, or nil outside the domain.
    /// Inlinable: `memory.read_u8` and the other doors' reads resolve without a call across modules.
    @inlinable
    public func resolve(_ domain: Domain, address: Int, width: Int) -> UnsafeMutableRawPointer? {
        guard address >= 0, width > 0 else { return nil }
        if let base = domain.base {
            guard width <= domain.size, address <= domain.size - width else { return nil }
            return base + address
        }
        for descriptor in busDescriptors
        where address >= descriptor.start && width <= descriptor.length
            && address - descriptor.start <= descriptor.length - width
        {
            return descriptor.pointer! + descriptor.offset + (address - descriptor.start)
        }
        return nil
    }

    /// The pointer for `width` bytes at `address`, or a refusal naming the domain and its size.
    @inlinable
    public func pointer(_ domain: Domain, address: Int, width: Int) throws(Refusal) -> UnsafeMutableRawPointer {
        guard let pointer = resolve(domain, address: address, width: width) else {
            throw outside(domain, address, width)
        }
        return pointer
    }

    @usableFromInline
    func outside(_ domain: Domain, _ address: Int, _ width: Int) -> Refusal {
        let hex =
            address < 0
            ? "-0x" + String(address.magnitude, radix: 16, uppercase: true)
            : "0x" + String(address, radix: 16, uppercase: true)
        let what =
            domain.base == nil
            ? "is not mapped in 'bus'"
            : "is outside '\(name(domain))' (size 0x\(String(domain.size, radix: 16, uppercase: true)))"
        return Refusal(.outOfRange, "address \(hex) (\(width) byte\(width == 1 ? "" : "s")) \(what)")
    }
}

extension Emulator {
    /// Where a door may write `width` bytes at `address`: refused in hardcore mode, on read-only
    /// domains and outside the domain. The one path every memory write goes through.
    @inline(__always)
    public func writablePointer(
        _ domain: MemoryAccess.Domain, address: Int, width: Int
    ) throws(Refusal) -> UnsafeMutableRawPointer {
        if hardcore { throw .hardcore("memory writes are") }
        guard domain.writable else { throw Refusal(.outOfRange, "domain '\(memory.name(domain))' is read-only") }
        return try memory.pointer(domain, address: address, width: width)
    }

    /// Writes `bytes` at `address` (all of them or none).
    public func write(_ bytes: UnsafeRawBufferPointer, to domain: MemoryAccess.Domain, address: Int) throws(Refusal) {
        guard !bytes.isEmpty else {
            if hardcore { throw .hardcore("memory writes are") }
            guard domain.writable else { throw Refusal(.outOfRange, "domain '\(memory.name(domain))' is read-only") }
            return
        }
        let pointer = try writablePointer(domain, address: address, width: bytes.count)
        pointer.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    /// `write` of bytes held in an array (the control socket's, tests').
    public func write(_ bytes: [UInt8], to domain: MemoryAccess.Domain, address: Int) throws(Refusal) {
        let problem = bytes.withUnsafeBytes { raw -> Refusal? in
            do throws(Refusal) { try write(raw, to: domain, address: address) } catch { return error }
            return nil
        }
        if let problem { throw problem }
    }
}
