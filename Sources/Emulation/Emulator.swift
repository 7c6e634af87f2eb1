import Foundation
import Libretro

/// The one emulator every front door drives: the session (core + content), the frame loop in its fixed
/// phase order, the input layers, savestates with their script data and movie blocks, reset and power,
/// memory access, cheats, the movie, pacing requests — and every rule about them (hardcore mode, the
/// movie's read-only timeline, what may happen inside the core's input poll). Operations return a value
/// or throw a `Refusal` naming why; the doors (Lua bindings, control socket, hotkeys) only translate.
///
/// A frame: `frameWillStart` → frame_start (`frameStarted`) → the movie's input → the core runs (its
/// first input poll calls `inputPolled`, then the input layers apply) → movie log, RAM cheats →
/// queued events → `frameEnded` (watches, frame_end, waiting scripts, draw).
public final class Emulator {
    public let session: Session
    /// The script host (or a test) that runs around each frame and hears every event.
    public weak var client: EmulatorClient?
    /// Listeners besides the client (the frontend drops queued sound on `timeJumped`).
    private var listeners: [(EmulatorEvent) -> Void] = []
    public internal(set) var phase: FramePhase = .between

    /// The player's input before scripts change it (host devices, the control socket's `step`).
    public var playerInput = InputState()
    /// Buttons and axes forced for the coming frame (`joypad.set`); cleared after each frame.
    public internal(set) var overrides = InputOverrides()
    /// This frame's input from the playing movie (it replaces the player's and the overrides).
    var movieInput: InputState?
    /// The input of a frame replayed unseen by a script (netplay's rollback), in place of the player's.
    var replayInput: InputState?
    /// The input the core saw at its last poll.
    public internal(set) var seenInput = InputState()
    var inputEventFired = false

    /// The memory domains the doors address (one bounds-checked path for reads and writes).
    public let memory: MemoryAccess
    /// `savestate.data` values (opaque bytes), saved with every state and replaced on load.
    public var scriptData: [String: [UInt8]] = [:]
    /// The start of every savestate this session makes (core name and content never change).
    lazy var statePrefix = StateContainer.prefix(
        coreName: session.core.systemInfo.libraryName,
        contentSHA1: session.content?.sha1 ?? "")
    /// Reused by rewind pushes so recording every frame allocates nothing but the delta.
    var rewindScratch: [UInt8] = []
    /// Drawn over the core's frame in every picture taken of it (the run's `emu` overlay, handed in by
    /// whoever owns the screen: the emulator knows pictures, not surfaces).
    public var overlay: ((inout RGBAImage) -> Void)?
    /// Writes a picture as an image file (branch thumbnails): handed in with the run's PNG writer; nil writes none.
    public var writeImage: ((RGBAImage, String) throws -> Void)?

    /// The TAS movie being recorded or played (idle when none).
    public private(set) lazy var movie = MovieEngine(emulator: self)
    /// Cheat codes and RAM cheats, and the RAM search in progress.
    public private(set) lazy var cheats = CheatList(core: session.core, memory: memory)
    public var ramSearch: RAMSearch?
    /// RetroAchievements hardcore mode (see `setHardcore`).
    public private(set) var hardcore = false

    /// Pacing requests: the frontend (or a headless loop) honours them; emulation never changes.
    public var paused = false
    public private(set) var speed = 1.0
    /// Run one frame although paused (frame advance); the frontend clears it.
    public var stepRequested = false
    /// Set by `emu.exit(code)`, a failure under --strict or a `quit`: the run ends after this frame.
    public private(set) var exitCode: Int32?

    /// Per-phase timings and frame counters (`--stats`, `emu.stats()`); the frontend adds its phases.
    public var stats = FrameStats()
    /// Time spent in the client's `inputPolled` during the core's frame (counted as scripts, not core).
    private var inputEventSeconds = 0.0
    /// Events emitted while the core's part of the frame runs wait for the between-frames point.
    var holdingEvents = false
    var heldEvents: [EmulatorEvent] = []

