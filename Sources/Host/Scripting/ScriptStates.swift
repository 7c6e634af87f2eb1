import CLua
import CLuaShim
import Foundation
import Libretro
import LuaRuntime

/// Savestates as scripts make them: containers with script data, in files, slots or Lua userdata.
extension ScriptHost {
    static let stateMetatable = LuaTypeName("retrolua.state")
    /// Bytes before the container inside a state userdata: a flag saying whether this process made it,
    /// and the container's length (the userdata may be larger: room for a growing movie log).
    static let stateUserdataHeader = 16

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

    /// Script data and, during a movie, its input up to now.
    private func stateTrailer() -> [UInt8] { StateContainer.trailer(scriptData, movieBlock: movie.stateBlock()) }

    /// A complete container, for files.
    func encodeState() throws(RetroError) -> [UInt8] {
        let size = session.core.serializeSize
        guard size > 0 else { throw .stateUnsupported(core: session.core.systemInfo.libraryName) }
        let tail = stateTrailer()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: headerSize + size + tail.count, alignment: 16)
        defer { buffer.deallocate() }
        try fill(buffer.baseAddress!, stateSize: size, tail: tail)
        return Array(buffer)
    }

    /// Pushes a new state userdata, serializing the core straight into it (no intermediate copy).
    func pushNewState(_ L: OpaquePointer) throws(RetroError) {
        let size = session.core.serializeSize
        guard size > 0 else { throw .stateUnsupported(core: session.core.systemInfo.libraryName) }
        let tail = stateTrailer()
        let length = headerSize + size + tail.count
        // During a movie the log grows every frame: leave room so `state:save()` can reuse the object.
        let room = movie.isActive ? max(4096, tail.count / 4) : 0
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + length + room, 0)!
        memory.storeBytes(of: UInt64(1), as: UInt64.self)  // made here: loading it needs no safety copy
        (memory + 8).storeBytes(of: UInt64(length), as: UInt64.self)
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
        let tail = stateTrailer()
        let length = headerSize + size + tail.count
        guard Int(lua_rawlen(L, index)) >= ScriptHost.stateUserdataHeader + length else { return false }
        try fill(memory + ScriptHost.stateUserdataHeader, stateSize: size, tail: tail)
        memory.storeBytes(of: UInt64(1), as: UInt64.self)
        (memory + 8).storeBytes(of: UInt64(length), as: UInt64.self)
        return true
    }

    /// Pushes a state userdata holding a copy of `bytes` (validated first).
    func pushState(_ L: OpaquePointer, copying bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        _ = try StateContainer.decode(bytes)
        let memory = lua_newuserdatauv(L, ScriptHost.stateUserdataHeader + bytes.count, 0)!
        memory.storeBytes(of: UInt64(0), as: UInt64.self)
        (memory + 8).storeBytes(of: UInt64(bytes.count), as: UInt64.self)
        if !bytes.isEmpty { (memory + ScriptHost.stateUserdataHeader).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        luaL_setmetatable(L, ScriptHost.stateMetatable.cString)
    }

    /// The container bytes of a state object (a method's `self`), and whether this process made it.
    func stateBytes(_ call: LuaCall) throws(LuaCallError) -> (bytes: UnsafeRawBufferPointer, trusted: Bool) {
        let memory = try call.userdata(1, ScriptHost.stateMetatable, "self", expected: "state")
        let size = Int((memory + 8).load(as: UInt64.self))
        return (UnsafeRawBufferPointer(start: memory + ScriptHost.stateUserdataHeader, count: size),
                memory.load(as: UInt64.self) == 1)
    }

    /// Loads a state file's bytes as `savestate.load` does; a message when it cannot.
    public func loadState(bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { loadState($0, trusted: false) }
    }

    /// Restores a container (or a bare core state): core, counters, script data. Returns an error
    /// message for an expected failure; the running game is untouched then. During a movie the
    /// state must suit it (`MovieEngine.checkLoad`); quiet loads (run-ahead's undo) skip that.
    func loadState(_ bytes: UnsafeRawBufferPointer, trusted: Bool, quiet: Bool = false, checkMovie: Bool = true) -> String? {
        let container: StateContainer
        do { container = try StateContainer.decode(bytes) } catch { return "not a savestate: \(error.message)" }
        var block: MovieStateBlock?
        let movieRules = checkMovie && !quiet && movie.isActive
        if movieRules {
            if let range = container.movieBlock {
                guard let decoded = MovieStateBlock.decode(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
                    return "the state's movie input is corrupt"
                }
                block = decoded
            }
            if let problem = movie.checkLoad(block) { return problem }
        }
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
        if movieRules { movie.didLoad(block) }
        if !quiet { onTimeJump?() }
        return nil
    }
}
