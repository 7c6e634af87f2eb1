import CLua
import CLuaShim
import Emulation
import Libretro
import LuaRuntime
import Support

/// One typed access: width in bytes, signedness, byte order (nil: the domain's), float.
/// It travels as the binding's tag, so a call decodes it from an integer: no tables, no refcounts.
private struct Access {
    let width: Int
    let signed: Bool
    let bigEndian: Bool?
    let float: Bool

    init(width: Int, signed: Bool, bigEndian: Bool?, float: Bool) {
        self.width = width
        self.signed = signed
        self.bigEndian = bigEndian
        self.float = float
    }

    @inline(__always)
    init(tag: Int) {
        width = tag & 15
        signed = tag & 16 != 0
        float = tag & 32 != 0
        bigEndian = tag & 64 != 0 ? false : tag & 128 != 0 ? true : nil
    }

    var tag: Int {
        width | (signed ? 16 : 0) | (float ? 32 : 0) | (bigEndian == false ? 64 : 0) | (bigEndian == true ? 128 : 0)
    }

    var suffix: String {
        let order = bigEndian.map { $0 ? "_be" : "_le" } ?? ""
        return (float ? "f" : signed ? "s" : "u") + String(width * 8) + (width == 1 ? "" : order)
    }

    static let all: [Access] = {
        var list = [
            Access(width: 1, signed: false, bigEndian: false, float: false),
            Access(width: 1, signed: true, bigEndian: false, float: false),
        ]
        for width in [2, 3, 4] {
            for signed in [false, true] {
                for big in [nil, false, true] as [Bool?] {
                    list.append(Access(width: width, signed: signed, bigEndian: big, float: false))
                }
            }
        }
        for width in [4, 8] {
            for big in [nil, false, true] as [Bool?] {
                list.append(Access(width: width, signed: true, bigEndian: big, float: true))
            }
        }
        return list
    }()

    var typeName: String { float ? "number" : "integer" }

    var orderText: String {
        switch bigEndian {
        case .none: return width == 1 ? "" : " in the domain's byte order"
        case .some(false): return " little-endian"
        case .some(true): return " big-endian"
        }
    }

    var range: ClosedRange<Int> {
        let bits = width * 8
        // Writes take both the signed and the unsigned range (-1 and 0xFF are the same byte).
        return -(1 << (bits - 1))...((1 << bits) - 1)
    }
}

@inline(__always)
private func load(_ pointer: UnsafeMutableRawPointer, _ width: Int, bigEndian: Bool) -> UInt64 {
    var value: UInt64 = 0
    if bigEndian {
        for i in 0..<width { value = value << 8 | UInt64(pointer.load(fromByteOffset: i, as: UInt8.self)) }
    } else {
        for i in stride(from: width - 1, through: 0, by: -1) {
            value = value << 8 | UInt64(pointer.load(fromByteOffset: i, as: UInt8.self))
        }
    }
    return value
}

/// A bus read across blocks or mirrors: gathered byte by byte (or refused where unmapped). Kept out of
/// line so the direct path stays small.
@inline(never)
private func gathered(
    _ memory: MemoryAccess, _ domain: MemoryAccess.Domain, _ address: Int, _ width: Int, _ bigEndian: Bool
) throws(Refusal) -> UInt64 {
    var bytes = try memory.read(domain, address: address, count: width)
    return bytes.withUnsafeMutableBytes { load($0.baseAddress!, width, bigEndian: bigEndian) }
}

/// The gathered path's push, kept out of line so that the read fast path stays small.
@inline(never)
private func pushGathered(_ call: LuaCall, _ raw: UInt64, _ access: Access) -> Int32 {
    push(call, raw, access)
}