    public init(session: Session) {
        self.session = session
        let system = AssembledMaps.System(extension: session.content?.fileExtension, systemName: session.systemName)
        // Read only for the systems with a layout (a cartridge: megabytes at most), never a disc image.
        memory = MemoryAccess(
            core: session.core, system: system, content: system == nil ? nil : try? session.content?.bytes())
        session.core.onInputPoll = { [unowned self] in self.inputPolledByCore() }
    }

    /// The picture screenshots, thumbnails and the doors' screens show: the core's last frame as RGBA with
    /// the overlay drawn over it (`withOverlay: false`: the bare frame).
    public func picture(withOverlay: Bool = true) -> RGBAImage? {
        guard var image = session.core.currentFrame().map(RGBAImage.init) else { return nil }
        if withOverlay { overlay?(&image) }
        return image
    }

    // The core outlives the emulator (the session owns it): nothing it calls may reach a freed emulator.
    deinit { session.core.onInputPoll = nil }

    /// Adds a listener for every event (in addition to the client).
    public func listen(_ listener: @escaping (EmulatorEvent) -> Void) { listeners.append(listener) }

    // MARK: The frame

    /// Runs one frame with the client's hooks in their places.
    public func runFrame() {
        let start = now()
        stats.beginFrame()
        client?.frameWillStart()
        phase = .frameStart
        client?.frameStarted()
        let dupesBefore = session.core.dupedFrames
        let coreStart = now()
        runCoreHalf(inputCallbacks: true)
        if session.core.shutdownRequested { requestExit(0) }  // RETRO_ENVIRONMENT_SHUTDOWN: the game asked to end.
        let coreSeconds = seconds(since: coreStart) - inputEventSeconds
        inputEventSeconds = 0
        stats.duplicated += session.core.dupedFrames - dupesBefore
        stats.endFrame()
        overrides.clear()
        holdingEvents = false
        if !heldEvents.isEmpty { releaseHeldEvents() }
        flushMovieEvents()
        client?.frameEnded()
        stats.add(.core, seconds: coreSeconds)
        stats.add(.scripts, seconds: seconds(since: start) - coreSeconds)
    }

    /// The core's half of a frame, the same for a frame shown and one run unseen (a seek's replay): the
    /// movie's input in, `retro_run` (the input poll inside it), the movie's record of what the game saw,
    /// cheats, the greenzone's state; events held until the frame's end. `inputCallbacks`: whether the
    /// `input` event runs at the poll.
    func runCoreHalf(inputCallbacks: Bool) {
        holdingEvents = true
        movieInput = movie.beginFrame()
        phase = .inputPoll
        inputEventFired = !inputCallbacks
        session.runFrame()
        if movie.isActive {
            movie.endFrame(
                seen: session.lastFrameLagged ? effectiveInput() : seenInput, lagged: session.lastFrameLagged)
        }
        cheats.apply()
        if movie.isActive { movie.captureState() }
        phase = .between
    }

    /// Runs the core one frame outside the frame loop (run-ahead): no hooks, no counters, no movie,
    /// the player's input as held; `video`/`audio` say whether the core's picture and sound are wanted.
    public func runExtraFrame(video: Bool, audio: Bool) throws(Refusal) {
        try refuseOutsideBetweenFrames()
        let core = session.core
        let (wasVideo, wasAudio) = (core.videoEnabled, core.audioEnabled)
        core.videoEnabled = video
        core.audioEnabled = audio
        phase = .inputPoll  // Nothing inside may load states or run frames.
        core.run()
        phase = .between
        core.videoEnabled = wasVideo
        core.audioEnabled = wasAudio
    }

    private func inputPolledByCore() {
        if !inputEventFired {
            inputEventFired = true
            session.core.input = effectiveInput()
            let start = now()
            client?.inputPolled()
            inputEventSeconds += seconds(since: start)
        }
        let input = effectiveInput()
        session.core.input = input
        seenInput = input
    }

    /// The player's input with this frame's overrides on top (a playing movie's input instead).
    func effectiveInput() -> InputState {
        if let movieInput { return movieInput }
        if let replayInput { return replayInput }
        var input = playerInput
        overrides.apply(to: &input)
        return input
    }

    /// Refuses a frame run by a script anywhere but between frames (run-ahead's and rollback's frames).
    func refuseOutsideBetweenFrames() throws(Refusal) {
        guard phase == .between else {
            throw Refusal(.phase, "only between frames (frame_end, draw or the main chunk), not in \(phase.name)")
        }
    }

