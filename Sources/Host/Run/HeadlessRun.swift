import Emulation
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

extension Session {
    /// Runs `frames` frames as fast as the core goes. Only the last frame is copied out,
    /// so the loop costs no more than the core itself.
    public func runHeadless(frames: Int, progress showProgress: Bool = false) -> RunReport {
        let lagBefore = lagCount, framesBefore = frameCount
        let start = DispatchTime.now().uptimeNanoseconds
        if showProgress {
            var progress = ProgressLine()
            for frame in 1...max(frames, 1) where frame <= frames && !core.shutdownRequested {
                runFrame()
                progress.update(frames: frame, of: frames)
            }
            progress.finish()
        } else {
            // RETRO_ENVIRONMENT_SHUTDOWN ends the run after the frame that asked.
            for _ in 0..<frames where !core.shutdownRequested { runFrame() }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return RunReport(
            frames: frameCount - framesBefore, seconds: seconds, lagFrames: lagCount - lagBefore,
            lastFrame: core.currentFrame())
    }
}
