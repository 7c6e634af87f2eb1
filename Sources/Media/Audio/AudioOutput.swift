/// Where resampled audio goes: a sound card, a WAV file, nowhere, or several of those.
///
/// Samples are interleaved stereo Int16 at `sampleRate`. The model is push-only from the emulation
/// thread (no callbacks), so nothing needs a lock and the queue level is always at hand for rate
/// control.
public protocol AudioOutput: AnyObject {
    /// The rate the output actually runs at (a device may not grant the one asked for).
    var sampleRate: Int { get }
    /// Stereo frames queued and not yet played.
    var queuedFrames: Int { get }
    /// Whether the output consumes audio by a real clock. Only then do queue levels, rate control
    /// and underruns mean anything; a file or a null output takes everything at once, and the
    /// pipeline then converts at exactly the nominal ratio, so headless recordings are
    /// deterministic.
    var isRealTime: Bool { get }
    /// Appends interleaved stereo samples (an even count).
    func queue(_ samples: UnsafeBufferPointer<Int16>)
    /// Starts or pauses playback; queued audio is kept while paused.
    func setPlaying(_ playing: Bool)
    /// Drops everything queued and not yet played.
    func clear()
}

extension AudioOutput {
    public var isRealTime: Bool { true }
}

/// Discards everything: the silent fallback when no sound device can be opened, and the output of
/// unpaced headless runs that record nothing.
public final class NullAudioOutput: AudioOutput {
    public let sampleRate: Int
    /// Frames handed to `queue` so far.
    public private(set) var framesDiscarded = 0

    public init(sampleRate: Int = 48000) {
        self.sampleRate = sampleRate
    }

    public var queuedFrames: Int { 0 }
    public var isRealTime: Bool { false }
    public func queue(_ samples: UnsafeBufferPointer<Int16>) { framesDiscarded += samples.count / 2 }
    public func setPlaying(_ playing: Bool) {}
    public func clear() {}
}

/// Plays on one output and copies every queued sample to another: `--wav` while the SDL device
/// plays records exactly what the listener hears, resampled and rate-controlled.
///
/// Timing (rate, queue level, playing, clearing) comes only from `primary`; `copy` just receives
/// samples, so it must have been created at `primary.sampleRate` (e.g. a `WAVFileOutput` made after
/// the device was opened, from the rate the device granted).
public final class TeeAudioOutput: AudioOutput {
    public let primary: AudioOutput
    public let copy: AudioOutput

    public init(_ primary: AudioOutput, _ copy: AudioOutput) {
        precondition(
            primary.sampleRate == copy.sampleRate,
            "TeeAudioOutput: copy runs at \(copy.sampleRate) Hz but primary at \(primary.sampleRate) Hz")
        self.primary = primary
        self.copy = copy
    }

    public var sampleRate: Int { primary.sampleRate }
    public var queuedFrames: Int { primary.queuedFrames }
    public var isRealTime: Bool { primary.isRealTime }

    public func queue(_ samples: UnsafeBufferPointer<Int16>) {
        primary.queue(samples)
        copy.queue(samples)
    }

    public func setPlaying(_ playing: Bool) { primary.setPlaying(playing) }

    /// Only the primary drops its queue: the copy already has the samples, as a recording should.
    public func clear() { primary.clear() }
}
