import Libretro

/// What the doors read after frames — the counters and the last picture — asked of the emulator rather than
/// reached for through its session's core.
extension Emulator {
    /// Frames run since the content loaded (a state load moves it back).
    public var frameCount: Int { session.frameCount }
    /// Frames in which the core never polled input.
    public var lagCount: Int { session.lagCount }
    /// Whether the last frame run was a lag frame.
    public var lastFrameLagged: Bool { session.lastFrameLagged }
    /// The last frame in place, in its own pixel format (nil before the first).
    public var lastFrame: LastFrame? { session.core.lastFrame }
    /// The last frame copied out (nil before the first).
    public func currentFrame() -> VideoFrame? { session.core.currentFrame() }
}
