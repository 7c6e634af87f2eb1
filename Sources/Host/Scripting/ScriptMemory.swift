import Libretro
import LuaRuntime

/// The memory domains scripts address: the core's regions, its memory-map descriptors, and `bus`,
/// the emulated address space pieced together from the memory map (when the core gives one).
final class ScriptMemory {
    /// Plain values only (names and descriptors live beside it), so passing one around on the
    /// `memory.read_u8` path costs no reference counting.
    struct Domain {
        let index: Int
        let size: Int
        let bigEndian: Bool
        let writable: Bool
        /// Flat domains: the whole block. The bus: nil, addresses go through the memory map.
        let base: UnsafeMutableRawPointer?
    }

    private(set) var domains: [Domain] = []
    private(set) var names: [String] = []
    private var byName: [String: Int] = [:]
    private var busDescriptors: [MemoryDescriptor] = []
    private(set) var defaultIndex = 0
    private let core: Core

    init(core: Core) {
        self.core = core
        refresh()
    }

    /// Rebuilds the list from the core (after loading, or when its memory map changes).
    func refresh() {
        let regions = core.memoryDomains()
        domains = regions.enumerated().map {
            Domain(index: $0, size: $1.size, bigEndian: $1.bigEndian, writable: $1.writable, base: $1.pointer)
        }
        names = regions.map(\.name)
        busDescriptors = core.memoryDescriptors.filter { $0.pointer != nil && $0.length > 0 }
        if !busDescriptors.isEmpty {
            let end = busDescriptors.map { $0.start + $0.length }.max() ?? 0
            let bigEndian = busDescriptors.contains { $0.flags & 2 != 0 }  // RETRO_MEMDESC_BIGENDIAN
            domains.append(Domain(index: domains.count, size: end, bigEndian: bigEndian, writable: true, base: nil))
            names.append("bus")
        }
        byName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // system_ram, else the memory map's region flagged system RAM (RETRO_MEMDESC_SYSTEM_RAM), else
        // the bus (game documentation gives bus addresses), else the first.
        let systemRAMMap = regions.firstIndex { region in
            region.busAddress != nil && busDescriptors.contains { $0.start == region.busAddress && $0.flags & 4 != 0 }
        }
        defaultIndex = byName["system_ram"] ?? systemRAMMap ?? byName["bus"] ?? 0
    }

    func name(_ domain: Domain) -> String { names[domain.index] }

    /// The domain named by the optional string argument at `argument` (nil: the default domain).
    @inline(__always)
    func domain(_ call: LuaCall, argument: Int32) throws(LuaCallError) -> Domain {
        if call.isNoneOrNil(argument) {
            guard !domains.isEmpty else { throw call.error("the core exposes no memory") }
            return domains[defaultIndex]
        }
        let name = try call.string(argument, "domain")
        guard let index = byName[name] else {
            throw call.badArgument(argument, "domain", "no domain '\(name)'; the core has \(names.joined(separator: ", "))")
        }
        return domains[index]
    }

    /// The host pointer for `width` bytes at `address`, or a clear error.
    @inline(__always)
    func pointer(_ call: LuaCall, _ domain: Domain, address: Int, width: Int) throws(LuaCallError) -> UnsafeMutableRawPointer {
        guard let pointer = resolve(domain, address: address, width: width) else { throw outside(call, domain, address, width) }
        return pointer
    }

    /// The host pointer for `width` bytes at `address`, or nil outside the domain.
    @inline(__always)
    func resolve(_ domain: Domain, address: Int, width: Int) -> UnsafeMutableRawPointer? {
        if let base = domain.base {
            guard address >= 0, address <= domain.size - width else { return nil }
            return base + address
        }
        for descriptor in busDescriptors where address >= descriptor.start && address + width <= descriptor.start + descriptor.length {
            return descriptor.pointer! + descriptor.offset + (address - descriptor.start)
        }
        return nil
    }

    /// A domain by name (nil: the default), for code outside a Lua call.
    func domain(named name: String?) -> Domain? {
        guard !domains.isEmpty else { return nil }
        guard let name else { return domains[defaultIndex] }
        return byName[name].map { domains[$0] }
    }

    private func outside(_ call: LuaCall, _ domain: Domain, _ address: Int, _ width: Int) -> LuaCallError {
        let hex = address < 0 ? "-0x" + String(-address, radix: 16, uppercase: true) : "0x" + String(address, radix: 16, uppercase: true)
        let what = domain.base == nil ? "is not mapped in 'bus'"
                                      : "is outside '\(name(domain))' (size 0x\(String(domain.size, radix: 16, uppercase: true)))"
        return call.error("address \(hex) (\(width) byte\(width == 1 ? "" : "s")) \(what)")
    }
}