    /// For a door that shares the game with a person (an attached agent): their pause holds.
    public func refuseWhilePausedByTheUser() throws(Refusal) {
        if paused { throw Refusal(.failed, "the game is paused by the user: not stepped (unless_paused)") }
    }

    /// Refuses what cannot run inside the core's `retro_run` (state loads, resets, running a frame).
    func refuseDuringInputPoll() throws(Refusal) {
        if phase == .inputPoll { throw .inputPoll }
    }

    // MARK: Events

    func emit(_ event: EmulatorEvent) {
        if holdingEvents {
            heldEvents.append(event)
            return
        }
        client?.emulator(didEmit: event)
        for listener in listeners { listener(event) }
    }

    private func releaseHeldEvents() {
        let events = heldEvents
        heldEvents.removeAll()
        for event in events { emit(event) }
    }

    /// A message for the player, from `source` (a script's name, `movie`).
    public func show(message text: String, from source: String) { emit(.message(text, source: source)) }

    /// The movie's queued messages and events, in the order the movie engine has always given them.
    func flushMovieEvents() {
        guard !movie.pendingEvents.isEmpty || !movie.pendingMessages.isEmpty else { return }
        let events = movie.pendingEvents, messages = movie.pendingMessages
        movie.pendingEvents.removeAll()
        movie.pendingMessages.removeAll()
        for message in messages { emit(.message(message, source: "movie")) }
        for event in events {
            switch event {
            case .started: emit(.movieStarted(mode: movie.mode.rawValue))
            case .ended: emit(.movieEnded)
            case .desync: emit(.movieDesync(frame: movie.firstDesync?.frame ?? 0))
            }
        }
    }

    // MARK: Pacing and ending

    /// Sets the pacing (1 real time, 0 unthrottled); slow motion is refused in hardcore mode.
    public func setSpeed(_ factor: Double) throws(Refusal) {
        guard factor >= 0, factor.isFinite else { throw Refusal(.outOfRange, "speed must be 0 or more") }
        if factor > 0 && factor < 1 && hardcore { throw .hardcore("slow motion is") }
        speed = factor
    }

    /// Ends the run after this frame with `code` (the first request wins).
    public func requestExit(_ code: Int32) {
        if exitCode == nil { exitCode = code }
    }

    // MARK: Hardcore

    /// Turns RetroAchievements hardcore mode on or off. Turning it on disables every cheat, stops a
    /// playing movie, returns to normal speed and resets the game (as RetroArch does).
    public func setHardcore(_ on: Bool) throws(Refusal) {
        guard on != hardcore else { return }
        guard on else {
            hardcore = false
            return
        }
        try refuseDuringInputPoll()
        for cheat in cheats.cheats where cheat.enabled { _ = cheats.setEnabled(cheat.id, false) }
        if movie.mode == .play { try? movie.stop() }
        if speed > 0 && speed < 1 { speed = 1 }
        hardcore = true
        try? pressConsoleButton(.reset)
        flushMovieEvents()
        emit(.reset)
    }

    // MARK: Reset and power

    /// The console's reset button: refused while a movie plays (its resets are its input), logged by a
    /// recording movie, announced with `reset`.
    public func reset() throws(Refusal) { try consoleButton(.reset) }

    /// Power-cycles the console (the state right after loading, battery save RAM kept).
    public func power() throws(Refusal) { try consoleButton(.power) }

    private func consoleButton(_ command: MovieFrameFlags) throws(Refusal) {
        try refuseDuringInputPoll()
        if movie.mode == .play {
            throw Refusal(
                .movie, "a movie is playing: its \(command == .power ? "power cycles" : "resets") are part of its input"
            )
        }
        do { try pressConsoleButton(command) } catch { throw .failed(error) }
        emit(.reset)
    }

    /// Resets or power-cycles without the rules (hardcore's own reset, movie playback's commands).
    func pressConsoleButton(_ command: MovieFrameFlags) throws(RetroError) {
        if command.contains(.power) { try session.powerCycle() } else { session.core.reset() }
        movie.noteCommand(command)
        emit(.timeJumped)
    }
}
