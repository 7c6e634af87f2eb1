import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Media
import Support

/// Runs scripts around the emulator's frames: their Lua states, event dispatch, coroutines, watches and
/// the overlay surfaces. One client of the `Emulator`, which owns the frame loop and every rule; the
/// hooks below are where the emulator calls in, in the order of a frame: frame_start → (input poll →
/// `input` callbacks) → memory watches → frame_end → waiting main chunks resume → draw.
/// Scripts run in the order they were loaded.
public final class ScriptHost: EmulatorClient {
    public let emulator: Emulator
    public var session: Session { emulator.session }
    public let options: ScriptOptions
    /// The Lua modules and classes every script gets (the Lua door, `Bindings.api`), registered in each
    /// new state: scripting knows how to run Lua, not which functions exist.
    let api: [LuaModule]
    var scripts: [Script] = []
    /// Every script failure so far, in order.
    public private(set) var failures: [ScriptError] = []
    /// Called once per failure (the CLI prints it).
    public var onFailure: (ScriptError) -> Void = { error in
        FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
    }
    /// `emu.result(key, value)`: what the run reports (`--json`, `retrolua batch`).
    public var results: [String: any Sendable] = [:]

    /// The overlay surfaces scripts draw on, the window's facts and the devices: the run's, handed in.
    public let screen: Screen
    /// The script holding the host's input (`input.capture`): device events and state reach only it.
    weak var inputOwner: Script?
    /// `scripts.load`/`unload`/`reload` requests, carried out before the next frame (no Lua on the stack).
    var scriptRequests: [ScriptRequest] = []
    /// Every script file loaded so far, so one unloaded or failed can be loaded again.
    var knownScripts: [KnownScript] = []
    /// The default frontend's scripts (name, path), set by whoever loads them, to turn them on and off.
    public var defaultScripts: [(name: String, path: String)] = []

    /// Hud pixels a tool keeps at the window's right (`gui.side_panel`): the window widens and the game moves
    /// aside; headless, the hud is that much wider than the frame. The room goes with the script that asked
    /// for it: once it fails or is unloaded, the window returns to the game's width.
    public var sidePanel: Int { isLive(sidePanelOwner) ? sidePanelWidth : 0 }

    /// Whether `script` is loaded and has not failed (what it holds on the screen stays only while it is).
    func isLive(_ script: Script?) -> Bool {
        guard let script, !script.failed else { return false }
        return scripts.contains { $0 === script }
    }
    weak var sidePanelOwner: Script?
    /// The script that set `gui.padding`: the room is its, and goes when it fails or unloads.
    weak var paddingOwner: Script?
    var sidePanelWidth = 0
    /// The hud's width left of the side panel (what `gui.surface_size("hud")` reports).
    var hudWidthBesidePanel: Int { max(1, screen.hudCanvas.width - sidePanel) }

    /// Where `--log` copies script output, failures and on-screen messages.
    public var logFile: FileHandle?
    /// Messages shown on screen are also printed to stderr (not with `--quiet`).
    public var mirrorsMessages = true
    /// Every message shown or printed, for `--speak` (after the OSD has it).
    public var onMessage: ((String) -> Void)?
    /// `emu.speak` under `--speak`: what the frontend's menu and tools focus, read aloud (a newer one
    /// replaces one not yet spoken); nil when speech is off.
    public var onSpeak: ((String) -> Void)?
    /// True while `redrawPaused` runs the `draw` callbacks; their `emu` drawing goes to `screen.pausedScratch`.
    public private(set) var isRedrawingPaused = false
    var framesSinceReloadCheck = 0
    /// `--watch`: failed scripts by path, each with the version that failed; the next save loads it again.
    var awaitingFix: [String: ScriptFileVersion] = [:]
    /// Failures not yet told to the other scripts (`script_failed`), told where no script's Lua is on the stack.
    var failureNotes: [ScriptError] = []
    /// Scripts the person let reach loopback from the menu (read at the first script that asks).
    lazy var networkGrants = NetworkGrants(file: session.paths.config + "/network-grants")
    /// Paths of scripts refused the network in this run: the menu offers them the grant.
    var networkRefused: Set<String> = []
    /// The state `evaluate` runs chunks in.
    private var evaluator: Script?
    /// The run's Lua console (`retrolua attach`, `--console`, the window's console).
    public private(set) lazy var console = ScriptConsole(host: self)
    /// The tools scripts offer agents (`mcp.tool`), listed and called through the control socket.
    public private(set) lazy var tools = AgentTools(host: self)

    public init(emulator: Emulator, screen: Screen, options: ScriptOptions, api: [LuaModule]) {
        self.emulator = emulator
        self.screen = screen
        self.options = options
        self.api = api
        emulator.client = self
        // A durable write's fsync on a busy disk is the host's time, not the script's (its deadlines).
        DurableFile.blockingWork = (begin: lh_host_work_begin, end: lh_host_work_end)
        resizeCanvases()
    }

