import CLua
import CLuaShim
import Emulation
import Foundation
import LuaRuntime
import Libretro
import Media
import Support

/// One user script: its own Lua state, its main chunk as a coroutine, its callbacks and watches.
public final class Script {
    let path: String
    /// The file name, used in messages.
    let name: String
    let lua: LuaState
    /// The host outlives its scripts; unowned(unsafe) keeps reference counting off the binding path.
    unowned(unsafe) let host: ScriptHost
    /// The emulator this script drives and its memory, held like `host` (they outlive their scripts):
    /// `memory.read_u8` reaches the bytes without touching a reference count.
    unowned(unsafe) let emulator: Emulator
    unowned(unsafe) let memory: MemoryAccess
    /// The main chunk's coroutine while it is alive (anchored in the registry).
    private(set) var thread: OpaquePointer?
    private var threadReference: Int32 = LUA_NOREF
    /// The thread running this script's Lua right now, so nested event dispatch uses it.
    var activeThread: OpaquePointer?
    /// A console chunk being run (`ScriptConsole`): like the main chunk, it may wait for frames.
    var evaluatingThread: OpaquePointer?
    /// Where `print` and `console.*` write while a console chunk runs (its reply), instead of the terminal.
    var outputSink: ((String, Bool) -> Void)?
    private(set) var callbacks: [(id: Int, event: ScriptEvent, reference: Int32)] = []
    var watches: [MemoryWatch] = []
    private var nextID = 1
    public private(set) var failed = false
    /// Why it failed (the first error), once it has.
    public private(set) var failure: String?
    /// Images loaded by path for `gui.image`, so drawing one every frame does not reread the file.
    var imageCache: [String: RGBAImage] = [:]
    /// Pixels of image objects from `gui.load_image`, by the id stored in the userdata.
    var images: [Int: RGBAImage] = [:]
    /// Rewind histories from `rewind.new`, by the id stored in the userdata.
    var rewindBuffers: [Int: RewindBuffer] = [:]
    /// UDP sockets from `net.udp`, by the id stored in the userdata (closed with the script).
    var sockets: [Int: DatagramSocket] = [:]
    /// TCP listeners and connections from `net.tcp_listen`/`tcp_connect`, by the id in the userdata.
    var listeners: [Int: StreamListener] = [:]
    var streams: [Int: StreamConnection] = [:]
    /// Connections closed and collected with bytes still to flush (pumped between frames).
    var lingering: [StreamConnection] = []
    /// Milliseconds spent in socket waits since the last frame (`waitOnSockets`).
    var socketWaitSpent = 0
    private(set) var modified: Date?
    /// Read from a file (hot reload watches it); false for the console's and the socket's own states.
    let isFromFile: Bool
    /// One of Retrolua's own default frontend scripts: it acts for the person (`mayUseEveryFile`).
    let isFrontendDefault: Bool
    /// The compatibility layer run before the script (`lua/compat/NAME.lua`), if any.
    let compat: String?
    /// SHA-1 of the file as read (a menu network grant holds for this content only); nil without a file.
    let contentSHA1: String?

    /// Bytes this script had the host keep under a name (its `savestate.data` keys, its `emu.result` keys),
    /// charged to its memory cap until replaced or removed.
    var heldByName: [String: Int] = [:]

    /// Charges what the host is about to keep for this script (`what` names it in the error); replaces the
    /// charge kept under `name`, if any. The cap counts the script's Lua heap and these together.
    func hold(_ bytes: Int, as name: String? = nil, for what: String) throws(LuaCallError) {
        let previous = name.flatMap { heldByName[$0] } ?? 0
        lua.release(previous)
        guard lua.hold(bytes) else {
            _ = lua.hold(previous)
            throw LuaCallError(
                "\(what) (\(bytes >> 10) KB) would pass the script's memory limit of \(lua.memoryLimitMB) MB "
                    + "(its Lua heap and what the host keeps for it count together)")
        }
        if let name { heldByName[name] = bytes > 0 ? bytes : nil }
    }

    /// The state closes while the script is whole: its userdata's `__gc` metamethods reach into it.
    deinit { lua.close() }

