import CLua
import Foundation
import Libretro
import LuaRuntime
import Media

/// How scripts run: security profile, limits, reloading.
public struct ScriptOptions: Sendable {
    /// Allow process spawning, native modules and bytecode.
    public var trust = false
    /// Confine file access to the script's folder and `dataFolder`.
    public var sandbox = false
    /// A failing script ends the run (exit status 1) instead of being unloaded.
    public var strict = false
    /// Reload a script when its file changes.
    public var watch = false
    /// Per-script memory cap in bytes.
    public var memoryLimit = 256 << 20
    /// VM instructions a script may run before returning to the emulator (about a second of Lua).
    public var instructionBudget = 200_000_000
    /// Where sandboxed scripts may also read and write.
    public var dataFolder: String
    /// The project's `lua/` folder, for `require("retrolua.…")`.
    public var luaFolder: String?

    public init(dataFolder: String, luaFolder: String? = HostPaths.luaFolder()) {
        self.dataFolder = dataFolder
        self.luaFolder = luaFolder
    }
}

/// Runs scripts around the core, one frame at a time, in a fixed order:
/// frame_start → core (input poll → `input` callbacks → joypad overrides) → memory watches →
/// frame_end → coroutines resume → draw. Scripts run in the order they were loaded.
public final class ScriptHost {
    public let session: Session
    public let options: ScriptOptions
    var scripts: [Script] = []
    public internal(set) var phase: FramePhase = .between
    /// Every script failure so far, in order.
    public private(set) var failures: [ScriptError] = []
    /// Called once per failure (the CLI prints it).
    public var onFailure: (ScriptError) -> Void = { error in
        FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
    }
    /// `emu.result(key, value)`: what the run reports (`--json`, `retrolua batch`).
    public var results: [String: any Sendable] = [:]
    /// Set by `emu.exit(code)` (or a failure under --strict): the run ends after this frame.
    public internal(set) var exitCode: Int32?

    /// The player's input before scripts change it (from host devices, once a frontend maps them).
    public var playerInput = InputState()
    /// Buttons and axes scripts force for the next frame (`joypad.set`).
    var overrides = InputOverrides()
    /// This frame's input from the playing movie (it replaces the player's and scripts' input).
    private var movieInput: InputState?
    /// The input the core saw at its last poll.
    public private(set) var seenInput = InputState()
    private var inputEventFired = false
    /// Host keyboard, mouse and gamepads as scripts see them.
    public var devices = HostDevices()

    /// Overlays: `emu` at the core's resolution (in screenshots), `hud` at window resolution (not).
    public let emuCanvas = Canvas(width: 1, height: 1)
    public let hudCanvas = Canvas(width: 1, height: 1)
    /// The window's size for the hud surface; headless, the core's frame size.
    public var windowSize: (width: Int, height: Int)?

    /// `savestate.data` values, saved with every state and replaced on load.
    var scriptData: [String: [UInt8]] = [:]
    /// Reused by `rewind_buffer:push` so recording every frame allocates nothing but the delta.
    var rewindScratch: [UInt8] = []
    /// The start of every savestate this session makes (core name and content never change).
    lazy var statePrefix = StateContainer.prefix(coreName: session.core.systemInfo.libraryName,
                                                 contentSHA1: session.content?.sha1 ?? "")
    public var paused = false
    public var speed = 1.0
    /// Set by `emu.step()`: run one frame although paused (the frontend clears it).
    public var stepRequested = false
    /// Set by `gui.fullscreen(on)`; the frontend applies it and reports `isFullscreen`.
    public var fullscreenRequest: Bool?
    public var isFullscreen = false
    /// The memory domains scripts see.
    let memory: ScriptMemory
    /// Where `--log` copies script output and failures.
    public var logFile: FileHandle?
    /// Called after a state load or reset (the frontend drops queued audio).
    public var onTimeJump: (() -> Void)?
    private var framesSinceReloadCheck = 0
    /// The TAS movie being recorded or played (idle when none).
    public private(set) lazy var movie = MovieEngine(host: self)
    /// Cheat codes and RAM cheats (`cheats` module), and the RAM search in progress.
    private(set) lazy var cheats = CheatList(core: session.core, memory: memory)
    var ramSearch: RAMSearch?
    /// RetroAchievements hardcore mode: state loads, cheats, rewind, slow motion, memory writes and
    /// joypad overrides are refused while it is on.
    public internal(set) var hardcore = false

