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

extension Session {
    /// Runs `frames` frames as fast as the core goes. Only the last frame is copied out,
    /// so the loop costs no more than the core itself (and one load of the stop flag per frame).
    public func runHeadless(frames: Int, progress showProgress: Bool = false, stopsOnSignals: Bool = false) -> RunReport
    {
        let meter = RunMeter(self)
        var ran = 0
        var progress = ProgressLine(enabled: showProgress && isatty(2) != 0)
        // RETRO_ENVIRONMENT_SHUTDOWN ends the run after the frame that asked.
        while ran < frames && !(stopsOnSignals && StopSignals.isRequested) && !core.shutdownRequested {
            runFrame()
            ran += 1
            if showProgress { progress.update(frames: ran, of: frames) }
        }
        progress.finish()
        return meter.report()
    }
}
