import Emulation
import Foundation
import Libretro
import Media

/// `--video out.mkv`: frames piped to Debian's ffmpeg as raw video; the resampled audio (recorded to a
/// WAV: the `--wav` file, or a temporary one beside the dump) is muxed in when the run ends.
final class VideoDump {
    let path: String
    let audioPath: String
    /// The user asked for the WAV too (`--wav`): keep it after muxing.
    private let keepAudio: Bool
    private let process: Process
    private let pipe: Pipe
    private let width: Int
    private let height: Int
    private var frame: [UInt8]
    private(set) var failure: String?

    /// Finds ffmpeg on PATH; nil and a message when it is not installed.
    static func ffmpeg() -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = String(folder) + "/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts ffmpeg for frames of `width`×`height` at `fps` (frames of other sizes are letterboxed).
    init(path: String, audioPath: String, keepAudio: Bool, width: Int, height: Int, fps: Double) throws(RetroError) {
        guard let ffmpeg = VideoDump.ffmpeg() else {
            throw .fileWrite(
                path: path, reason: "--video needs ffmpeg, which is not installed (apt-get install ffmpeg)")
        }
        self.path = path
        self.audioPath = audioPath
        self.keepAudio = keepAudio
        self.width = width
        self.height = height
        frame = [UInt8](repeating: 0, count: width * height * 4)
        process = Process()
        pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(width)x\(height)",
            "-r", String(format: "%.6f", fps), "-i", "-", "-c:v", "libx264", "-preset", "veryfast",
            "-crf", "18", "-pix_fmt", "yuv420p", path + ".video.mkv",
        ]
        process.standardInput = pipe
        do { try process.run() } catch { throw .fileWrite(path: path, reason: "cannot start ffmpeg: \(error)") }
    }

    /// Writes one frame (RGBA, with the emu overlay already composited).
    func write(rgba: [UInt8], width frameWidth: Int, height frameHeight: Int) {
        guard failure == nil else { return }
        if frameWidth == width && frameHeight == height {
            frame = rgba
        } else {
            // Letterbox a frame of another size (geometry changed mid-run) into the first frame's size.
            for index in frame.indices { frame[index] = index % 4 == 3 ? 255 : 0 }
            for row in 0..<min(height, frameHeight) {
                let count = min(width, frameWidth) * 4
                frame.replaceSubrange(
                    row * width * 4..<row * width * 4 + count,
                    with: rgba[row * frameWidth * 4..<row * frameWidth * 4 + count])
            }
        }
        do { try pipe.fileHandleForWriting.write(contentsOf: frame) } catch {
            failure = "ffmpeg stopped taking frames: \(error)"
        }
    }

    /// Closes the stream and muxes the audio; returns an error message on failure.
    func finish() -> String? {
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        if let failure { return failure }
        guard process.terminationStatus == 0 else {
            return "ffmpeg failed encoding \(path) (status \(process.terminationStatus))"
        }
        let mux = Process()
        mux.executableURL = process.executableURL
        mux.arguments = [
            "-loglevel", "error", "-y", "-i", path + ".video.mkv", "-i", audioPath, "-c:v", "copy", "-c:a", "flac",
            "-shortest", path,
        ]
        do { try mux.run() } catch { return "cannot start ffmpeg: \(error)" }
        mux.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path + ".video.mkv")
        if !keepAudio { try? FileManager.default.removeItem(atPath: audioPath) }
        return mux.terminationStatus == 0 ? nil : "ffmpeg failed muxing \(path)"
    }
}
