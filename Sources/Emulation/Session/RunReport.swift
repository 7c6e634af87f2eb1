import Foundation
import Libretro
import Support

/// The outcome of running frames without presenting them.
public struct RunReport: Sendable {
    public var frames: Int
    public var seconds: Double
    public var lagFrames: Int
    /// The last frame, copied from the core; nil if the core never produced one.
    public var lastFrame: VideoFrame?

    public var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }

    /// SHA-1 of the last frame's size, format and pixels: equal hashes mean equal pictures.
    public var frameHash: String? {
        guard let frame = lastFrame else { return nil }
        var bytes = [UInt8]("\(frame.width)x\(frame.height) \(frame.format)\n".utf8)
        bytes += frame.pixels
        return Hashing.sha1(bytes)
    }
}

/// Where a loop of frames began: `report` says what ran since. The one way every loop (headless, window,
/// replays, the control socket) measures itself.
public struct RunMeter {
    private let session: Session
    private let frames: Int
    private let lag: Int
    private let start = DispatchTime.now().uptimeNanoseconds

    /// `frames`: the counter the loop reports (the session's frame count unless the loop counts another).
    public init(_ session: Session, frames: Int? = nil) {
        self.session = session
        self.frames = frames ?? session.frameCount
        lag = session.lagCount
    }

    /// Frames since the start (`frames`: the loop's own counter now), lag frames, seconds less
    /// `excludingSeconds` (time paused), and the core's last frame.
    public func report(frames now: Int? = nil, excludingSeconds: Double = 0) -> RunReport {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return RunReport(
            frames: (now ?? session.frameCount) - frames, seconds: max(0, seconds - excludingSeconds),
            lagFrames: session.lagCount - lag, lastFrame: session.core.currentFrame())
    }
}

extension Emulator {
    /// Runs frames as fast as the core goes until `limit` frames ran, `stop()` says so (asked before each
    /// frame) or the run ends (`emu.exit`, the core's shutdown request); `afterFrame` sees each frame's count.
    /// The one loop behind headless runs and replays; only the last frame is copied out, so it costs no more
    /// than the frames themselves.
    public func runFrames(
        limit: Int? = nil, until stop: () -> Bool = { false }, afterFrame: (Int) -> Void = { _ in }
    ) -> RunReport {
        let meter = RunMeter(session)
        var ran = 0
        while ran < limit ?? .max && exitCode == nil && !stop() {
            runFrame()
            ran += 1
            afterFrame(ran)
        }
        return meter.report()
    }
}