    /// Reads and compiles the script; the main chunk has not run yet.
    /// `source` given: a script without a file (the control socket's evaluator), named `path`.
    init(
        path: String, host: ScriptHost, source given: String? = nil, compat: String? = nil,
        frontendDefault: Bool = false
    ) throws(ScriptError) {
        self.path = given == nil ? URL(fileURLWithPath: path).standardizedFileURL.path : path
        name = (path as NSString).lastPathComponent
        isFrontendDefault = frontendDefault
        self.compat = compat
        self.host = host
        emulator = host.emulator
        memory = host.emulator.memory
        isFromFile = given == nil
        modified = given == nil ? Script.modificationDate(path) : nil
        // Bytes as they are: Lua takes any bytes in string literals (a Latin-1 "é" is valid Lua).
        guard var source = given.map({ Array($0.utf8) }) ?? FileManager.default.contents(atPath: path).map(Array.init)
        else {
            throw ScriptError(script: name, message: "\(path): cannot read script")
        }
        contentSHA1 = given == nil ? Hashing.sha1(source) : nil
        // As Lua's own loadfile (dofile, require) reads a file: a UTF-8 byte order mark is skipped, and a first
        // line starting with '#' is blanked (its newline kept, so line numbers stay).
        if source.starts(with: [0xEF, 0xBB, 0xBF]) { source.removeFirst(3) }
        if source.first == UInt8(ascii: "#") {
            source.removeFirst(source.firstIndex(of: UInt8(ascii: "\n")) ?? source.count)
        }
        let preludes: HostPreludes
        do {
            preludes = try HostPreludes.load(luaFolder: host.options.luaFolder)
        } catch {
            throw ScriptError(script: name, message: error.message)
        }
        lua = LuaState(memoryLimit: host.options.memoryLimit, instructionBudget: host.options.instructionBudget)
        let context = Unmanaged.passUnretained(self).toOpaque()
        for module in host.api { module.register(in: lua.L, context: context) }
        do {
            try installEnvironment(preludes)
            if let compat { try installCompat(compat, source: source) }
            try lua.load(source, name: path)  // As the user gave it: messages read `examples/x.lua:12:`.
        } catch {
            throw ScriptError(script: name, message: error.message)
        }
        // The main chunk becomes a coroutine so emu.frameadvance() can yield it.
        let co = lua_newthread(lua.L)!
        threadReference = luaL_ref(lua.L, lh_registryindex())
        lua_xmove(lua.L, co, 1)
        thread = co
    }

    /// Remembers a file version that failed to load, so it is not retried until saved again.
    func markSeen(_ date: Date) { modified = date }

    /// The script a binding was registered for.
    @inline(__always)
    static func from(_ context: UnsafeMutableRawPointer?) -> Script {
        Unmanaged<Script>.fromOpaque(context!).takeUnretainedValue()
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Security profile and module path, set before any script code runs (lua/host/prelude.lua),
    /// then print and console.* (lua/host/console.lua).
    private func installEnvironment(_ preludes: HostPreludes) throws(LuaError) {
        try lua.load(preludes.security.text, name: preludes.security.chunkName)
        lua_pushboolean(lua.L, host.options.trust ? 1 : 0)
        lua_pushboolean(lua.L, mayUseEveryFile ? 1 : 0)
        let folder = FilePath.folder(of: path)
        var searchPath = folder + "/?.lua;" + folder + "/?/init.lua"
        if let luaFolder = host.options.luaFolder {
            searchPath += ";" + luaFolder + "/?.lua;" + luaFolder + "/?/init.lua"
        }
        lua_pushstring(lua.L, searchPath)
        lh_push_binding(lua.L, Script.allowPath, Unmanaged.passUnretained(self).toOpaque(), "allow_path")
        try lua.call(nargs: 4, nresults: 0)
        try lua.load(preludes.console.text, name: preludes.console.chunkName)
        try lua.call(nargs: 0, nresults: 1)
        // What it returns rewords errors (`explained`): kept where no script reaches it.
        if lua_type(lua.L, -1) == LUA_TFUNCTION {
            explainer = luaL_ref(lua.L, lh_registryindex())
        } else {
            lh_pop(lua.L, 1)
        }
    }

    private var explainer = LUA_NOREF

    /// A failed script's message as lua/host/console.lua words it (a nil named by another emulator's API or
    /// misspelled: which layer, or which names exist), or as it was. `L` is a live thread of this state.
    func explained(_ message: String, on L: OpaquePointer) -> String {
        guard explainer != LUA_NOREF, message.contains("a nil value (") else { return message }
        lua_rawgeti(L, lh_registryindex(), lua_Integer(explainer))
        lua_pushstring(L, message)
        lua_pushstring(L, path)
        guard (try? lua.call(nargs: 2, nresults: 1, on: L)) != nil else { return message }
        defer { lh_pop(L, 1) }
        return lh_tostring(L, -1).map { String(cString: $0) } ?? message
    }

    /// A compatibility layer: relative paths from the script's folder (as FCEUX and BizHawk resolve
    /// them; lua/host/script_folder.lua), then `lua/compat/NAME.lua` with the script's path, folder, source
    /// and the layer's options (`--compat NAME:OPTIONS`, nil when none), which the layer reads itself.
    private func installCompat(_ compat: String, source: [UInt8]) throws(LuaError) {
        let layer = CompatLayers.name(of: compat), options = CompatLayers.options(of: compat)
        guard let luaFolder = host.options.luaFolder else {
            throw LuaError(message: "--compat \(layer): no Lua folder (lua/) was found")
        }
        let folderChunk = luaFolder + "/host/script_folder.lua", layerChunk = luaFolder + "/compat/" + layer + ".lua"
        for file in [folderChunk, layerChunk] {
            guard let text = FileManager.default.contents(atPath: file) else {
                throw LuaError(message: "--compat \(layer): cannot read \(file)")
            }
            try lua.load(Array(text), name: file)
            lua_pushstring(lua.L, path)
            lua_pushstring(lua.L, FilePath.folder(of: path))
            source.withUnsafeBufferPointer { bytes in
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    _ = lua_pushlstring(lua.L, $0, bytes.count)
                }
            }
            if let options { lua_pushstring(lua.L, options) } else { lua_pushnil(lua.L) }
            try lua.call(nargs: 4, nresults: 0)
        }
    }

