/// Counters for `--stats` and `emu.stats()`.
public struct AudioStats: Sendable, Equatable {
    /// Times the output ran dry while playing (each one an audible gap).
    public var underruns = 0
    /// Stereo frames received from the core.
    public var framesIn = 0
    /// Stereo frames handed to the output after resampling.
    public var framesOut = 0
    /// Core frames dropped: while muted, or because the resampler failed.
    public var framesDropped = 0
    /// The resampling ratio used for the last block (output rate ÷ core rate, with corrections).
    public var lastRatio = 0.0
    /// The learned sound card clock error (relative; 0 unless `learnsClockDrift`).
    public var drift = 0.0
    /// Stereo frames waiting in the output at the last `endFrame`.
    public var queuedFrames = 0
}

/// The core's audio on its way to the speakers: collected per emulated frame, resampled with dynamic
/// rate control, queued on an `AudioOutput`, with a start/underrun policy.
///
/// One frame's life: the core calls `push` from its audio callbacks (any number of times, any
/// sizes); the frontend calls `endFrame()` once after `retro_run`, which picks the ratio from the
/// output's queue level, converts everything pushed, and queues it. Everything runs on the
/// emulation thread; in steady state nothing is allocated.
///
/// Playback policy: the output plays only once `targetFrames` are queued, so it starts with a full
/// cushion rather than crackling while it fills. If it runs dry while playing (an underrun), the
/// output is paused and refilled to the target before playing again: one clean gap instead of a
/// stutter per frame.
///
/// Pacing: a frontend that paces on audio waits, before each frame, while `framesAboveTarget() > 0`;
/// the card's clock then sets the game speed, the queue stays at the target by construction, and
/// `learnsClockDrift` must stay off. A frontend that paces on a clock or on vsync produces audio at
/// its own rate; it should turn `learnsClockDrift` on, so that a sound card running up to ±2% off
/// its nominal rate is absorbed by the ratio (see `RateControl`) without underruns.
public final class AudioPipeline {
    public let output: AudioOutput
    /// The queue level the pipeline steers to (the latency), in output frames.
    public let targetFrames: Int
    public private(set) var inputRate: Double
    /// Whether the output has been told to play.
    public private(set) var isPlaying = false
    /// The last error (from the resampler or a bad core rate), for the frontend to show.
    public private(set) var lastError: String?
    /// Called with each new error message (not again for a repeat of the same message).
    public var onError: ((String) -> Void)?

    /// Fast-forward and slow motion: samples are dropped, the output's queue is cleared and paused,
    /// and the resampler forgets its tail, so sound comes back cleanly (after refilling to the
    /// target) when unmuted. Underruns are not counted while muted.
    public var muted = false {
        didSet { if muted && !oldValue { clear() } }
    }

    /// Learn the sound card's clock error from the queue (for clock- or vsync-paced frontends; off
    /// when pacing on audio). Turning it off forgets what was learned.
    public var learnsClockDrift: Bool {
        didSet { if !learnsClockDrift { rate.resetDrift() } }
    }

    private var rate: RateControl
    private let resampler: Resampler?
    private var pending: [Int16] = []
    private var counters = AudioStats()

    /// - Parameters:
    ///   - inputRate: the core's sample rate (`retro_system_av_info.timing.sample_rate`).
    ///   - latency: the target queue length in seconds.
    public init(
        inputRate: Double, output: AudioOutput, quality: ResamplerQuality = .sincFastest,
        delta: Double = 0.005, latency: Double = 0.064, learnsClockDrift: Bool = false
    ) {
        self.output = output
        self.inputRate = inputRate
        self.learnsClockDrift = learnsClockDrift
        targetFrames = max(1, Int((latency * Double(output.sampleRate)).rounded()))
        rate = RateControl(inputRate: inputRate, outputRate: Double(output.sampleRate), delta: delta)
        // Room for several frames of a 48 kHz core before the first growth.
        pending.reserveCapacity(16384)
        do {
            resampler = try Resampler(quality: quality)
        } catch {
            resampler = nil
            report(error.message)
        }
        counters.lastRatio = rate.baseRatio
    }

