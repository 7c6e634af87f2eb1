/// What happened to the emulator, for whoever listens (scripts' events, the frontend's audio).
/// Each is emitted once, by the operation that caused it, whichever door asked for it.
public enum EmulatorEvent: Sendable, Equatable {
    /// A reset or power cycle (from any door, not a movie's own commands).
    case reset
    /// A savestate was written to a slot or file (nil: an in-memory state).
    case stateSaved(StateTarget?)
    /// A savestate was loaded from a slot or file (nil: an in-memory state).
    case stateLoaded(StateTarget?)
    case movieStarted(mode: String)
    case movieEnded
    case movieDesync(frame: Int)
    /// The movie's input or markers were edited (TAS editor), from this frame on.
    case movieChanged(frame: Int)
    /// A message for the player (the OSD shows it; printed when nobody listens).
    case message(String, source: String)
    /// A control client (an attached agent) said what it is doing; nil: a client that had said so left.
    case agentActivity(String?)
    /// Emulated time jumped (state load, reset, movie start): queued sound no longer matches.
    case timeJumped
}

/// A savestate's place on disk: a numbered slot or a file.
public enum StateTarget: Sendable, Equatable {
    case slot(Int)
    case file(String)
}

/// The client that runs around each frame (the script host): called by `Emulator.runFrame` in the
/// fixed phase order, and told every event.
public protocol EmulatorClient: AnyObject {
    /// Between frames, before `frame_start`: hot reload, surfaces.
    func frameWillStart()
    /// Phase `frameStart`: `frame_start` callbacks.
    func frameStarted()
    /// Inside the core's first input poll of the frame: `input` callbacks may still change the input.
    func inputPolled()
    /// Between frames again: watches, `frame_end`, waiting scripts, `draw`.
    func frameEnded()
    func emulator(didEmit event: EmulatorEvent)
}
