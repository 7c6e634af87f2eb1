/// Where the emulator is in the frame; some operations are legal only in some phases.
public enum FramePhase: Sendable, Equatable {
    /// Between frames: loading scripts, coroutines, frame_end, draw.
    case between
    case frameStart
    /// Inside `retro_run`, during the core's input poll.
    case inputPoll

    public var name: String {
        switch self {
        case .between: return "between frames"
        case .frameStart: return "frame_start"
        case .inputPoll: return "the core's input poll (the input event)"
        }
    }
}
