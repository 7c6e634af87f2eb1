import Libretro
import LuaRuntime

/// The memory domains scripts address: the core's regions, its memory-map descriptors, and `bus`,
/// the emulated address space pieced together from the memory map (when the core gives one).
final class ScriptMemory {
    struct Domain {
        let name: String
        let size: Int
        let bigEndian: Bool
        let writable: Bool
        /// Flat domains: the whole block. The bus: nil, addresses go through `descriptors`.
        let base: UnsafeMutableRawPointer?
        let descriptors: [MemoryDescriptor]

        /// The host pointer for `width` bytes at `address`, or a clear error.
        @inline(__always)
        func pointer(_ call: LuaCall, address: Int, width: Int) throws(LuaCallError) -> UnsafeMutableRawPointer {
            if let base {
                guard address >= 0, address <= size - width else { throw outside(call, address, width) }
                return base + address
            }
            for descriptor in descriptors where address >= descriptor.start && address + width <= descriptor.start + descriptor.length {
                return descriptor.pointer! + descriptor.offset + (address - descriptor.start)
            }
            throw outside(call, address, width)
        }

        private func outside(_ call: LuaCall, _ address: Int, _ width: Int) -> LuaCallError {
            let hex = address < 0 ? "-0x" + String(-address, radix: 16, uppercase: true) : "0x" + String(address, radix: 16, uppercase: true)
            let what = base == nil ? "is not mapped in 'bus'" : "is outside '\(name)' (size 0x\(String(size, radix: 16, uppercase: true)))"
            return call.error("address \(hex) (\(width) byte\(width == 1 ? "" : "s")) \(what)")
        }
    }

    private(set) var domains: [Domain] = []
    private var byName: [String: Int] = [:]
    private(set) var defaultIndex = 0
    private let core: Core

    init(core: Core) {
        self.core = core
        refresh()
    }

    /// Rebuilds the list from the core (after loading, or when its memory map changes).
    func refresh() {
        domains = core.memoryDomains().map {
            Domain(name: $0.name, size: $0.size, bigEndian: $0.bigEndian, writable: $0.writable, base: $0.pointer, descriptors: [])
        }
        let mapped = core.memoryDescriptors.filter { $0.pointer != nil && $0.length > 0 }
        if !mapped.isEmpty {
            let end = mapped.map { $0.start + $0.length }.max() ?? 0
            domains.append(Domain(name: "bus", size: end, bigEndian: mapped.contains { $0.flags & 2 != 0 },
                                  writable: true, base: nil, descriptors: mapped))
        }
        byName = Dictionary(domains.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        // system_ram, else the memory map's system RAM (flag RETRO_MEMDESC_SYSTEM_RAM), else the first.
        let systemRAMMap = core.memoryDomains().firstIndex { domain in
            domain.busAddress != nil && mapped.contains { $0.start == domain.busAddress && $0.flags & 4 != 0 }
        }
        defaultIndex = byName["system_ram"] ?? systemRAMMap ?? 0
    }

    var defaultDomain: Domain? { domains.isEmpty ? nil : domains[defaultIndex] }

    /// The domain named by the optional string argument at `argument` (nil: the default domain).
    @inline(__always)
    func domain(_ call: LuaCall, argument: Int32) throws(LuaCallError) -> Domain {
        if call.isNoneOrNil(argument) {
            guard let domain = defaultDomain else { throw call.error("the core exposes no memory") }
            return domain
        }
        let name = try call.string(argument, "domain")
        guard let index = byName[name] else {
            throw call.badArgument(argument, "domain", "no domain '\(name)'; the core has \(domains.map(\.name).joined(separator: ", "))")
        }
        return domains[index]
    }
}