/// Pushes a value as the access reads it: a float, a sign-extended or an unsigned integer.
@inline(__always)
private func push(_ call: LuaCall, _ raw: UInt64, _ access: Access) -> Int32 {
    if access.float {
        call.push(
            access.width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
    } else if access.signed {
        let shift = UInt64(64 - access.width * 8)
        call.push(Int(Int64(bitPattern: raw << shift) >> Int64(shift)))
    } else {
        call.push(Int(raw))
    }
    return 1
}

@inline(__always)
private func store(_ value: UInt64, _ pointer: UnsafeMutableRawPointer, _ width: Int, bigEndian: Bool) {
    for i in 0..<width {
        let byte = UInt8(truncatingIfNeeded: value >> (8 * (bigEndian ? width - 1 - i : i)))
        pointer.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
    }
}

extension Bindings {
    private static let readBody: lh_binding = { L, context in
        let access = Access(tag: Int(lh_binding_tag(L)))
        return LuaCall.run(L) { call in
            let address = try call.integer(1, "address")
            let memory = Script.from(context).memory
            let domain = try memory.domain(call, argument: 2)
            guard let pointer = memory.resolve(domain, address: address, width: access.width) else {
                // A bus read across blocks or mirrors: gathered (or refused where unmapped).
                let raw = try gathered(memory, domain, address, access.width, access.bigEndian ?? domain.bigEndian)
                return pushGathered(call, raw, access)
            }
            // Byte 0 first: a u8 read is the hot path of most bots.
            if access.width == 1 {
                let byte = pointer.load(as: UInt8.self)
                return call.returning(access.signed ? Int(Int8(bitPattern: byte)) : Int(byte))
            }
            return push(call, load(pointer, access.width, bigEndian: access.bigEndian ?? domain.bigEndian), access)
        }
    }

    private static let writeBody: lh_binding = { L, context in
        let access = Access(tag: Int(lh_binding_tag(L)))
        return LuaCall.run(L) { call in
            let address = try call.integer(1, "address")
            let raw: UInt64
            if access.float {
                let value = try call.number(2, "value")
                raw = access.width == 4 ? UInt64(Float(value).bitPattern) : value.bitPattern
            } else {
                let value = try call.integer(2, "value")
                guard access.range.contains(value) else {
                    throw call.badArgument(2, "value", "\(value) does not fit in \(access.width * 8) bits")
                }
                raw = UInt64(bitPattern: Int64(value))
            }
            let emulator = Script.from(context).emulator
            let domain = try emulator.memory.domain(call, argument: 3)
            let bigEndian = access.bigEndian ?? domain.bigEndian
            if domain.isBus {
                // Through `write`, which also covers values spanning blocks or mirrors.
                var scratch: UInt64 = 0
                withUnsafeMutableBytes(of: &scratch) { store(raw, $0.baseAddress!, access.width, bigEndian: bigEndian) }
                try withUnsafeBytes(of: &scratch) { bytes throws(Refusal) in
                    try emulator.write(
                        UnsafeRawBufferPointer(rebasing: bytes[0..<access.width]), to: domain, address: address)
                }
                return 0
            }
            let pointer = try emulator.writablePointer(domain, address: address, width: access.width)
            store(raw, pointer, access.width, bigEndian: bigEndian)
            return 0
        }
    }

    static let memory = LuaModule(
        "memory",
        doc: """
            The emulated machine's memory, by domain. Domains come from the core: `system_ram`, `save_ram`, \
            `video_ram`, `rtc` (`retro_get_memory_data`), one per memory-map descriptor (`bus_C000`-style names), and \
            `bus`, the CPU's address space: from the core's memory map with libretro.h's rules (select, disconnect, \
            len, mirrors; other address spaces are domains named after them), or for cores that send no map \
            assembled from the regions the core exposes and the system's documented layout (NES, Game Boy, SNES, \
            PC Engine, GBA, Genesis, Atari 2600), with the mirrors cores' own maps leave out added. The default \
            domain is `system_ram`; for a core without one, the memory-map region flagged as system RAM, else \
            `bus`. Addresses outside a domain raise an error naming the address and domain.
            """,
        functions: domainFunctions
            + Access.all.map { access in
                LuaFunction(
                    "read_" + access.suffix, "address: integer, domain?: string", returns: access.typeName,
                    doc:
                        """
                        Reads a\(access.float ? "" : access.signed ? " signed" : "n unsigned") \
                        \(access.width * 8)-bit \(access.float ? "float" : "integer")\(access.orderText).
                        """,
                    tag: access.tag, readBody)
            }
            + Access.all.map { access in
                LuaFunction(
                    "write_" + access.suffix, "address: integer, value: \(access.typeName), domain?: string",
                    doc:
                        "Writes a \(access.width * 8)-bit \(access.float ? "float" : "integer")\(access.orderText)"
                        + (access.float ? "." : "; the value may be given signed or unsigned."),
                    tag: access.tag, writeBody)
            })

    private static let domainFunctions: [LuaFunction] = [
        LuaFunction(
            "domains", returns: "table",
            doc: """
                The memory domains: a list of `{name=, size=, big_endian=, writable=, default=, source=}`. `source` \
                says where the bytes come from: `"region"` (the core's `retro_get_memory_data`), `"map"` (the core's \
                own memory map: its address spaces and descriptors) or `"assembled"` (a bus Retrolua put together \
                from the core's regions and the system's documented layout, for cores that send no map: only what \
                the core exposes is mapped). `writable` on a bus: some of it is (its ROM is not).
                """
        ) { run($0, $1, memoryDomains) },
        LuaFunction(
            "read_bytes", "address: integer, length: integer, domain?: string", returns: "string",
            doc: "Reads `length` bytes as a Lua string."
        ) { run($0, $1, memoryReadBytes) },
        LuaFunction(
            "write_bytes", "address: integer, bytes: string, domain?: string", doc: "Writes the bytes of a Lua string."
        ) { run($0, $1, memoryWriteBytes) },
        LuaFunction(
            "hash", "domain?: string, address?: integer, length?: integer", returns: "string",
            doc: """
                SHA-1 (hex) of a region: the whole domain by default. On a bus-like domain, with no range: each \
                block the memory map maps, once (mirrors are not hashed twice), in the map's order; with a range: \
                the mapped bytes of the range in address order (unmapped addresses skipped).
                """
        ) { run($0, $1, memoryHash) },
    ]

    // MARK: - The functions

    private static func memoryDomains(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let memory = script.memory
        call.newTable(array: memory.domains.count)
        for (index, domain) in memory.domains.enumerated() {
            call.newTable(fields: 6)
            call.set("source", memory.sources[index].rawValue)
            call.set("name", memory.name(domain))
            call.set("size", domain.size)
            call.set("big_endian", domain.bigEndian)
            call.set("writable", domain.writable)
            call.set("default", index == memory.defaultIndex)
            lua_rawseti(call.L, -2, lua_Integer(index + 1))
        }
        return 1
    }

    private static func memoryReadBytes(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let address = try call.integer(1, "address")
        let length = try call.integer(2, "length")
        guard length >= 0 else { throw call.badArgument(2, "length", "must be 0 or more") }
        let memory = script.memory
        let domain = try memory.domain(call, argument: 3)
        if length == 0 { call.push(""); return 1 }
        if let pointer = memory.resolve(domain, address: address, width: length) {
            call.push(bytes: UnsafeRawBufferPointer(start: pointer, count: length))
        } else {
            let bytes = try memory.read(domain, address: address, count: length)
            bytes.withUnsafeBytes { call.push(bytes: $0) }
        }
        return 1
    }

    private static func memoryWriteBytes(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let address = try call.integer(1, "address")
        let bytes = try call.bytes(2, "bytes")
        let emulator = script.emulator
        try emulator.write(bytes, to: try emulator.memory.domain(call, argument: 3), address: address)
        return 0
    }

    private static func memoryHash(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let memory = script.memory
        let domain = try memory.domain(call, argument: 1)
        let address = try call.optionalInteger(2, "address")
        // Without a length, to the domain's end (an address outside it is then refused).
        let length = try call.optionalInteger(3, "length")
        if let length, length <= 0 { throw call.badArgument(3, "length", "must be positive") }
        return call.returning(try memory.sha1(domain, address: address, length: length))
    }
}

extension MemoryAccess {
    /// The domain named by the optional string argument at `argument` (nil: the default domain).
    @inline(__always)
    func domain(_ call: LuaCall, argument: Int32) throws(LuaCallError) -> Domain {
        if call.isNoneOrNil(argument) {
            do { return try defaultDomain() } catch { throw call.error(error.reason) }
        }
        let name = try call.string(argument, "domain")
        do { return try domain(named: name) } catch { throw call.badArgument(argument, "domain", error.reason) }
    }
}
