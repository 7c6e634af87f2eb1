import CLua
import LuaRuntime

/// Lua handles of host objects (sockets, images): a userdata holding an id, the object kept in one of the
/// script's tables under that id, so a collected or closed handle never points at freed memory.
extension Bindings {
    /// Keeps `object` in the script's `table` under a fresh id and pushes a handle with `metatable`.
    static func pushNewHandle<Object>(
        _ object: Object, _ call: LuaCall, _ script: Script, in table: ReferenceWritableKeyPath<Script, [Int: Object]>,
        _ metatable: LuaTypeName
    ) {
        let id = script.takeID()
        script[keyPath: table][id] = object
        let memory = lua_newuserdatauv(call.L, MemoryLayout<Int>.size, 0)!
        memory.storeBytes(of: id, as: Int.self)
        luaL_setmetatable(call.L, metatable.cString)
    }

    /// A `__gc`'s work: when argument 1 is a handle with `metatable`, `forget` drops the object under its id.
    static func collectHandle(
        _ L: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ metatable: LuaTypeName,
        forget: (Script, Int) -> Void
    ) -> Int32 {
        if let memory = luaL_testudata(L, 1, metatable.cString) {
            forget(Script.from(context), memory.load(as: Int.self))
        }
        return 0
    }

    /// The id that `self` (argument 1), a handle pushed with `metatable`, carries.
    static func handleID(_ call: LuaCall, _ metatable: LuaTypeName, expected: String) throws(LuaCallError) -> Int {
        try call.userdata(1, metatable, "self", expected: expected).load(as: Int.self)
    }
}
