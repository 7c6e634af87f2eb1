import CLua
import CLuaShim

/// Plain Lua values (nil, booleans, numbers, strings, tables of those) as bytes, so scripts can store
/// data inside savestates. Reads and pushes never raise.
public enum LuaSerializer {
    private enum Tag: UInt8 { case null = 0, no, yes, integer, float, string, table }
    private static let maxDepth = 64

    /// Encodes the value at `index`; throws for functions, userdata, threads and cycles.
    public static func encode(_ L: OpaquePointer, _ index: Int32) throws(LuaCallError) -> [UInt8] {
        var out: [UInt8] = []
        try encode(L, lua_absindex(L, index), into: &out, depth: 0)
        return out
    }

    private static func encode(
        _ L: OpaquePointer, _ index: Int32, into out: inout [UInt8], depth: Int
    ) throws(LuaCallError) {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE:
            out.append(Tag.null.rawValue)
        case LUA_TBOOLEAN:
            out.append(lua_toboolean(L, index) != 0 ? Tag.yes.rawValue : Tag.no.rawValue)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 {
                out.append(Tag.integer.rawValue)
                append(UInt64(bitPattern: Int64(lua_tointegerx(L, index, nil))), to: &out)
            } else {
                out.append(Tag.float.rawValue)
                append(lua_tonumberx(L, index, nil).bitPattern, to: &out)
            }
        case LUA_TSTRING:
            var length = 0
            let pointer = lua_tolstring(L, index, &length)!
            out.append(Tag.string.rawValue)
            append(UInt64(length), to: &out)
            out.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: length))
        case LUA_TTABLE:
            guard depth < maxDepth else {
                throw LuaCallError("tables nested deeper than \(maxDepth) levels (a cycle?)")
            }
            guard lua_checkstack(L, 3) != 0 else { throw LuaCallError("Lua stack exhausted") }
            out.append(Tag.table.rawValue)
            let countAt = out.count
            append(UInt64(0), to: &out)
            var count: UInt64 = 0
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                let top = lua_gettop(L)
                do {
                    try encode(L, top - 1, into: &out, depth: depth + 1)
                    try encode(L, top, into: &out, depth: depth + 1)
                } catch {
                    lh_pop(L, 2)
                    throw error
                }
                lh_pop(L, 1)
                count += 1
            }
            withUnsafeBytes(of: count.littleEndian) { out.replaceSubrange(countAt..<countAt + 8, with: $0) }
        default:
            throw LuaCallError(
                """
                a \(String(cString: lua_typename(L, lua_type(L, index)))) cannot be stored (only nil, booleans, \
                numbers, strings and tables)
                """
            )
        }
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Pushes the decoded value; returns false (pushing nothing) for malformed bytes.
    public static func push(_ L: OpaquePointer, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        let top = lua_gettop(L)
        let ok = bytes.withUnsafeBytes { push(L, $0, &offset, depth: 0) }
        if !ok || offset != bytes.count {
            lua_settop(L, top)
            return false
        }
        return true
    }

    private static func push(
        _ L: OpaquePointer, _ bytes: UnsafeRawBufferPointer, _ offset: inout Int, depth: Int
    ) -> Bool {
        guard offset < bytes.count, depth <= maxDepth, lua_checkstack(L, 3) != 0, let tag = Tag(rawValue: bytes[offset])
        else { return false }
        offset += 1
        func word() -> UInt64? {
            guard offset + 8 <= bytes.count else { return nil }
            defer { offset += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        switch tag {
        case .null: lua_pushnil(L)
        case .no: lua_pushboolean(L, 0)
        case .yes: lua_pushboolean(L, 1)
        case .integer:
            guard let value = word() else { return false }
            lua_pushinteger(L, lua_Integer(Int64(bitPattern: value)))
        case .float:
            guard let value = word() else { return false }
            lua_pushnumber(L, Double(bitPattern: value))
        case .string:
            guard let length = word(), length <= UInt64(bytes.count - offset) else { return false }
            lua_pushlstring(L, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int(length))
            offset += Int(length)
        case .table:
            guard let count = word(), count <= UInt64(bytes.count) else { return false }
            lua_createtable(L, 0, Int32(min(count, 1 << 16)))
            for _ in 0..<count {
                guard push(L, bytes, &offset, depth: depth + 1) else { return false }
                guard push(L, bytes, &offset, depth: depth + 1) else { return false }
                // nil and NaN keys would make lua_rawset raise.
                if lua_type(L, -2) == LUA_TNIL { return false }
                if lua_type(L, -2) == LUA_TNUMBER && lua_tonumberx(L, -2, nil).isNaN { return false }
                lua_rawset(L, -3)
            }
        }
        return true
    }
}
