import CLua
import CLuaShim
import Emulation
import Libretro
import LuaRuntime

/// Every Lua module the host gives scripts, one file per module beside this one.
public enum Bindings {
    /// What every script gets: the modules and the classes.
    public static let api = modules + classes

    static let modules: [LuaModule] = [
        emu, memory, joypad, input, savestate, rewind, movie, tastudio, cheats, gui, event, console, disc, scripts, net,
        mcp,
    ]

    /// Userdata types: their metatables, metamethods and methods, registered like the modules.
    static let classes: [LuaModule] = [
        LuaModule(
            class: "state", metatable: ScriptHost.stateMetatable,
            doc: "An in-memory savestate from `savestate.create()` or `savestate.from_bytes()`.",
            functions: stateMethods),
        LuaModule(
            class: "image", metatable: imageMetatable, doc: "A decoded PNG from `gui.load_image()`.",
            functions: imageMethods),
        LuaModule(
            class: "rewind_buffer", metatable: rewindMetatable, doc: "A rewind history from `rewind.new()`.",
            functions: rewindMethods),
        LuaModule(
            class: "udp", metatable: udpMetatable, doc: "A UDP socket from `net.udp()`.", functions: udpMethods),
        LuaModule(
            class: "tcp_listener", metatable: listenerMetatable, doc: "A TCP listener from `net.tcp_listen()`.",
            functions: listenerMethods),
        LuaModule(
            class: "tcp_connection", metatable: connectionMetatable,
            doc: "A TCP connection from `net.tcp_connect()` or `tcp_listener:accept()`.",
            functions: connectionMethods),
    ]

    /// The API reference's introduction.
    static let preface = """
        Every script gets these global modules. Ports are numbered from 1, addresses are integers,
        byte ranges are Lua strings, colours are `0xAARRGGBB` integers or `"#rrggbb"`/`"#rrggbbaa"` strings
        or names (`"red"`, `"white"`, …). A programmer mistake raises an error naming the function and
        argument (`memory.read_u8: bad argument #1 'address' (integer expected, got string)`); an expected
        failure returns `nil, message`. When the emulator refused, a third value names the refusal's kind, so
        a script branches on it rather than on the words: `"hardcore"` (RetroAchievements hardcore mode
        forbids it), `"movie"` (the active movie forbids it, or none is active), `"failed"` (tried and
        failed: a missing or corrupt file, a core that refused a state), `"out_of_range"` (a frame, port or
        address outside what exists) and `"phase"` (not in this phase of the frame). Most out-of-range and
        phase refusals are the caller's mistake and raise an error instead:
        `local ok, why, kind = savestate.load(1); if kind == "hardcore" then … end`.

        A frame runs in this order: `frame_start` callbacks → the core runs (it polls input → `input`
        callbacks → `joypad.set` overrides apply) → memory watches → `frame_end` callbacks → main chunks
        waiting in `emu.frameadvance()` resume → `draw` callbacks. Scripts run in command-line order.
        """
}

extension Bindings {
    /// The trampoline every row's C binding calls: its named body gets the call's arguments and the
    /// script the binding was registered for, and a thrown error becomes Lua's error or `nil, message`.
    static func run(
        _ L: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ body: (LuaCall, Script) throws -> Int32
    ) -> Int32 {
        LuaCall.run(L) { call in try body(call, Script.from(context)) }
    }

    /// Runs an emulator operation for `script` (its events reach scripts on the running thread) and
    /// returns `true`; a refusal becomes `nil, message`, or an error for the caller's mistake.
    static func emulatorCall(
        _ call: LuaCall, _ script: Script, _ body: (Emulator) throws(Refusal) -> Void
    ) throws(Refusal) -> Int32 {
        try call.nested(script) { () throws(Refusal) in try body(script.emulator) }
        return call.returning(true)
    }

    /// A port argument, 1-based in Lua, 0-based returned; `fallback` when absent.
    static func portArgument(_ call: LuaCall, _ index: Int32, fallback: Int? = nil) throws(LuaCallError) -> Int {
        let port: Int
        if let value = fallback, call.isNoneOrNil(index) {
            port = value
        } else {
            port = try call.integer(index, "port")
        }
        guard (1...InputState.maxPorts).contains(port) else {
            throw call.badArgument(index, "port", "must be 1…\(InputState.maxPorts)")
        }
        return port - 1
    }
}

/// The Lua door's one translation of the emulator's refusals: rules and failures become
/// `nil, reason, kind`, the caller's own mistakes (wrong phase, out of range) errors naming the function.
extension Refusal: LuaFailure {
    public var isExpected: Bool { !isMisuse }
    public var message: String { reason }
    public var failureKind: String? { kind.name }
}

extension LuaCall {
    /// Pushes a binding's one result and counts it: `return call.returning(value)`.
    func returning(_ value: Int) -> Int32 { push(value); return 1 }
    func returning(_ value: Double) -> Int32 { push(value); return 1 }
    func returning(_ value: Bool) -> Int32 { push(value); return 1 }
    func returning(_ value: String) -> Int32 { push(value); return 1 }

    /// Runs `body` with `L` recorded as the script's running thread, so events fired from inside a
    /// binding (state_loaded, reset) reach this script on the thread that is executing. The emulator's work
    /// in it (a seek's frames, a state load) is the host's time, not the script's: its clock waits
    /// (lh_host_work_begin), while callbacks the work fires are watched on their own.
    func nested<T, E: Error>(_ script: Script, _ body: () throws(E) -> T) throws(E) -> T {
        let previous = script.activeThread
        script.activeThread = L
        lh_host_work_begin()
        defer {
            lh_host_work_end()
            script.activeThread = previous
        }
        return try body()
    }
}

/// The API reference (lua/API.md), generated from the doc strings registered with each binding; the stubs
/// and luacheck globals are in APIStubs.swift.
public enum APIReference {
    public static var markdown: String {
        LuaDocs.markdown(Bindings.modules + Bindings.classes, title: "Retrolua Lua API", preface: Bindings.preface)
    }
}
