import CLua
import CLuaShim
import Foundation

/// A programmer mistake in a call from Lua, worded the way Lua's own library words them.
public struct LuaCallError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

/// An error a binding body may throw that Lua sees as `nil, message` when it is an expected failure,
/// else as an error naming the function (the caller's mistake).
public protocol LuaFailure: Error {
    var isExpected: Bool { get }
    var message: String { get }
    /// The failure's kind as a word a script can branch on (`"hardcore"`), returned as a third value
    /// after `nil, message`; nil returns two values.
    var failureKind: String? { get }
}

extension LuaFailure {
    public var failureKind: String? { nil }
}

/// The arguments of one call from Lua into a Swift binding, read without ever raising.
///
/// Errors are thrown as Swift errors and turned into a Lua error by `LuaCall.run` after the Swift
/// frames are gone (the C trampoline raises), so a bad argument never longjmps over Swift.
public struct LuaCall {
    public let L: OpaquePointer

    /// Stands for `module.function` in messages until `run` fills in the name, so a call that
    /// succeeds never builds its own name.
    public var function: String { "\u{1}" }

    public init(_ L: OpaquePointer) {
        self.L = L
    }

    /// Runs a binding body: its return value is the number of results, thrown errors become Lua errors
    /// naming the function it was registered as (looked up only then).
    @inline(__always)
    public static func run(_ L: OpaquePointer?, _ body: (LuaCall) throws -> Int32) -> Int32 {
        let call = LuaCall(L!)
        do {
            return try body(call)
        } catch let error as LuaCallError {
            lua_pushstring(L, error.message.replacingOccurrences(of: call.function, with: call.registeredName))
            return LH_RAISE
        } catch let failure as LuaFailure {
            if failure.isExpected { return call.failure(failure.message, kind: failure.failureKind) }
            lua_pushstring(L, "\(call.registeredName): \(failure.message)")
            return LH_RAISE
        } catch {
            lua_pushstring(L, "\(call.registeredName): \(error)")
            return LH_RAISE
        }
    }

    /// The name the running binding was registered under (`memory.read_u8`, `state:load`).
    public var registeredName: String { lh_binding_name(L).map { String(cString: $0) } ?? "?" }

    public var count: Int32 { lua_gettop(L) }

    public func type(_ index: Int32) -> Int32 { lua_type(L, index) }

    public func isNoneOrNil(_ index: Int32) -> Bool { lua_type(L, index) <= LUA_TNIL }

    /// `memory.read_u8: bad argument #1 'address' (integer expected, got string)`.
    public func badArgument(_ index: Int32, _ name: String, _ problem: String) -> LuaCallError {
        LuaCallError("\(function): bad argument #\(index) '\(name)' (\(problem))")
    }

    /// `gui.text: bad field 'color' in argument #4 (…)`.
    public func badField(_ argument: Int32, _ key: String, _ problem: String) -> LuaCallError {
        LuaCallError("\(function): bad field '\(key)' in argument #\(argument) (\(problem))")
    }

    public func error(_ message: String) -> LuaCallError {
        LuaCallError("\(function): \(message)")
    }

    public func typeName(_ index: Int32) -> String {
        let type = lua_type(L, index)
        return type == LUA_TNONE ? "no value" : String(cString: lua_typename(L, type))
    }

    // MARK: Required arguments