    public init(session: Session, options: ScriptOptions) {
        self.session = session
        self.options = options
        memory = ScriptMemory(core: session.core)
        session.core.onInputPoll = { [unowned self] in self.inputPolled() }
        resizeCanvases()
    }

    /// Loads a script and runs its main chunk up to its first `emu.frameadvance()`.
    public func load(scriptAt path: String) throws(ScriptError) {
        let script = try Script(path: path, host: self)
        scripts.append(script)
        script.resume()
        reap()
    }

    public var scriptCount: Int { scripts.count }

    /// True while some script still waits for frames or has callbacks.
    public var hasActiveScripts: Bool { scripts.contains { $0.isActive } }

    /// Per-phase timings and frame counters (`--stats`, `emu.stats()`); the frontend adds its own phases.
    public var stats = FrameStats()

    /// Runs one frame with every script hook in its place.
    public func runFrame() {
        let start = now()
        stats.beginFrame()
        if options.watch { reloadChangedScripts() }
        resizeCanvases()
        emuCanvas.clear()
        hudCanvas.clear()
        phase = .frameStart
        dispatch(.frameStart)
        movieInput = movie.beginFrame()
        phase = .inputPoll
        inputEventFired = false
        let dupesBefore = session.core.dupedFrames
        let coreStart = now()
        session.runFrame()
        if movie.isActive { movie.endFrame(seen: session.lastFrameLagged ? effectiveInput() : seenInput, lagged: session.lastFrameLagged) }
        cheats.apply()
        let coreSeconds = seconds(since: coreStart) - inputEventSeconds
        inputEventSeconds = 0
        stats.duplicated += session.core.dupedFrames - dupesBefore
        stats.endFrame()
        phase = .between
        overrides.clear()
        if !movie.pendingEvents.isEmpty || !movie.pendingMessages.isEmpty { dispatchMovieEvents() }
        fireWatches()
        dispatch(.frameEnd)
        for script in scripts where script.isWaitingForFrame { script.resume() }
        dispatch(.draw)
        reap()
        stats.add(.core, seconds: coreSeconds)
        stats.add(.scripts, seconds: seconds(since: start) - coreSeconds)
    }

    /// Time spent in `input` callbacks during the core's frame (counted as scripts, not core).
    private var inputEventSeconds = 0.0

    /// Fires `exit` for every script, then unloads them all.
    public func shutdown() {
        dispatch(.exit)
        for script in scripts { script.detach() }
        scripts.removeAll()
    }

    /// Presses the console's reset button (or power-cycles it): a recording movie logs it, and the
    /// frontend drops queued sound. Frame and lag counters go on.
    func resetConsole(_ command: MovieFrameFlags) throws(RetroError) {
        if command.contains(.power) { try session.powerCycle() } else { session.core.reset() }
        movie.noteCommand(command)
        onTimeJump?()
    }

    // MARK: Input

    /// Delivers the host's device events of this frame to scripts (before the frame runs).
    public func deliver(_ events: [HostEvent]) {
        for event in events {
            switch event {
            case .keyDown(let key, let isRepeat):
                dispatch(.keyDown) { L in lua_pushstring(L, key); lua_pushboolean(L, isRepeat ? 1 : 0); return 2 }
            case .keyUp(let key):
                dispatch(.keyUp) { L in lua_pushstring(L, key); return 1 }
            case .gamepadAdded(let name), .gamepadRemoved(let name):
                let connected: Int32 = if case .gamepadAdded = event { 1 } else { 0 }
                dispatch(.gamepad) { L in lua_pushstring(L, name); lua_pushboolean(L, connected); return 2 }
            default:
                break
            }
        }
        reap()
    }

    private func inputPolled() {
        if !inputEventFired {
            inputEventFired = true
            session.core.input = effectiveInput()
            let start = now()
            dispatch(.input)
            inputEventSeconds += seconds(since: start)
        }
        let input = effectiveInput()
        session.core.input = input
        seenInput = input
    }

