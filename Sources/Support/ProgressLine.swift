import Foundation
import Glibc

/// The progress line of long headless runs on a terminal: frames, frames per second, time left.
/// Silent when stderr is not a TTY (logs and pipes stay clean).
public struct ProgressLine {
    private let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drawn = false

    public init(enabled: Bool = isatty(2) != 0) { self.enabled = enabled }

    /// Redraws at most four times a second; cheap enough to call every frame.
    public mutating func update(frames: Int, of total: Int?) {
        guard enabled, frames & 63 == 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw >= 250_000_000 else { return }
        lastDraw = now
        let seconds = Double(now - start) / 1e9
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        var line =
            total.map { String(format: "frames %d/%d (%.0f%%)", frames, $0, 100 * Double(frames) / Double(max($0, 1))) }
            ?? "frames \(frames)"
        line += String(format: "  %.0f fps", fps)
        if let total, fps > 0 { line += String(format: "  ETA %.1f s", Double(total - frames) / fps) }
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
        drawn = true
    }

    /// Clears the line before the summary is printed.
    public mutating func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
