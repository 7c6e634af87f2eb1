/// Dynamic rate control: the resampling ratio that keeps the sound card's queue near its target.
///
/// The emulator produces audio at the core's rate by its own clock (the frame timer or vsync); the
/// sound card consumes it by a crystal that is never exactly the nominal rate. Left alone the queue
/// drifts until it underruns (crackles) or grows without bound (latency). As in RetroArch, the
/// ratio is nudged in proportion to how far the queue is from half full:
///
///     ratio = baseRatio × (1 + delta × (avail − half) / half + drift)
///
/// with `size` the queue's capacity, `avail` its free space, `half = size / 2` (so the set point is
/// a half-full queue) and `(avail − half) / half` clamped to ±1. `delta` (0.005 by default) bounds
/// the pitch change to ±0.5%, small enough to be inaudible.
///
/// Why the `drift` term (RetroArch has none): the proportional term alone can only absorb a clock
/// error smaller than `delta`, and only by moving the queue away from its target by
/// `error / delta` of half the capacity. A card 0.5% off with `delta = 0.005` would sit at the edge
/// of the buffer (underruns, or double the latency). `drift` integrates the same error slowly
/// (`driftGain` per second of audio) and learns the card's real rate, so the queue settles back at
/// its target while the proportional term only handles jitter. It is bounded by `maxDrift`, learns
/// only through `ratio(queuedFrames:capacityFrames:elapsed:)`, and should be disabled
/// (`driftGain = 0`) when the frontend paces itself on the audio queue, because then the pacing,
/// not the ratio, holds the queue level, and any pacing bias would be integrated into a pitch error.
public struct RateControl: Sendable {
    /// The drift learning rate used unless told otherwise (per second of audio, per unit of error).
    /// Chosen by simulation (see `RateControlTests`): with a 64 ms target, a ±0.5% clock error is
    /// absorbed with the queue's per-frame average staying within ±15% of its target; the learning
    /// oscillates gently (period ~7 s) and settles within a minute or two. Much lower gains let the
    /// queue wander further first; much higher ones ring longer.
    public static let defaultDriftGain = 0.05

    public private(set) var inputRate: Double
    public let outputRate: Double
    /// Maximum relative pitch change made by the proportional term.
    public var delta: Double
    /// How fast `drift` learns (per second of audio, per unit of normalized queue error); 0 disables.
    public var driftGain: Double
    /// The largest clock error `drift` will compensate (relative).
    public var maxDrift: Double = 0.02
    /// The learned relative clock error between the producer and the sound card.
    public private(set) var drift: Double = 0
    /// The last ratio returned.
    public private(set) var lastRatio: Double

    /// `outputRate / inputRate`: the ratio with no correction.
    public var baseRatio: Double { outputRate / inputRate }

    public init(
        inputRate: Double, outputRate: Double, delta: Double = 0.005, driftGain: Double = RateControl.defaultDriftGain
    ) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.delta = delta
        self.driftGain = driftGain
        lastRatio = outputRate / inputRate
    }

    /// The ratio for a queue holding `queuedFrames` out of `capacityFrames` (set point: half), with
    /// the current drift but without learning: exactly RetroArch's formula while drift is 0.
    public mutating func ratio(queuedFrames: Int, capacityFrames: Int) -> Double {
        lastRatio = baseRatio * (1 + delta * error(queuedFrames: queuedFrames, capacityFrames: capacityFrames) + drift)
        return lastRatio
    }

    /// The ratio as above, after learning from the queue error over `elapsed` seconds of audio (the
    /// audio this ratio is about to convert). Pass 0 while the output is not playing: a queue that
    /// is filling or paused says nothing about the card's clock.
    public mutating func ratio(queuedFrames: Int, capacityFrames: Int, elapsed: Double) -> Double {
        let error = error(queuedFrames: queuedFrames, capacityFrames: capacityFrames)
        if elapsed > 0 && elapsed.isFinite && driftGain > 0 {
            drift = min(maxDrift, max(-maxDrift, drift + driftGain * error * elapsed))
        }
        lastRatio = baseRatio * (1 + delta * error + drift)
        return lastRatio
    }

    /// Cores change their sample rate with `RETRO_ENVIRONMENT_SET_SYSTEM_AV_INFO`. The learned drift
    /// is kept: it describes the sound card, not the core.
    public mutating func setInputRate(_ rate: Double) {
        inputRate = rate
    }

    /// Forgets the learned clock error (a new output device).
    public mutating func resetDrift() {
        drift = 0
    }

    /// `(avail − half) / half` clamped to ±1: positive when the queue is below half full.
    private func error(queuedFrames: Int, capacityFrames: Int) -> Double {
        guard capacityFrames > 1 else { return 0 }
        let half = Double(capacityFrames) / 2
        let avail = Double(capacityFrames - queuedFrames)
        return min(1, max(-1, (avail - half) / half))
    }
}
