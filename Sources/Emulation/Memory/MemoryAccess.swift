import Libretro

/// The memory domains every door addresses: the core's regions, its memory-map descriptors, and one
/// bus-like domain per address space (`bus` for the main one: the CPU's address space, from the core's
/// memory map or, for cores that send none, assembled from its regions and the system's layout).
/// Address arithmetic never traps: addresses and sizes come from untrusted scripts and requests.
public final class MemoryAccess {
    /// Where a domain's bytes come from (`memory.domains()` says it).
    public enum Source: String, Sendable {
        /// `retro_get_memory_data` (system_ram, save_ram, video_ram, rtc).
        case region
        /// The core's own memory map (`SET_MEMORY_MAPS`): its address spaces and descriptors.
        case map
        /// Assembled by Retrolua from the core's regions and the system's documented layout.
        case assembled
    }

    /// Plain values only (names and descriptors live beside it), so passing one around on the
    /// `memory.read_u8` path costs no reference counting.
    /// Four words, so it travels in registers: the index, page shift and flags share one.
    public struct Domain {
        public let size: Int
        /// Flat domains: the whole block. Buses: nil, addresses go through the page table.
        @usableFromInline let base: UnsafeMutableRawPointer?
        @usableFromInline let pages: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        @usableFromInline let packed: Int

        init(
            index: Int, size: Int, bigEndian: Bool, writable: Bool, base: UnsafeMutableRawPointer?,
            pages: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, pageShift: Int
        ) {
            self.size = size
            self.base = base
            self.pages = pages
            packed = index << 16 | (pageShift & 0xFF) << 8 | (bigEndian ? 1 : 0) | (writable ? 2 : 0)
        }

        public var index: Int { packed >> 16 }
        public var bigEndian: Bool { packed & 1 != 0 }
        public var writable: Bool { packed & 2 != 0 }
        @usableFromInline var pageShift: Int { (packed >> 8) & 0xFF }
        public var isBus: Bool { base == nil }
    }

    // Constants once the game is loaded: reading `let`s of a class needs no exclusivity check, which
    // `memory.read_u8` would otherwise pay on every call.
    public let domains: [Domain]
    public let names: [String]
    public let sources: [Source]
    private let byName: [String: Int]
    /// The page tables of the bus-like domains, by domain index.
    let buses: [Int: BusTable]
    /// Owns the ROM bytes an assembled bus points at (as long as the buses live).
    private let fixedROM: AssembledMaps.FixedROM?
    public let defaultIndex: Int
    /// The console whose documented layout applies (nil: none known).
    public let system: AssembledMaps.System?

    /// The domains the core exposes once its game is loaded (regions, memory map, the buses).
    /// `system` picks the layout for an assembled bus when the core sends no map; `content` gives it the
    /// cartridge ROM that never moves (`AssembledMaps.FixedROM`).
    init(core: Core, system: AssembledMaps.System? = nil, content: [UInt8]? = nil) {
        self.system = system
        let regions = core.memoryDomains()
        var domains = regions.enumerated().map {
            Domain(
                index: $0, size: $1.size, bigEndian: $1.bigEndian, writable: $1.writable, base: $1.pointer,
                pages: nil, pageShift: 0)
        }
        var names = regions.map(\.name)
        var sources = regions.map { $0.busAddress == nil ? Source.region : .map }
        var maps = core.memoryMaps()
        var fixedROM: AssembledMaps.FixedROM?
        if maps.isEmpty, let system, let content { fixedROM = AssembledMaps.FixedROM.of(content, system: system) }
        self.fixedROM = fixedROM
        if maps.isEmpty, let system, let assembled = AssembledMaps.bus(for: system, core: core, rom: fixedROM) {
            maps = [assembled]
        }
        // The mirrors a core's own map leaves out (fceumm's NES RAM at $0800-$1FFF, the Game Boy's echo RAM).
        if let system, let main = maps.firstIndex(where: { $0.addressSpace.isEmpty && $0.source == .core }) {
            let mirrors = AssembledMaps.mirrors(for: system, in: maps[main])
            if !mirrors.isEmpty {
                maps[main] = MemoryMap(
                    addressSpace: "", descriptors: core.memoryDescriptors.filter(\.addressSpace.isEmpty) + mirrors,
                    source: .core)
            }
        }
        var buses: [Int: BusTable] = [:]
        for map in maps where map.entries.contains(where: { $0.base != nil }) {
            let name = Self.busName(map.addressSpace, taken: Set(names))
            let table = BusTable(map)
            let mapped = map.entries.filter { $0.base != nil }
            buses[domains.count] = table
            domains.append(
                Domain(
                    index: domains.count, size: map.size, bigEndian: mapped.contains(where: \.bigEndian),
                    writable: mapped.contains(where: \.writable), base: nil, pages: table.bases,
                    pageShift: table.pageShift))
            names.append(name)
            sources.append(map.source == .core ? .map : .assembled)
        }
        let byName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // system_ram, else the memory map's region flagged system RAM (RETRO_MEMDESC_SYSTEM_RAM), else
        // the bus (game documentation gives bus addresses), else the first.
        let systemRAMMap = regions.firstIndex { region in
            region.busAddress != nil
                && core.memoryDescriptors.contains { $0.start == region.busAddress && $0.flags & 4 != 0 }
        }
        self.domains = domains
        self.names = names
        self.sources = sources
        self.byName = byName
        self.buses = buses
        defaultIndex = byName["system_ram"] ?? systemRAMMap ?? byName["bus"] ?? 0
    }

