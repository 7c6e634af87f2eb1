import Emulation
import Libretro

/// The preprocessing one binary connection set (`preprocess`) and what it carries from step to step:
/// the frame stack (oldest first), the seeded generator of sticky actions and no-op starts, the
/// buttons of the last frame run, and the copy of a step's next-to-last frame for the max-pool.
/// A processed step's observation — stack × height × width (× 3 without grayscale), uint8 — is what
/// it writes into the screen area; reference: python/retrolua/_protocol.py (`PREPROCESS`).
final class ControlBinaryPreprocessing {
    /// The payload: skip, max_pool, grayscale, width, height, stack, noop_max (u32), sticky (f64),
    /// seed (u64), little-endian.
    static let payloadSize = 44
    static let maxSide = 1024, maxStack = 16, maxSkip = 64, maxNoops = 10000

    let skip: Int
    let maxPool: Bool
    let grayscale: Bool
    /// The resize (nil: the frame's own size).
    let size: (width: Int, height: Int)?
    let stack: Int
    let noopMax: Int
    /// A frame keeps the last frame's buttons when the generator's top 53 bits are below this.
    let stickyThreshold: UInt64
    private var random: SplitMix64
    var previousButtons = InlineArray<8, UInt16>(repeating: 0)
    /// The kept frame, the resize's weights and the stack, with their buffers (FrameProcessingObservation).
    private let observation: FrameProcessingObservation

    init(_ payload: ArraySlice<UInt8>, capacity: Int) throws(ControlError) {
        guard payload.count == Self.payloadSize else {
            throw ControlError("binary preprocess: the payload must be \(Self.payloadSize) bytes, got \(payload.count)")
        }
        let start = payload.startIndex
        func field(_ field: WireField) -> UInt64 {
            (0..<field.size).reduce(UInt64(0)) { $0 | UInt64(payload[start + field.offset + $1]) << UInt64($1 * 8) }
        }
        typealias Options = ControlBinaryLayout.PreprocessOptions
        func bounded(_ at: WireField, _ name: String, _ range: ClosedRange<Int>) throws(ControlError) -> Int {
            let value = field(at)
            guard let number = Int(exactly: value), range.contains(number) else {
                throw ControlError(
                    "binary preprocess: \(name) must be \(range.lowerBound)…\(range.upperBound), got \(value)")
            }
            return number
        }
        skip = try bounded(Options.frameskip, "frameskip", 1...Self.maxSkip)
        maxPool = try bounded(Options.maxPool, "max_pool", 0...1) == 1
        grayscale = try bounded(Options.grayscale, "grayscale", 0...1) == 1
        let width = try bounded(Options.width, "the width", 0...Self.maxSide)
        let height = try bounded(Options.height, "the height", 0...Self.maxSide)
        guard (width == 0) == (height == 0) else {
            throw ControlError("binary preprocess: the resize is width and height both 1…\(Self.maxSide), or both 0")
        }
        size = width == 0 ? nil : (width, height)
        stack = try bounded(Options.frameStack, "frame_stack", 1...Self.maxStack)
        noopMax = try bounded(Options.noopMax, "noop_max", 0...Self.maxNoops)
        let sticky = Double(bitPattern: field(Options.stickyActions))
        guard sticky.isFinite, sticky >= 0, sticky < 1 else {
            throw ControlError("binary preprocess: sticky_actions must be 0 ≤ p < 1, got \(sticky)")
        }
        stickyThreshold = UInt64(sticky * 9_007_199_254_740_992)  // p · 2^53, exact
        random = SplitMix64(seed: field(Options.seed))
        observation = FrameProcessingObservation(grayscale: grayscale, stack: stack)
        if let size, stack * size.width * size.height * (grayscale ? 1 : 3) > capacity {
            throw ControlError(
                "binary preprocess: \(stack) frames of \(size.width)x\(size.height) exceed the shared screen area (\(capacity) bytes)"
            )
        }
    }

    func reseed(_ seed: UInt64) { random = SplitMix64(seed: seed) }

    /// An episode's no-op frames: a seeded 1…noop_max, or `fallback` without no-op starts.
    func noopFrames(fallback: Int) -> Int {
        noopMax > 0 ? 1 + Int(random.next() % UInt64(noopMax)) : fallback
    }

    /// A frame's buttons under sticky actions: with probability p, the last frame's; remembered.
    func sticky(_ buttons: InlineArray<8, UInt16>) -> InlineArray<8, UInt16> {
        if stickyThreshold > 0 && random.next() >> 11 < stickyThreshold { return previousButtons }
        previousButtons = buttons
        return buttons
    }

    /// Keeps the frame about to be followed by a step's last one (for the max-pool).
    func keep(_ frame: LastFrame) { observation.keep(frame) }

    /// Forgets a kept frame (a step starts).
    func forgetPooled() { observation.forgetKept() }

    /// The processed observation of `frame` pushed onto the stack (an episode's first fills it), then
    /// the stack written at `target`; its width, height and length in bytes.
    func observe(
        _ frame: LastFrame, pool: Bool, episodeStart: Bool, into target: UnsafeMutableRawPointer, capacity: Int
    ) throws(ControlError) -> (Int, Int, Int) {
        let (width, height) = size ?? (frame.width, frame.height)
        let length = stack * width * height * (grayscale ? 1 : 3)
        guard length <= capacity, frame.width > 0, frame.height > 0 else {
            throw ControlError(
                "binary step: \(stack) processed frames of \(width)x\(height) exceed the shared screen area")
        }
        observation.observe(
            frame, pool: pool && maxPool, episodeStart: episodeStart, width: width, height: height, into: target)
        return (width, height, length)
    }
}
