import Foundation

/// Where frame time goes: the core, scripts, audio, presentation; plus dropped and duplicated frames
/// and audio underruns. Shown with `--stats` (OSD and exit summary) and to Lua as `emu.stats()`.
public struct FrameStats: Sendable {
    public enum Phase: Int, CaseIterable, Sendable {
        case core, scripts, audio, present

        public var name: String { ["core", "scripts", "audio", "present"][rawValue] }
    }

    /// Totals since the start, in seconds.
    public private(set) var totals = [Double](repeating: 0, count: Phase.allCases.count)
    /// The last frame's times, in seconds.
    public private(set) var last = [Double](repeating: 0, count: Phase.allCases.count)
    public private(set) var frames = 0
    /// Frames the core ran that were not shown (fast-forward shows at most one per display refresh):
    /// skipped on purpose, not lost; `dropped` in `emu.stats()` for older scripts.
    public var dropped = 0
    /// The last finished present, in seconds: the OSD is drawn before the frame's own present.
    public private(set) var lastPresent = 0.0
    /// Frames the core reported as unchanged (a NULL video frame).
    public var duplicated = 0
    public var underruns = 0
    private var started = DispatchTime.now().uptimeNanoseconds

    public init() {}

    public mutating func add(_ phase: Phase, seconds: Double) {
        totals[phase.rawValue] += seconds
        last[phase.rawValue] += seconds
        if phase == .present { lastPresent = seconds }
    }

    /// Counts a frame the core has run (its remaining phases are still added to `last`).
    public mutating func endFrame() {
        frames += 1
    }

    public mutating func beginFrame() {
        for index in last.indices { last[index] = 0 }
    }

    public var wallSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    /// Mean milliseconds per frame for a phase.
    public func average(_ phase: Phase) -> Double { frames > 0 ? totals[phase.rawValue] * 1000 / Double(frames) : 0 }

    /// Three short OSD lines: the last frame's times (present: the last one finished) and the counters.
    public var osdLines: [String] {
        let times = Phase.allCases.map { phase in
            String(format: "%@ %.2f", phase.name, (phase == .present ? lastPresent : last[phase.rawValue]) * 1000)
        }
        return [
            "ms \(times[0]) \(times[1])", "\(times[2]) \(times[3])",
            "skipped (not shown) \(dropped) duped \(duplicated) underruns \(underruns)",
        ]
    }

    public var summary: String {
        let times = Phase.allCases.map { String(format: "%@ %.3f", $0.name, average($0)) }.joined(separator: ", ")
        return
            """
            stats    per frame (ms): \(times); \(frames) frames, \(dropped) skipped (not shown: fast-forward), \(duplicated) duplicated, \
            \(underruns) audio underruns
            """
    }
}

/// A monotonic stopwatch in seconds, for the phases above.
@inline(__always)
public func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

@inline(__always)
public func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