    /// `bus` for the unnamed address space; others by their libretro.h name (`bus_` + it on a clash).
    private static func busName(_ space: String, taken: Set<String>) -> String {
        if space.isEmpty { return taken.contains("bus") ? "bus_main" : "bus" }
        return taken.contains(space) || space == "bus" ? "bus_" + space : space
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

    /// The host pointer for `width` contiguous bytes at `address`, or nil outside the domain (or, on a
    /// bus, where the bytes are unmapped or not one run of one block: `read`/`write` handle those).
    /// Inlinable: `memory.read_u8` and the other doors' reads resolve without a call across modules.
    @inlinable @inline(__always)
    public func resolve(_ domain: Domain, address: Int, width: Int) -> UnsafeMutableRawPointer? {
        guard address >= 0, width > 0, width <= domain.size, address <= domain.size - width else { return nil }
        if let base = domain.base { return base + address }
        let mask = (1 << domain.pageShift) - 1
        let inPage = address & mask
        if inPage <= mask + 1 - width, let base = domain.pages![address >> domain.pageShift] { return base + inPage }
        return busResolve(domain, address: address, width: width, write: false)
    }

    @usableFromInline
    func busResolve(_ domain: Domain, address: Int, width: Int, write: Bool) -> UnsafeMutableRawPointer? {
        guard let table = buses[domain.index] else { return nil }
        if write, width <= 1 << table.pageShift {
            let page = address >> table.pageShift, inPage = address & ((1 << table.pageShift) - 1)
            if inPage <= (1 << table.pageShift) - width, table.kinds[page] == BusTable.writable {
                return table.bases[page].map { $0 + inPage }
            }
        }
        return table.resolve(address, width: width, write: write)
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
        let hex = Self.hex(address)
        let what =
            domain.base == nil
            ? "is not mapped in '\(name(domain))'"
            : "is outside '\(name(domain))' (size 0x\(String(domain.size, radix: 16, uppercase: true)))"
        return Refusal(.outOfRange, "address \(hex) (\(width) byte\(width == 1 ? "" : "s")) \(what)")
    }

    static func hex(_ address: Int) -> String {
        address < 0
            ? "-0x" + String(address.magnitude, radix: 16, uppercase: true)
            : "0x" + String(address, radix: 16, uppercase: true)
    }
}

extension Emulator {
    /// Where a door may write `width` bytes at `address`: refused in hardcore mode, on read-only
    /// domains (and a bus's read-only blocks) and outside the domain. The one path every memory write goes through.
    @inline(__always)
    public func writablePointer(
        _ domain: MemoryAccess.Domain, address: Int, width: Int
    ) throws(Refusal) -> UnsafeMutableRawPointer {
        if hardcore { throw .hardcore("memory writes are") }
        guard domain.writable else { throw Refusal(.outOfRange, "domain '\(memory.name(domain))' is read-only") }
        let pointer: UnsafeMutableRawPointer
        if !domain.isBus {
            pointer = try memory.pointer(domain, address: address, width: width)
        } else {
            guard address >= 0, width > 0, width <= domain.size, address <= domain.size - width,
                let resolved = memory.busResolve(domain, address: address, width: width, write: true)
            else { throw memory.unwritable(domain, address, width) }
            pointer = resolved
        }
        if movie.mode == .record, !movie.toldOfMemoryWrite { tellOfMemoryWriteWhileRecording() }
        return pointer
    }

    /// Writes `bytes` at `address` (all of them or none); on a bus, byte by byte where they are not one run.
    public func write(_ bytes: UnsafeRawBufferPointer, to domain: MemoryAccess.Domain, address: Int) throws(Refusal) {
        guard !bytes.isEmpty else {
            if hardcore { throw .hardcore("memory writes are") }
            guard domain.writable else { throw Refusal(.outOfRange, "domain '\(memory.name(domain))' is read-only") }
            return
        }
        if domain.isBus, (try? writablePointer(domain, address: address, width: bytes.count)) == nil {
            if hardcore { throw .hardcore("memory writes are") }
            let targets = try memory.busBytes(domain, address: address, count: bytes.count, write: true)
            if movie.mode == .record, !movie.toldOfMemoryWrite { tellOfMemoryWriteWhileRecording() }
            for (index, target) in targets.enumerated() { target.storeBytes(of: bytes[index], as: UInt8.self) }
            return
        }
        let pointer = try writablePointer(domain, address: address, width: bytes.count)
        pointer.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    /// A movie holds input only: a write made now (a console line, a socket request, a script) is not in it,
    /// so its replay will go elsewhere. Said once a recording, whichever door wrote.
    func tellOfMemoryWriteWhileRecording() {
        movie.toldOfMemoryWrite = true
        show(
            message: "movie: memory was written while recording; the movie holds input only, so its replay will "
                + "not repeat the write", from: "movie")
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
