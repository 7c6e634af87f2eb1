import Emulation
import Glibc

/// A clock-based pacer for runs without audio pacing and for slow motion / fast-forward:
/// deadlines advance by 1/(fps × speed), never a hard-coded 1/60.
struct Pacer {
    var fps: Double
    private var deadline: UInt64 = 0

    init(fps: Double) { self.fps = fps > 0 ? fps : 60 }

    mutating func reset() { deadline = 0 }

    /// Sleeps until this frame's deadline; speed 0 is unthrottled.
    mutating func wait(speed: Double) {
        guard speed > 0 else { deadline = 0; return }
        let period = UInt64(1e9 / (fps * speed))
        let current = now()
        if deadline == 0 || current > deadline + 4 * period {
            deadline = current + period  // Start, or too far behind: resynchronise instead of racing.
            return
        }
        if deadline > current { usleep(UInt32((deadline - current) / 1000)) }
        deadline += period
    }

    /// While paused: wake about once per frame to keep the window responsive.
    mutating func idle() {
        usleep(UInt32(1e6 / fps))
        deadline = 0
    }
}
