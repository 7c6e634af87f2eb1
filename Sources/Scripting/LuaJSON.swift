import CLua
import CLuaShim
import Foundation

/// A JSON value made from Lua (a tool's result, a console chunk's values): Sendable, and Foundation's
/// objects on demand for a reply.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// As JSONSerialization writes it (null: `NSNull`).
    public var foundation: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .integer(let value): return value
        case .number(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.foundation)
        case .object(let fields): return fields.mapValues(\.foundation)
        }
    }
}

/// The one conversion between Lua values and JSON (`call_tool`, the console's `json` option), strict both
/// ways: what has no JSON form is an error naming where it is, never a guess; depth and size are bounded.
/// Tables are read raw (no metamethod runs, so nothing can raise or loop).
enum LuaJSON {
    static let maxDepth = 32
    /// The most bytes of JSON a value may make, about (strings and keys counted by their length).
    static let maxBytes = 1 << 20
    /// The most bytes of JSON arguments that become Lua values, about.
    static let maxArgumentBytes = 4 << 20

    /// Why a value has no JSON form, as a noun phrase (`a function (at .items[2])`).
    struct Problem: Error {
        let message: String
    }

    // MARK: Lua → JSON

    /// The Lua value at `index` as JSON: nil → null; booleans; integers; finite floats; strings (invalid
    /// UTF-8 replaced with U+FFFD); tables whose keys are 1…n → arrays, whose keys are strings → objects (an
    /// empty table → `[]`). Functions, userdata, NaN, mixed or other keys, cycles, depth past 32 and more than
    /// `maxBytes` are problems.
    static func value(_ L: OpaquePointer, at index: Int32) throws(Problem) -> JSONValue {
        var encoder = Encoder(L: L)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        return try encoder.value(at: lua_absindex(L, index), depth: 0)
    }

    private struct Encoder {
        let L: OpaquePointer
        var bytes = 0
        /// The tables being read, outermost first: one met again contains itself.
        var open: [UnsafeRawPointer] = []
        /// Where the value being read is (`.items[2].name`), for messages.
        var path: [String] = []

        mutating func problem(_ what: String) -> Problem {
            Problem(message: path.isEmpty ? what : "\(what) (at \(path.joined()))")
        }

        mutating func count(_ size: Int) throws(Problem) {
            bytes += size
            if bytes > LuaJSON.maxBytes { throw problem("more than \(LuaJSON.maxBytes >> 20) MB of JSON") }
        }

        mutating func value(at index: Int32, depth: Int) throws(Problem) -> JSONValue {
            switch lua_type(L, index) {
            case LUA_TNIL, LUA_TNONE:
                try count(4)
                return .null
            case LUA_TBOOLEAN:
                try count(5)
                return .bool(lua_toboolean(L, index) != 0)
            case LUA_TNUMBER:
                try count(24)
                if lua_isinteger(L, index) != 0 { return .integer(Int(lua_tointegerx(L, index, nil))) }
                let number = lua_tonumberx(L, index, nil)
                guard number.isFinite else { throw problem(number.isNaN ? "NaN" : "an infinite number") }
                return .number(number)
            case LUA_TSTRING:
                let text = string(at: index)
                try count(text.utf8.count + 2)
                return .string(text)
            case LUA_TTABLE:
                return try table(at: index, depth: depth)
            default:
                throw problem("a \(String(cString: lua_typename(L, lua_type(L, index))))")
            }
        }

        func string(at index: Int32) -> String {
            var length = 0
            let pointer = lua_tolstring(L, index, &length)!
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }

        mutating func table(at index: Int32, depth: Int) throws(Problem) -> JSONValue {
            guard depth < LuaJSON.maxDepth else { throw problem("tables nested deeper than \(LuaJSON.maxDepth)") }
            let pointer = lua_topointer(L, index)!
            guard !open.contains(pointer) else { throw problem("a table that contains itself") }
            guard lua_checkstack(L, 4) != 0 else { throw problem("tables nested too deep for the Lua stack") }
            open.append(pointer)
            defer { open.removeLast() }
            try count(2)
            // First the keys' kinds: all strings (an object) or exactly 1…n (an array).
            var entries = 0, strings = 0, largest: lua_Integer = 0
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                lh_pop(L, 1)
                entries += 1
                switch lua_type(L, -1) {
                case LUA_TSTRING: strings += 1
                case LUA_TNUMBER where lua_isinteger(L, -1) != 0 && lua_tointegerx(L, -1, nil) > 0:
                    largest = max(largest, lua_tointegerx(L, -1, nil))
                case LUA_TNUMBER:
                    lh_pop(L, 1)
                    throw problem("a table with a number key that is not a positive integer")
                default:
                    let kind = String(cString: lua_typename(L, lua_type(L, -1)))
                    lh_pop(L, 1)
                    throw problem("a table with a \(kind) key")
                }
            }
            if strings == entries && entries > 0 {
                var fields: [String: JSONValue] = [:]
                lua_pushnil(L)
                while lua_next(L, index) != 0 {
                    let key = string(at: -2)
                    path.append(Self.isName(key) ? "." + key : "[\"\(key.prefix(40))\"]")
                    defer { path.removeLast() }
                    do {
                        try count(key.utf8.count + 4)
                        fields[key] = try value(at: lua_gettop(L), depth: depth + 1)
                    } catch {
                        lh_pop(L, 2)
                        throw error
                    }
                    lh_pop(L, 1)
                }
                return .object(fields)
            }
            guard strings == 0 else { throw problem("a table that mixes string and number keys") }
            guard largest == entries else { throw problem("a table whose number keys are not a sequence 1…n") }
            var items: [JSONValue] = []
            items.reserveCapacity(entries)
            for position in 0..<entries {
                lua_rawgeti(L, index, lua_Integer(position + 1))
                path.append("[\(position + 1)]")
                defer {
                    path.removeLast()
                    lh_pop(L, 1)
                }
                try count(1)
                items.append(try value(at: lua_gettop(L), depth: depth + 1))
            }
            return .array(items)
        }

        static func isName(_ key: String) -> Bool {
            guard let first = key.utf8.first, !(48...57).contains(first) else { return false }
            return key.utf8.allSatisfy {
                $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            }
        }
    }

    // MARK: JSON → Lua

    /// A JSON number or boolean as Foundation's parser gives it (booleans are NSNumbers of type "c").
    enum Scalar {
        case bool(Bool), integer(Int), number(Double)
    }

    static func scalar(_ value: Any) -> Scalar? {
        if let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .number(number.doubleValue)
            case "Q" where number.uint64Value > UInt64(Int.max): return .number(number.doubleValue)
            default: return .integer(number.intValue)
            }
        }
        switch value {
        case let flag as Bool: return .bool(flag)
        case let integer as Int: return .integer(integer)
        case let number as Double: return .number(number)
        default: return nil
        }
    }

    /// Checks a parsed JSON value before it becomes Lua: nesting up to `maxDepth`, about `maxArgumentBytes`.
    static func measure(_ value: Any, depth: Int = 0, bytes: inout Int) throws(Problem) {
        guard depth <= maxDepth else { throw Problem(message: "arguments nested deeper than \(maxDepth)") }
        bytes += 16
        switch value {
        case let text as String: bytes += text.utf8.count
        case let list as [Any]:
            for item in list { try measure(item, depth: depth + 1, bytes: &bytes) }
        case let object as [String: Any]:
            for (key, item) in object {
                bytes += key.utf8.count
                try measure(item, depth: depth + 1, bytes: &bytes)
            }
        default: break
        }
        if bytes > maxArgumentBytes { throw Problem(message: "arguments larger than \(maxArgumentBytes >> 20) MB") }
    }

    /// Pushes a parsed (and measured) JSON value: objects → tables, arrays → sequences, null → nil. Called
    /// inside a binding, where an allocation past the script's cap is raised once the binding returns.
    static func push(_ value: Any, _ L: OpaquePointer) {
        guard lua_checkstack(L, 3) != 0 else { return lua_pushnil(L) }
        if let scalar = scalar(value) {
            switch scalar {
            case .bool(let flag): lua_pushboolean(L, flag ? 1 : 0)
            case .integer(let integer): lua_pushinteger(L, lua_Integer(integer))
            case .number(let number): lua_pushnumber(L, number)
            }
            return
        }
        switch value {
        case let text as String:
            text.utf8CString.withUnsafeBufferPointer { _ = lua_pushlstring(L, $0.baseAddress, $0.count - 1) }
        case let list as [Any]:
            lua_createtable(L, Int32(clamping: list.count), 0)
            for (index, item) in list.enumerated() {
                push(item, L)
                lua_rawseti(L, -2, lua_Integer(index + 1))
            }
        case let object as [String: Any]:
            lua_createtable(L, 0, Int32(clamping: object.count))
            for (key, item) in object {
                key.utf8CString.withUnsafeBufferPointer { _ = lua_pushlstring(L, $0.baseAddress, $0.count - 1) }
                push(item, L)
                lua_rawset(L, -3)
            }
        default: lua_pushnil(L)
        }
    }
}
