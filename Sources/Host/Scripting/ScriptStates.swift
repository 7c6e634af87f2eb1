import CLua
import CLuaShim
import Foundation
import Libretro
import LuaRuntime

/// Savestates as scripts make them: containers with script data, in files, slots or Lua userdata.
extension ScriptHost {
    static let stateMetatable = LuaTypeName("retrolua.state")
    /// Bytes before the container inside a state userdata: a flag saying whether this process made it.
    static let stateUserdataHeader = 8

    /// `~/.local/share/retrolua/states/GAME/slotN.state`.
    func slotPath(_ slot: Int) -> String {
        session.paths.states + "/" + (session.content?.baseName ?? session.coreName) + "/slot\(slot).state"
    }

    /// The container's bytes up to the core state.
    private var headerSize: Int { statePrefix.count + StateContainer.countersSize }

    /// Writes header, core state and trailer into `container` (exactly `headerSize + size + tail.count` bytes).
    private func fill(_ container: UnsafeMutableRawPointer, stateSize size: Int, tail: [UInt8]) throws(RetroError) {
        try session.core.serialize(into: UnsafeMutableRawBufferPointer(start: container + headerSize, count: size))
        statePrefix.withUnsafeBytes { container.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        StateContainer.writeCounters(frame: session.frameCount, lag: session.lagCount, stateSize: size, to: container + statePrefix.count)
        tail.withUnsafeBytes { (container + headerSize + size).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    /// A complete container, for files.
    func encodeState() throws(RetroError) -> [UInt8] {
        let size = session.core.serializeSize
        guard size > 0 else { throw .stateUnsupported(core: session.core.systemInfo.libraryName) }
        let tail = StateContainer.trailer(scriptData)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: headerSize + size + tail.count, alignment: 16)
        defer { buffer.deallocate() }
        try fill(buffer.baseAddress!, stateSize: size, tail: tail)
        return Array(buffer)
    }

    /// Pushes a new state userdata, serializing the core straight into it (no intermediate copy).
    func pushNewState(_ L: OpaquePointer) throws(RetroError) {
        let size = session.core.serializeSize
        guard size > 0 else { throw .stateUnsupported(core: session.core.systemInfo.libraryName) }
        let tail = StateContainer.trailer(scriptData)
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + headerSize + size + tail.count, 0)!
        memory.storeBytes(of: UInt64(1), as: UInt64.self)  // made here: loading it needs no safety copy
        do {
            try fill(memory + ScriptHost.stateUserdataHeader, stateSize: size, tail: tail)
        } catch {
            lh_pop(L, 1)
            throw error
        }
        luaL_setmetatable(L, ScriptHost.stateMetatable.cString)
    }

    /// Re-captures the current state into an existing state userdata (no allocation: bots that
    /// branch every frame reuse one object). False when the core's state no longer fits.
    func resave(_ L: OpaquePointer, _ index: Int32) throws(RetroError) -> Bool {
        guard let memory = luaL_testudata(L, index, ScriptHost.stateMetatable.cString) else { return false }
        let size = session.core.serializeSize
        let tail = StateContainer.trailer(scriptData)
        guard Int(lua_rawlen(L, index)) == ScriptHost.stateUserdataHeader + headerSize + size + tail.count else { return false }
        try fill(memory + ScriptHost.stateUserdataHeader, stateSize: size, tail: tail)
        memory.storeBytes(of: UInt64(1), as: UInt64.self)
        return true
    }

    /// Pushes a state userdata holding a copy of `bytes` (validated first).
    func pushState(_ L: OpaquePointer, copying bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        _ = try StateContainer.decode(bytes)
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + bytes.count, 0)!
        memory.storeBytes(of: UInt64(0), as: UInt64.self)
        if !bytes.isEmpty { (memory + ScriptHost.stateUserdataHeader).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        luaL_setmetatable(L, ScriptHost.stateMetatable.cString)
    }

    /// The container bytes of a state object (a method's `self`), and whether this process made it.
    func stateBytes(_ call: LuaCall) throws(LuaCallError) -> (bytes: UnsafeRawBufferPointer, trusted: Bool) {
        let memory = try call.userdata(1, ScriptHost.stateMetatable, "self", expected: "state")
        let size = Int(lua_rawlen(call.L, 1)) - ScriptHost.stateUserdataHeader
        return (UnsafeRawBufferPointer(start: memory + ScriptHost.stateUserdataHeader, count: size),
                memory.load(as: UInt64.self) == 1)
    }

    /// Restores a container (or a bare core state): core, counters, script data. Returns an error
    /// message for an expected failure; the running game is untouched then.
    func loadState(_ bytes: UnsafeRawBufferPointer, trusted: Bool, quiet: Bool = false) -> String? {
        let container: StateContainer
        do { container = try StateContainer.decode(bytes) } catch { return "not a savestate: \(error.message)" }
        let core = session.core
        // States this process made carry this session's own prefix; others are checked.
        if !container.isBare && !trusted {
            let coreName = container.coreName(in: bytes), sha1 = container.contentSHA1(in: bytes)
            if coreName != core.systemInfo.libraryName {
                return "the state was made by \(coreName), not \(core.systemInfo.libraryName)"
            }
            if let ours = session.content?.sha1, !sha1.isEmpty, sha1 != ours {
                return "the state was made with other content (SHA-1 \(sha1.prefix(12))…, this is \(ours.prefix(12))…)"
            }
        }
        do {
            try core.unserialize(UnsafeRawBufferPointer(rebasing: bytes[container.coreState]), protecting: !trusted)
        } catch {
            return error.description
        }
        if !container.isBare {
            session.restoreCounters(frame: container.frame, lag: container.lag)
            scriptData = container.scriptData
        }
        if !quiet { onTimeJump?() }
        return nil
    }
}