    public var stats: AudioStats {
        var stats = counters
        stats.drift = rate.drift
        return stats
    }

    /// Takes `frames` interleaved stereo frames from the core. Cheap: a copy into a buffer that
    /// keeps its capacity between frames.
    public func push(_ samples: UnsafePointer<Int16>, frames: Int) {
        guard frames > 0 else { return }
        counters.framesIn += frames
        if muted {
            counters.framesDropped += frames
            return
        }
        pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
    }

    /// Once per emulated frame: underrun check, ratio, resampling, queueing, start of playback.
    public func endFrame() {
        let queued = output.queuedFrames
        counters.queuedFrames = queued
        if muted {
            pending.removeAll(keepingCapacity: true)
            return
        }
        if isPlaying && output.isRealTime && queued == 0 {
            counters.underruns += 1
            isPlaying = false
            output.setPlaying(false)
        }
        convertPending(queued: queued, learn: true)
        if !isPlaying && output.isRealTime && output.queuedFrames >= targetFrames {
            isPlaying = true
            output.setPlaying(true)
        }
    }

    /// How far the output's queue is above the target, in output frames (negative when below).
    /// An audio-paced frontend waits while this is positive. For an output that is not real time
    /// (a file, nothing) it is always negative: such runs must be paced by a clock, if at all.
    public func framesAboveTarget() -> Int {
        output.queuedFrames - targetFrames
    }

    /// A core changed its sample rate (`SET_SYSTEM_AV_INFO`). Audio already pushed at the old rate
    /// is converted at the old rate first.
    public func setInputRate(_ newRate: Double) {
        guard newRate != inputRate else { return }
        if !muted { convertPending(queued: output.queuedFrames, learn: false) }
        inputRate = newRate
        rate.setInputRate(newRate)
        // Step to the new ratio rather than let libsamplerate glide to it over the next block. A bad
        // rate is reported when audio arrives at it.
        if newRate.isFinite && newRate > 0 { try? resampler?.setRatio(rate.baseRatio) }
    }

    /// Drops everything not yet played (pushed, queued, and the resampler's tail) and pauses until
    /// the target is queued again: for muting, loading a state, resetting the core.
    public func clear() {
        pending.removeAll(keepingCapacity: true)
        resampler?.reset()
        output.clear()
        if isPlaying {
            isPlaying = false
            output.setPlaying(false)
        }
    }

    // MARK: -

    /// Resamples and queues everything pushed. The queue level steered is the average over the
    /// coming frame (the level now plus half of what is about to be queued), so the queue's
    /// per-frame sawtooth is centred on the target rather than sitting above or below it.
    private func convertPending(queued: Int, learn: Bool) {
        let frames = pending.count / 2
        guard frames > 0 else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        guard inputRate.isFinite && inputRate > 0 else {
            counters.framesDropped += frames
            report("audio: the core reports a sample rate of \(inputRate) Hz; its sound is dropped")
            return
        }
        guard let resampler else {
            counters.framesDropped += frames
            return
        }
        let ratio: Double
        if output.isRealTime {
            let level = queued + Int(Double(frames) * rate.baseRatio / 2)
            let elapsed = learn && learnsClockDrift && isPlaying ? Double(frames) / inputRate : 0
            ratio = rate.ratio(queuedFrames: level, capacityFrames: 2 * targetFrames, elapsed: elapsed)
        } else {
            ratio = rate.baseRatio  // Nothing to steer: exact and deterministic.
        }
        counters.lastRatio = ratio
        do {
            let converted = try pending.withUnsafeBufferPointer { buffer throws(ResamplerError) in
                try resampler.process(buffer.baseAddress!, frames: frames, ratio: ratio)
            }
            output.queue(converted)
            counters.framesOut += converted.count / 2
        } catch {
            counters.framesDropped += frames
            resampler.reset()
            report(error.message)
        }
    }

    private func report(_ message: String) {
        guard message != lastError else { return }
        lastError = message
        onError?(message)
    }
}
