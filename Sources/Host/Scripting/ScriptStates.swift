import CLua
import CLuaShim
import Foundation
import Libretro
import LuaRuntime

/// Savestates as scripts make them: containers with script data, in files, slots or Lua userdata.
extension ScriptHost {
    static let stateMetatable = "retrolua.state"
    /// Bytes before the container inside a state userdata: a flag saying whether this process made it.
    static let stateUserdataHeader = 8

    /// `~/.local/share/retrolua/states/GAME/slotN.state`.
    func slotPath(_ slot: Int) -> String {
        session.paths.states + "/" + (session.content?.baseName ?? session.coreName) + "/slot\(slot).state"
    }

    private func header(stateSize: Int) -> [UInt8] {
        StateContainer.header(coreName: session.core.systemInfo.libraryName, contentSHA1: session.content?.sha1 ?? "",
                              frame: session.frameCount, lag: session.lagCount, stateSize: stateSize)
    }

    /// A complete container, for files.
    func encodeState() throws(RetroError) -> [UInt8] {
        let core = try session.core.serialize()
        return header(stateSize: core.count) + core + StateContainer.trailer(scriptData)
    }

    /// Pushes a new state userdata, serializing the core straight into it (no intermediate copy).
    func pushNewState(_ L: OpaquePointer) throws(RetroError) {
        let size = session.core.serializeSize
        guard size > 0 else { throw .stateUnsupported(core: session.core.systemInfo.libraryName) }
        let head = header(stateSize: size), tail = StateContainer.trailer(scriptData)
        let total = ScriptHost.stateUserdataHeader + head.count + size + tail.count
        let memory = lua_newuserdatauv(L, total, 0)!
        memory.storeBytes(of: UInt64(1), as: UInt64.self)  // made here: loading it needs no safety copy
        let container = memory + ScriptHost.stateUserdataHeader
        head.withUnsafeBytes { container.copyMemory(from: $0.baseAddress!, byteCount: head.count) }
        do {
            try session.core.serialize(into: UnsafeMutableRawBufferPointer(start: container + head.count, count: size))
        } catch {
            lh_pop(L, 1)
            throw error
        }
        tail.withUnsafeBytes { (container + head.count + size).copyMemory(from: $0.baseAddress!, byteCount: tail.count) }
        luaL_setmetatable(L, ScriptHost.stateMetatable)
    }

    /// Pushes a state userdata holding a copy of `bytes` (validated first).
    func pushState(_ L: OpaquePointer, copying bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        _ = try StateContainer.decode(bytes)
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + bytes.count, 0)!
        memory.storeBytes(of: UInt64(0), as: UInt64.self)
        if !bytes.isEmpty { (memory + ScriptHost.stateUserdataHeader).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        luaL_setmetatable(L, ScriptHost.stateMetatable)
    }

    /// The container bytes of the state userdata at `index`, and whether this process made it.
    func stateBytes(_ L: OpaquePointer, _ index: Int32) -> (bytes: UnsafeRawBufferPointer, trusted: Bool)? {
        guard let memory = luaL_testudata(L, index, ScriptHost.stateMetatable) else { return nil }
        let size = Int(lua_rawlen(L, index)) - ScriptHost.stateUserdataHeader
        return (UnsafeRawBufferPointer(start: memory + ScriptHost.stateUserdataHeader, count: size),
                memory.load(as: UInt64.self) == 1)
    }

    /// Restores a container (or a bare core state): core, counters, script data. Returns an error
    /// message for an expected failure; the running game is untouched then.
    func loadState(_ bytes: UnsafeRawBufferPointer, trusted: Bool) -> String? {
        let container: StateContainer
        do { container = try StateContainer.decode(bytes) } catch { return "not a savestate: \(error.message)" }
        let core = session.core
        if !container.isBare {
            if container.coreName != core.systemInfo.libraryName {
                return "the state was made by \(container.coreName), not \(core.systemInfo.libraryName)"
            }
            if let sha1 = session.content?.sha1, !container.contentSHA1.isEmpty, container.contentSHA1 != sha1 {
                return "the state was made with other content (SHA-1 \(container.contentSHA1.prefix(12))…, this is \(sha1.prefix(12))…)"
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
        return nil
    }
}