    /// Loads a script and runs its main chunk up to its first `emu.frameadvance()`.
    /// `frontendDefault`: one of Retrolua's default frontend scripts (it may use the config folder).
    /// Loads and starts a script; `compat` names the layer (lua/compat) run in its state before it.
    /// Under `--watch` one that fails (here or later) is loaded again once its file is saved.
    public func load(scriptAt path: String, compat: String? = nil, frontendDefault: Bool = false) throws(ScriptError) {
        let known = KnownScript(path: path, compat: compat, frontendDefault: frontendDefault)
        remember(known)
        awaitingFix[known.path] = nil
        // Read before the file is: a save while it loads is another version, seen at the next check.
        let version = ScriptFileVersion(modified: Script.modificationDate(path))
        let script: Script
        do {
            script = try Script(path: path, host: self, compat: compat, frontendDefault: frontendDefault)
        } catch {
            if options.watch { awaitingFix[known.path] = version }
            throw error
        }
        scripts.append(script)
        script.resume()
        announceLoaded(script)
        reap()
    }

    public var scriptCount: Int { scripts.count }

    /// Loads a script that must start: a main chunk that fails throws its error, said once (by the caller),
    /// instead of the script being dropped (a scenario whose `reward()` would then score 0, or another's).
    public func loadRequired(scriptAt path: String) throws(ScriptError) -> Script {
        let before = Set(scripts.map(ObjectIdentifier.init))
        let (failuresBefore, report, name) = (failures.count, onFailure, (path as NSString).lastPathComponent)
        onFailure = { if $0.script != name { report($0) } }
        defer { onFailure = report }
        try load(scriptAt: path)
        guard let loaded = scripts.last(where: { !before.contains(ObjectIdentifier($0)) }), !loaded.failed else {
            throw failures.dropFirst(failuresBefore).last { $0.script == name }
                ?? ScriptError(script: name, message: "its main chunk failed")
        }
        return loaded
    }

    /// Runs a chunk of Lua in an evaluator state of its own (made on first use, kept for the next chunk): its
    /// values, or its error.
    public func evaluate(_ source: String) -> Result<[Any], ScriptError> {
        if evaluator == nil {
            do { evaluator = try Script(path: "control", host: self, source: "") } catch { return .failure(error) }
        }
        return evaluator!.evaluate(source)
    }

    /// Stops the script running now, from any thread (a stop signal): the watchdog in lua_shim.c raises an
    /// error in it at its next instruction check.
    public static func interruptRunningScript() { lh_request_stop() }

    /// True while some script still waits for frames or has callbacks, or (`--watch`) a failed one waits for
    /// its file to be saved.
    public var hasActiveScripts: Bool { scripts.contains { $0.isActive } || !awaitingFix.isEmpty }

    /// Lets go of every script without its `exit` callbacks (a run that never started).
    public func unloadScripts() {
        for script in scripts { script.detach() }
        scripts.removeAll()
    }

    /// Fires `exit` for every script, then unloads them all (closing their states runs their `__gc`
    /// finalizers, under the watchdog's deadlines). `beforeClosing` runs between: what must not be lost is
    /// written there, before any finalizer runs.
    public func shutdown(beforeClosing: () -> Void = {}) {
        dispatch(.exit)
        for script in scripts { script.detach() }
        beforeClosing()
        scripts.removeAll()
    }

    // MARK: The emulator's hooks

    public func frameWillStart() {
        if !scriptRequests.isEmpty { carryOutScriptRequests() }
        if options.watch { reloadChangedScripts() }
        // Sockets move between frames (and while paused), so a peer is served even by a script that waits.
        for script in scripts { script.pumpStreams() }
        if !screen.padding.isNone, !isLive(paddingOwner) { screen.padding = .none }
        resizeCanvases()
        screen.emuCanvas.clear()
        screen.hudCanvas.clear()
    }

    public func frameStarted() { dispatch(.frameStart) }

    public func inputPolled() { dispatch(.input) }

    public func frameEnded() {
        fireWatches()
        dispatch(.frameEnd)
        for script in scripts where script.isWaitingForFrame { script.resume() }
        dispatch(.draw)
        reap()
    }

    /// While paused no frame ends, so nothing would redraw: the hud is cleared and the `draw` callbacks
    /// run again (a PAUSED sign, a message, a menu, a resized window), while the `emu` overlay stays the
    /// last frame's (their `emu` drawing is discarded, so nothing is blended twice).
    public func redrawPaused() {
        // A script saved while paused (the TAS editor, the menu) is reloaded without waiting for a frame.
        if options.watch { reloadChangedScripts() }
        for script in scripts { script.pumpStreams() }
        resizeCanvases()
        screen.hudCanvas.clear()
        isRedrawingPaused = true
        dispatch(.draw)
        isRedrawingPaused = false
        reap()
    }