    /// The player's input with this frame's script overrides on top (a playing movie's input instead).
    func effectiveInput() -> InputState {
        if let movieInput { return movieInput }
        var input = playerInput
        overrides.apply(to: &input)
        return input
    }

    /// `joypad.set` inside the input event applies to this poll at once.
    func overridesChanged() {
        if phase == .inputPoll { session.core.input = effectiveInput() }
    }

    // MARK: Events and failures

    /// Sends the movie's queued events (`movie_start`, `movie_end`, `movie_desync`) to scripts.
    func dispatchMovieEvents() {
        let events = movie.pendingEvents, messages = movie.pendingMessages
        movie.pendingEvents.removeAll()
        movie.pendingMessages.removeAll()
        for message in messages { show(message: message, from: "movie") }
        for event in events {
            switch event {
            case .movieStart:
                let mode = movie.mode.rawValue
                dispatch(event) { L in lua_pushstring(L, mode); return 1 }
            case .movieDesync:
                let frame = movie.firstDesync?.frame ?? 0
                dispatch(event) { L in lua_pushinteger(L, lua_Integer(frame)); return 1 }
            default:
                dispatch(event)
            }
        }
    }

    func dispatch(_ event: ScriptEvent, pushArguments: ((OpaquePointer) -> Int32)? = nil) {
        for script in scripts where !script.failed && script.hasCallbacks(for: event) {
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
    public func show(message text: String, from source: String) {
        if scripts.contains(where: { !$0.failed && $0.hasCallbacks(for: .message) }) {
            dispatch(.message) { L in lua_pushstring(L, text); return 1 }
        } else {
            write("[\(source)] \(text)\n", error: true)
        }
    }

    func report(failure: ScriptError) {
        failures.append(failure)
        onFailure(failure)
        logFile?.write(Data("\(failure)\n".utf8))
        if options.strict && exitCode == nil { exitCode = 1 }
    }

    /// Unloads failed scripts; called only where no script's Lua is on the stack.
    private func reap() {
        scripts.removeAll { $0.failed }
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

    private func resizeCanvases() {
        let core = session.core
        let width = core.frameWidth > 0 ? core.frameWidth : core.avInfo?.baseWidth ?? 1
        let height = core.frameHeight > 0 ? core.frameHeight : core.avInfo?.baseHeight ?? 1
        if emuCanvas.width != width || emuCanvas.height != height { emuCanvas.resize(width: width, height: height) }
        let window = windowSize ?? (width, height)
        if hudCanvas.width != window.width || hudCanvas.height != window.height {
            hudCanvas.resize(width: window.width, height: window.height)
        }
    }

    /// The current frame with the emu overlay composited, as RGBA (screenshots, also headless).
    public func frameWithOverlay() -> (rgba: [UInt8], width: Int, height: Int)? {
        guard let frame = session.core.currentFrame() else { return nil }
        var rgba = frame.rgba()
        if emuCanvas.width == frame.width && emuCanvas.height == frame.height {
            emuCanvas.composite(onto: &rgba, width: frame.width, height: frame.height)
        }
        return (rgba, frame.width, frame.height)
    }

    // MARK: Hot reload

    private func reloadChangedScripts() {
        // Counted in frames run, not emu.framecount(): a state load moves that backwards.
        framesSinceReloadCheck += 1
        guard framesSinceReloadCheck >= 15 else { return }
        framesSinceReloadCheck = 0
        for (index, script) in scripts.enumerated() {
            guard let date = Script.modificationDate(script.path), date != script.modified else { continue }
            do {
                let fresh = try Script(path: script.path, host: self)
                script.detach()
                scripts[index] = fresh
                show(message: "reloaded \(fresh.name)", from: "retrolua")
                FileHandle.standardError.write(Data("retrolua: reloaded \(fresh.name)\n".utf8))
                fresh.resume()
            } catch {
                // Keep the running version; try again after the next save.
                script.markSeen(date)
                report(failure: error)
            }
        }
        reap()
    }
}