    // MARK: Running

    /// Resumes the main chunk; returns false once it has finished (or failed).
    func resume() {
        guard let thread, !failed else { return }
        activeThread = thread
        defer { activeThread = nil }
        do {
            if try !lua.resume(thread) { finishMainChunk() }
        } catch {
            fail(error.kind == .runtime ? explained(error.message, on: lua.L) : error.message)
        }
    }

    var isWaitingForFrame: Bool { thread != nil && !failed }

    /// True while the script still has something to do (a waiting main chunk or any callback).
    var isActive: Bool { !failed && (thread != nil || !callbacks.isEmpty || !watches.isEmpty) }

    private func finishMainChunk() {
        luaL_unref(lua.L, lh_registryindex(), threadReference)
        threadReference = LUA_NOREF
        thread = nil
    }

    func addCallback(_ event: ScriptEvent, functionAt index: Int32, in L: OpaquePointer) -> Int {
        lua_pushvalue(L, index)
        let reference = luaL_ref(L, lh_registryindex())
        let id = takeID()
        callbacks.append((id, event, reference))
        return id
    }

    func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Removes a callback or watch by id; false when there is none.
    func remove(id: Int) -> Bool {
        if let index = callbacks.firstIndex(where: { $0.id == id }) {
            luaL_unref(lua.L, lh_registryindex(), callbacks[index].reference)
            callbacks.remove(at: index)
            return true
        }
        if let index = watches.firstIndex(where: { $0.id == id }) {
            luaL_unref(lua.L, lh_registryindex(), watches[index].reference)
            watches.remove(at: index)
            return true
        }
        return false
    }

    func hasCallbacks(for event: ScriptEvent) -> Bool { callbacks.contains { $0.event == event } }

    /// Calls every callback for `event` in registration order, with arguments pushed by `pushArguments`.
    func dispatch(_ event: ScriptEvent, pushArguments: ((OpaquePointer) -> Int32)? = nil) {
        for callback in callbacks where callback.event == event {
            guard !failed else { return }
            call(reference: callback.reference, pushArguments: pushArguments)
        }
    }

    /// Calls the function stored at `reference`; a Lua error fails the script.
    func call(reference: Int32, pushArguments: ((OpaquePointer) -> Int32)?) {
        let L = activeThread ?? lua.L
        lua_rawgeti(L, lh_registryindex(), lua_Integer(reference))
        let count = pushArguments?(L) ?? 0
        do {
            try lua.call(nargs: count, nresults: 0, on: L)
        } catch {
            fail(error.kind == .runtime ? explained(error.message, on: L) : error.message)
        }
    }

    /// Marks the script failed; the host reports it and unloads it at the next safe point.
    func fail(_ message: String) {
        guard !failed else { return }
        failed = true
        failure = message
        closeSockets()  // at once: peers see the end, and a reload can listen on the same port
        host.tools.removeAll(ownedBy: self)
        host.report(failure: ScriptError(script: name, message: message), told: isFromFile)
    }

    /// Removes everything this script registered (used by hot reload and unloading).
    func detach() {
        callbacks.removeAll()
        watches.removeAll()
        closeSockets()
        host.tools.removeAll(ownedBy: self)
        failed = true
    }
}

/// A script that could not be loaded or that failed while running.
public struct ScriptError: Error, CustomStringConvertible, Sendable {
    public let script: String
    public let message: String
    public var description: String { "script \(script) failed: \(message)" }
}
