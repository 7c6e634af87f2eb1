import CSampleRate

/// libsamplerate's converters, named as users type them on the command line.
///
/// SINC_FASTEST is the default: it is band-limited (no audible aliasing from a 32768 Hz Game Boy
/// stream) and costs well under 1% of a core; LINEAR is several times cheaper but dulls and aliases.
public enum ResamplerQuality: String, CaseIterable, Sendable {
    case sincBest = "sinc-best"
    case sincMedium = "sinc-medium"
    case sincFastest = "sinc-fastest"
    case linear
    case zeroOrderHold = "zoh"

    /// libsamplerate's converter number (`SRC_SINC_BEST_QUALITY` …).
    var converter: Int32 {
        switch self {
        case .sincBest: return Int32(SRC_SINC_BEST_QUALITY)
        case .sincMedium: return Int32(SRC_SINC_MEDIUM_QUALITY)
        case .sincFastest: return Int32(SRC_SINC_FASTEST)
        case .linear: return Int32(SRC_LINEAR)
        case .zeroOrderHold: return Int32(SRC_ZERO_ORDER_HOLD)
        }
    }
}

/// A failure reported by libsamplerate, worded with `src_strerror`.
public struct ResamplerError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    init(code: Int32, doing what: String) {
        let text = src_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        message = "resampler: \(what): \(text)"
    }
    public var description: String { message }
}

/// Streaming stereo sample-rate conversion of the core's Int16 audio with libsamplerate.
///
/// Why streaming (`src_process`, `end_of_input = 0`) rather than `src_simple`: the converter keeps
/// its filter history between calls, so a stream cut into one block per emulated frame comes out
/// without clicks at the block edges, and a ratio that changes between calls (dynamic rate
/// control) is ramped smoothly by libsamplerate across the next block.
///
/// Buffers are owned here and only ever grow, so a steady stream allocates nothing per call.
/// Not thread-safe: use it from the emulation thread only.
public final class Resampler {
    public let quality: ResamplerQuality
    private let state: OpaquePointer

    private var inputFloats: UnsafeMutablePointer<Float>
    private var inputCapacity: Int  // in samples (frames × 2)
    private var outputFloats: UnsafeMutablePointer<Float>
    private var outputShorts: UnsafeMutablePointer<Int16>
    private var outputCapacity: Int  // in samples (frames × 2)

    /// Frames per block a call may take before the int-sized libsamplerate helpers overflow.
    private static let maxFramesPerCall = Int(Int32.max / 4)

    public init(quality: ResamplerQuality = .sincFastest) throws(ResamplerError) {
        var error: Int32 = 0
        guard let state = src_new(quality.converter, 2, &error) else {
            throw ResamplerError(code: error, doing: "cannot create a \(quality.rawValue) converter")
        }
        self.quality = quality
        self.state = state
        inputCapacity = 4096
        inputFloats = .allocate(capacity: inputCapacity)
        outputCapacity = 8192
        outputFloats = .allocate(capacity: outputCapacity)
        outputShorts = .allocate(capacity: outputCapacity)
    }

    deinit {
        src_delete(state)
        inputFloats.deallocate()
        outputFloats.deallocate()
        outputShorts.deallocate()
    }

    /// Forgets the filter history, so the next block starts from silence (after muting or a jump in
    /// the stream, where the old tail would be a glitch).
    public func reset() {
        src_reset(state)
    }

    /// Makes the next block start at `ratio` instead of gliding to it from the previous ratio: for
    /// a core that changes its sample rate, where a glide would bend the pitch for a frame.
    public func setRatio(_ ratio: Double) throws(ResamplerError) {
        guard ratio.isFinite, src_is_valid_ratio(ratio) != 0 else {
            throw ResamplerError("resampler: ratio \(ratio) is outside libsamplerate's range (1/256 to 256)")
        }
        let code = src_set_ratio(state, ratio)
        if code != 0 { throw ResamplerError(code: code, doing: "src_set_ratio") }
    }

    /// Converts `frames` interleaved stereo frames at `ratio` (output rate ÷ input rate).
    ///
    /// All the input is consumed; the returned samples (interleaved stereo, count even) stay valid
    /// until the next call or until the resampler is released. Their number is about
    /// `frames × ratio`, give or take the few frames the filter holds back or releases.
    public func process(
        _ input: UnsafePointer<Int16>, frames: Int, ratio: Double
    ) throws(ResamplerError) -> UnsafeBufferPointer<Int16> {
        guard frames > 0 else { return UnsafeBufferPointer(start: outputShorts, count: 0) }
        guard ratio.isFinite, src_is_valid_ratio(ratio) != 0 else {
            throw ResamplerError("resampler: ratio \(ratio) is outside libsamplerate's range (1/256 to 256)")
        }
        guard frames <= Self.maxFramesPerCall else {
            throw ResamplerError("resampler: \(frames) frames in one block is too many")
        }
        reserveInput(samples: frames * 2)
        src_short_to_float_array(input, inputFloats, Int32(frames * 2))
        // The ratio may ramp from the previous call's value, so leave room beyond frames × ratio.
        let estimate = Int((Double(frames) * ratio).rounded(.up)) + 64
        reserveOutput(samples: estimate * 2, keeping: 0)

        var used = 0
        var produced = 0
        var stalls = 0
        while used < frames {
            var data = SRC_DATA(
                data_in: UnsafePointer(inputFloats + used * 2),
                data_out: outputFloats + produced * 2,
                input_frames: frames - used,
                output_frames: outputCapacity / 2 - produced,
                input_frames_used: 0,
                output_frames_gen: 0,
                end_of_input: 0,
                src_ratio: ratio)
            let code = src_process(state, &data)
            if code != 0 { throw ResamplerError(code: code, doing: "src_process") }
            used += data.input_frames_used
            produced += data.output_frames_gen
            if produced * 2 >= outputCapacity {
                reserveOutput(samples: outputCapacity * 2, keeping: produced * 2)
            } else if data.input_frames_used == 0 && data.output_frames_gen == 0 {
                // Neither progress nor a full output: libsamplerate should never do this; stop
                // rather than spin.
                stalls += 1
                if stalls > 2 { throw ResamplerError("resampler: src_process made no progress") }
            }
        }
        src_float_to_short_array(outputFloats, outputShorts, Int32(produced * 2))
        return UnsafeBufferPointer(start: outputShorts, count: produced * 2)
    }

    private func reserveInput(samples: Int) {
        guard samples > inputCapacity else { return }
        inputFloats.deallocate()
        inputCapacity = max(samples, inputCapacity * 2)
        inputFloats = .allocate(capacity: inputCapacity)
    }

    /// Grows the output buffers to at least `samples`, keeping the first `keeping` floats.
    private func reserveOutput(samples: Int, keeping: Int) {
        guard samples > outputCapacity else { return }
        let capacity = max(samples, outputCapacity * 2)
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        floats.update(from: outputFloats, count: keeping)
        outputFloats.deallocate()
        outputFloats = floats
        outputShorts.deallocate()
        outputShorts = .allocate(capacity: capacity)
        outputCapacity = capacity
    }
}