    public func emulator(didEmit event: EmulatorEvent) {
        switch event {
        case .reset: dispatch(.reset)
        case .stateSaved(let target): dispatch(.stateSaved) { L in Self.push(target, L) }
        case .stateLoaded(let target): dispatch(.stateLoaded) { L in Self.push(target, L) }
        case .movieStarted(let mode):
            dispatch(.movieStart) { L in
                lua_pushstring(L, mode); return 1
            }
        case .movieEnded: dispatch(.movieEnd)
        case .movieDesync(let frame):
            dispatch(.movieDesync) { L in
                lua_pushinteger(L, lua_Integer(frame)); return 1
            }
        case .movieChanged(let frame):
            dispatch(.movieChanged) { L in
                lua_pushinteger(L, lua_Integer(frame)); return 1
            }
        case .message(let text, let source): show(message: text, from: source)
        case .agentActivity(let text):
            dispatch(.agent) { L in
                if let text { lua_pushstring(L, text) } else { lua_pushnil(L) }
                return 1
            }
        case .timeJumped: break
        }
    }

    /// A state event's argument: the slot number or path as given, nil for in-memory states.
    private static func push(_ target: StateTarget?, _ L: OpaquePointer) -> Int32 {
        switch target {
        case .slot(let slot): lua_pushinteger(L, lua_Integer(slot))
        case .file(let path): lua_pushstring(L, path)
        case nil: lua_pushnil(L)
        }
        return 1
    }

    // MARK: Events and failures

    /// Calls `event`'s callbacks in every script that has some (only `only`'s when given; not `except`'s).
    func dispatch(
        _ event: ScriptEvent, only: Script? = nil, except: Script? = nil,
        pushArguments: ((OpaquePointer) -> Int32)? = nil
    ) {
        for script in scripts
        where !script.failed && script.hasCallbacks(for: event) && (only == nil || only === script)
            && except !== script
        {
            script.dispatch(event, pushArguments: pushArguments)
        }
    }

    /// Where script output goes (`print` → error false, `console.warn`/`error` → true).
    public var output: (String, Bool) -> Void = { text, error in
        (error ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
    }

    func write(_ text: String, error: Bool) {
        output(text, error)
        logFile?.write(Data(text.utf8))
    }

    /// `emu.message`: to the scripts listening for `message` (the OSD), else printed.
    func show(message text: String, from source: String) {
        let listened = scripts.contains { !$0.failed && $0.hasCallbacks(for: .message) }
        if listened {
            dispatch(.message) { L in
                lua_pushstring(L, text); return 1
            }
        }
        // Shown on screen or printed, a message (a desync, a bad cheat file) also reaches the --log file,
        // and stderr: a screen reader, or a log, sees what the screen shows.
        let line = "[\(source)] \(text)\n"
        if listened {
            logFile?.write(Data(line.utf8))
            if mirrorsMessages { output(line, true) }
        } else {
            write(line, error: true)
        }
        onMessage?(text)
    }

    /// A script failed: kept for `scripts.list()`, said (stderr, `--log`) and, when `told`, told to the other
    /// scripts (`script_failed`: the OSD shows it) at the next safe point. A console's or socket's own state
    /// is not a script file and tells nobody.
    public func report(failure: ScriptError, told: Bool = true) {
        failures.append(failure)
        onFailure(failure)
        logFile?.write(Data("\(failure)\n".utf8))
        if told { failureNotes.append(failure) }
        if options.strict { emulator.requestExit(1) }
    }

    /// Unloads failed scripts (`--watch` keeps watching their files) and tells the others of failures; called
    /// only where no script's Lua is on the stack. A script failing in a `script_failed` callback is reaped too.
    func reap() {
        repeat {
            for script in scripts where script.failed && script.failure != nil && script.isFromFile && options.watch {
                awaitingFix[script.path] = ScriptFileVersion(modified: script.modified)
            }
            scripts.removeAll { $0.failed }
            let notes = failureNotes
            failureNotes = []
            for note in notes { announce(failure: note) }
        } while !failureNotes.isEmpty || scripts.contains { $0.failed }
    }

    private func fireWatches() {
        for script in scripts where !script.watches.isEmpty && !script.failed {
            for index in script.watches.indices {
                guard index < script.watches.count, !script.failed else { break }
                if let change = script.watches[index].poll() {
                    script.call(reference: script.watches[index].reference) { L in
                        change.new.push(L)
                        change.old.push(L)
                        return 2
                    }
                }
            }
        }
    }

    // MARK: Surfaces

    func resizeCanvases() {
        let core = session.core
        let width = core.frameWidth > 0 ? core.frameWidth : core.avInfo?.baseWidth ?? 1
        let height = core.frameHeight > 0 ? core.frameHeight : core.avInfo?.baseHeight ?? 1
        screen.fit(frameWidth: width, height: height, sidePanel: sidePanel)
    }

    /// The current frame with the emu overlay composited, as RGBA (screenshots, also headless).
    public func frameWithOverlay() -> RGBAImage? { emulator.picture() }
}