    public func integer(_ index: Int32, _ name: String) throws(LuaCallError) -> Int {
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, index, &isInteger)
        if isInteger != 0 && lua_type(L, index) == LUA_TNUMBER { return Int(value) }
        if lua_type(L, index) == LUA_TNUMBER {
            throw badArgument(index, name, "number has no integer representation")
        }
        throw badArgument(index, name, "integer expected, got \(typeName(index))")
    }

    public func number(_ index: Int32, _ name: String) throws(LuaCallError) -> Double {
        guard lua_type(L, index) == LUA_TNUMBER else {
            throw badArgument(index, name, "number expected, got \(typeName(index))")
        }
        return lua_tonumberx(L, index, nil)
    }

    public func string(_ index: Int32, _ name: String) throws(LuaCallError) -> String {
        guard lua_type(L, index) == LUA_TSTRING else {
            throw badArgument(index, name, "string expected, got \(typeName(index))")
        }
        var length = 0
        let pointer = lua_tolstring(L, index, &length)!
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// The raw bytes of a string argument, valid while the value stays on the stack.
    public func bytes(_ index: Int32, _ name: String) throws(LuaCallError) -> UnsafeRawBufferPointer {
        guard lua_type(L, index) == LUA_TSTRING else {
            throw badArgument(index, name, "string expected, got \(typeName(index))")
        }
        var length = 0
        let pointer = lua_tolstring(L, index, &length)!
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    public func boolean(_ index: Int32, _ name: String) throws(LuaCallError) -> Bool {
        guard lua_type(L, index) == LUA_TBOOLEAN else {
            throw badArgument(index, name, "boolean expected, got \(typeName(index))")
        }
        return lua_toboolean(L, index) != 0
    }

    public func function(_ index: Int32, _ name: String) throws(LuaCallError) {
        guard lua_type(L, index) == LUA_TFUNCTION else {
            throw badArgument(index, name, "function expected, got \(typeName(index))")
        }
    }

    public func table(_ index: Int32, _ name: String) throws(LuaCallError) {
        guard lua_type(L, index) == LUA_TTABLE else {
            throw badArgument(index, name, "table expected, got \(typeName(index))")
        }
    }

    /// The userdata of `type` at `index` (a method's `self`), or a bad-argument error naming `expected`.
    public func userdata(
        _ index: Int32, _ type: LuaTypeName, _ name: String, expected: String
    ) throws(LuaCallError) -> UnsafeMutableRawPointer {
        guard let memory = luaL_testudata(L, index, type.cString) else {
            throw badArgument(index, name, "\(expected) expected, got \(typeName(index))")
        }
        return memory
    }

    // MARK: Optional arguments (nil or absent → nil)

    public func optionalInteger(_ index: Int32, _ name: String) throws(LuaCallError) -> Int? {
        isNoneOrNil(index) ? nil : try integer(index, name)
    }

    public func optionalNumber(_ index: Int32, _ name: String) throws(LuaCallError) -> Double? {
        isNoneOrNil(index) ? nil : try number(index, name)
    }

    public func optionalString(_ index: Int32, _ name: String) throws(LuaCallError) -> String? {
        isNoneOrNil(index) ? nil : try string(index, name)
    }

    public func optionalBoolean(_ index: Int32, _ name: String) throws(LuaCallError) -> Bool? {
        isNoneOrNil(index) ? nil : try boolean(index, name)
    }

    public func optionalTable(_ index: Int32, _ name: String) throws(LuaCallError) -> Bool {
        if isNoneOrNil(index) { return false }
        try table(index, name)
        return true
    }

    // MARK: Fields of a table argument, read raw (no metamethods, so nothing can raise)

    /// Pushes `table[key]` (raw) and returns its Lua type; the caller pops it.
    public func pushField(_ table: Int32, _ key: String) -> Int32 {
        let absolute = lua_absindex(L, table)
        lua_pushstring(L, key)
        return lua_rawget(L, absolute)
    }

    /// Walks the table at `table` (an absolute index, the top of the stack): `body` gets each key with its
    /// value on top of the stack; a key that is not a string is `argument`'s error `keysProblem`.
    public func forEachNamedEntry(
        _ table: Int32, argument: Int32, _ name: String, keysProblem: String,
        _ body: (String) throws(LuaCallError) -> Void
    ) throws(LuaCallError) {
        let top = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            defer { lua_settop(L, top + 1) }
            guard lua_type(L, -2) == LUA_TSTRING, let key = lua_tolstring(L, -2, nil).map({ String(cString: $0) })
            else { throw badArgument(argument, name, keysProblem) }
            try body(key)
        }
    }

    public func field<T>(
        _ table: Int32, _ key: String, argument: Int32, _ read: (Int32) throws(LuaCallError) -> T?
    ) throws(LuaCallError) -> T? {
        let type = pushField(table, key)
        defer { lh_pop(L, 1) }
        if type == LUA_TNIL { return nil }
        do {
            return try read(-1)
        } catch {
            // Re-word "bad argument #-1 'x' (problem)" as a field of the argument.
            throw badField(argument, key, String(error.message.components(afterLast: "(").dropLast()))
        }
    }

    public func integerField(_ table: Int32, _ key: String, argument: Int32) throws(LuaCallError) -> Int? {
        try field(table, key, argument: argument) { (index) throws(LuaCallError) in try integer(index, key) }
    }

    public func numberField(_ table: Int32, _ key: String, argument: Int32) throws(LuaCallError) -> Double? {
        try field(table, key, argument: argument) { (index) throws(LuaCallError) in try number(index, key) }
    }

    public func stringField(_ table: Int32, _ key: String, argument: Int32) throws(LuaCallError) -> String? {
        try field(table, key, argument: argument) { (index) throws(LuaCallError) in try string(index, key) }
    }

    public func booleanField(_ table: Int32, _ key: String, argument: Int32) throws(LuaCallError) -> Bool? {
        try field(table, key, argument: argument) { (index) throws(LuaCallError) in try boolean(index, key) }
    }

    // MARK: Results

    public func push(_ value: Int) { lua_pushinteger(L, lua_Integer(value)) }
    public func push(_ value: Double) { lua_pushnumber(L, value) }
    public func push(_ value: Bool) { lua_pushboolean(L, value ? 1 : 0) }
    public func push(_ value: String) { lua_pushstring(L, value) }
    public func pushNil() { lua_pushnil(L) }

    public func push(bytes: UnsafeRawBufferPointer) {
        lua_pushlstring(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// The `nil, message` pair of an expected failure; `nil, message, kind` when it has a kind.
    public func failure(_ message: String, kind: String? = nil) -> Int32 {
        lua_pushnil(L)
        lua_pushstring(L, message)
        guard let kind else { return 2 }
        lua_pushstring(L, kind)
        return 3
    }

    /// Sets `t[key] = value` on the table at the top of the stack (a fresh table: no metamethods).
    public func set(_ key: String, _ value: Int) { lua_pushinteger(L, lua_Integer(value)); lua_setfield(L, -2, key) }
    public func set(_ key: String, _ value: Double) { lua_pushnumber(L, value); lua_setfield(L, -2, key) }
    public func set(_ key: String, _ value: Bool) { lua_pushboolean(L, value ? 1 : 0); lua_setfield(L, -2, key) }
    public func set(_ key: String, _ value: String) { lua_pushstring(L, value); lua_setfield(L, -2, key) }

    public func newTable(array: Int = 0, fields: Int = 0) { lua_createtable(L, Int32(array), Int32(fields)) }

    /// Pushes a fresh list `{…}` of `items`: `pushElement` leaves each one's Lua value at the top of the stack.
    public func pushList<Items: Collection>(_ items: Items, _ pushElement: (Items.Element) throws -> Void) rethrows {
        newTable(array: items.count)
        for (index, item) in items.enumerated() {
            try pushElement(item)
            lua_rawseti(L, -2, lua_Integer(index + 1))
        }
    }
}

extension String {
    /// The text after the last occurrence of `separator`, or the whole string.
    func components(afterLast separator: Character) -> String {
        guard let index = lastIndex(of: separator) else { return self }
        return String(self[self.index(after: index)...])
    }
}
