import CLua
import CLuaShim
import Emulation
import Foundation
import Libretro
import LuaRuntime

/// Savestates as Lua userdata (`savestate.create()`): the emulator writes the container straight into
/// the userdata's memory, so bots that branch every frame copy nothing twice.
extension ScriptHost {
    static let stateMetatable = LuaTypeName("retrolua.state")
    /// Bytes before the container inside a state userdata: a flag saying whether this process made it,
    /// and the container's length (the userdata may be larger: room for a growing movie log).
    static let stateUserdataHeader = 16

    /// Pushes a new state userdata, serializing the core straight into it (no intermediate copy).
    func pushNewState(_ L: OpaquePointer) throws(Refusal) {
        let layout = try emulator.stateLayout()
        // During a movie the log grows every frame: leave room so `state:save()` can reuse the object.
        let room = emulator.movie.isActive ? max(4096, layout.length / 4) : 0
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + layout.length + room, 0)!
        memory.storeBytes(of: UInt64(1), as: UInt64.self)  // made here: loading it needs no safety copy
        (memory + 8).storeBytes(of: UInt64(layout.length), as: UInt64.self)
        do {
            try emulator.writeState(layout, into: memory + ScriptHost.stateUserdataHeader)
        } catch {
            lh_pop(L, 1)
            throw error
        }
        luaL_setmetatable(L, ScriptHost.stateMetatable.cString)
    }

    /// Re-captures the current state into an existing state userdata (no allocation: bots that
    /// branch every frame reuse one object). False when the core's state no longer fits.
    func resave(_ L: OpaquePointer, _ index: Int32) throws(Refusal) -> Bool {
        guard let memory = luaL_testudata(L, index, ScriptHost.stateMetatable.cString) else { return false }
        let layout = try emulator.stateLayout()
        guard Int(lua_rawlen(L, index)) >= ScriptHost.stateUserdataHeader + layout.length else { return false }
        try emulator.writeState(layout, into: memory + ScriptHost.stateUserdataHeader)
        memory.storeBytes(of: UInt64(1), as: UInt64.self)
        (memory + 8).storeBytes(of: UInt64(layout.length), as: UInt64.self)
        return true
    }

    /// Pushes a state userdata holding a copy of `bytes` (validated first).
    func pushState(_ L: OpaquePointer, copying bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        try StateContainer.validate(bytes)
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + bytes.count, 0)!
        memory.storeBytes(of: UInt64(0), as: UInt64.self)
        (memory + 8).storeBytes(of: UInt64(bytes.count), as: UInt64.self)
        if !bytes.isEmpty {
            (memory + ScriptHost.stateUserdataHeader).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        luaL_setmetatable(L, ScriptHost.stateMetatable.cString)
    }

    /// The container bytes of a state object (a method's `self`), and whether this process made it.
    func stateBytes(_ call: LuaCall) throws(LuaCallError) -> (bytes: UnsafeRawBufferPointer, trusted: Bool) {
        let memory = try call.userdata(1, ScriptHost.stateMetatable, "self", expected: "state")
        let size = Int((memory + 8).load(as: UInt64.self))
        return (
            UnsafeRawBufferPointer(start: memory + ScriptHost.stateUserdataHeader, count: size),
            memory.load(as: UInt64.self) == 1
        )
    }
}
