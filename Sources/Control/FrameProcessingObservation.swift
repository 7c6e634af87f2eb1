import Emulation
import Libretro

/// A processed step's observation made without an allocation per step: the max-pool and the luma on the
/// core's own pixels (`NativeFrameProcessing`), the area resize into the newest slot of a ring of the
/// stack's frames, then the stack written out oldest first. Every buffer is kept for the next step.
final class FrameProcessingObservation {
    private let grayscale: Bool
    private let stack: Int
    /// The step's next-to-last frame, packed in its own format (for the max-pool), and its shape.
    private var kept = Buffer()
    private var keptShape: (width: Int, height: Int, format: PixelFormat)?
    /// A frame whose rows have padding, packed; the luma or RGB of the frame to resize.
    private var packed = Buffer()
    private var pixels = Buffer()
    private var conversion: [UInt8] = []
    private var resizer: AreaResize?
    private var scratch = AreaResize.Scratch()
    /// The stack's frames, `slot` the newest; `shape` their size (a new size refills the stack).
    private var ring = Buffer()
    private var slot = 0
    private var shape = (width: 0, height: 0)

    init(grayscale: Bool, stack: Int) {
        self.grayscale = grayscale
        self.stack = stack
    }

    /// Keeps `frame` for the max-pool with the step's last frame.
    func keep(_ frame: LastFrame) {
        NativeFrameProcessing.copyPacked(frame, into: kept.room(frame.rowBytes * frame.height))
        keptShape = (frame.width, frame.height, frame.format)
    }

    /// Forgets the kept frame (a step starts).
    func forgetKept() { keptShape = nil }

    /// `frame` (max-pooled with the kept one when `pool` and it has the same shape) made `width`×`height`,
    /// pushed onto the stack (an episode's first fills it), then the stack written at `target`.
    func observe(
        _ frame: LastFrame, pool: Bool, episodeStart: Bool, width: Int, height: Int,
        into target: UnsafeMutableRawPointer
    ) {
        let channels = grayscale ? 1 : 3
        let count = frame.width * frame.height, frameLength = width * height * channels
        let pooled = pool && keptShape.map { $0 == (frame.width, frame.height, frame.format) } == true
        keptShape = nil
        let source: UnsafeRawPointer =
            pooled || frame.pitch != frame.rowBytes ? packedSource(frame, pooled) : frame.data
        let image = pixels.room(count * channels)
        if grayscale {
            NativeFrameProcessing.grayscale(
                source, pixels: count, format: frame.format, into: image.assumingMemoryBound(to: UInt8.self),
                scratch: &conversion)
        } else {
            VideoFrame.writeRGB(
                from: source, width: frame.width, height: frame.height, pitch: frame.rowBytes, format: frame.format,
                into: image)
        }
        if let resizer, resizer.width == frame.width, resizer.height == frame.height, resizer.toWidth == width,
            resizer.toHeight == height
        {
        } else {
            resizer = AreaResize(
                width: frame.width, height: frame.height, channels: channels, toWidth: width, toHeight: height)
        }
        let refill = episodeStart || ring.count != stack * frameLength || shape != (width, height)
        let frames = ring.room(stack * frameLength, exactly: true).assumingMemoryBound(to: UInt8.self)
        shape = (width, height)
        slot = refill ? 0 : (slot + 1) % stack
        resizer!.apply(
            UnsafePointer(image.assumingMemoryBound(to: UInt8.self)), into: frames + slot * frameLength,
            scratch: &scratch)
        if refill {
            for other in 1..<max(stack, 1) { (frames + other * frameLength).update(from: frames, count: frameLength) }
        }
        // Oldest first: the slots after the newest, then those up to it.
        let older = (stack - 1 - slot) * frameLength, newer = (slot + 1) * frameLength
        target.copyMemory(from: frames + newer, byteCount: older)
        (target + older).copyMemory(from: frames, byteCount: newer)
    }

    /// The frame packed (its rows without padding), max-pooled into the kept frame when `pooled`.
    private func packedSource(_ frame: LastFrame, _ pooled: Bool) -> UnsafeRawPointer {
        var current = frame.data
        if frame.pitch != frame.rowBytes {
            let room = packed.room(frame.rowBytes * frame.height)
            NativeFrameProcessing.copyPacked(frame, into: room)
            current = UnsafeRawPointer(room)
        }
        guard pooled, let into = kept.start else { return current }
        NativeFrameProcessing.maxPool(into, current, pixels: frame.width * frame.height, format: frame.format)
        return UnsafeRawPointer(into)
    }
}

/// Bytes owned by their holder, grown (never shrunk) to what is asked.
private struct Buffer: ~Copyable {
    private(set) var start: UnsafeMutableRawPointer?
    private(set) var count = 0

    /// At least `length` bytes (exactly, when `exactly`: a new count drops the contents).
    mutating func room(_ length: Int, exactly: Bool = false) -> UnsafeMutableRawPointer {
        if let start, exactly ? count == length : count >= length { return start }
        start?.deallocate()
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: max(length, 1), alignment: 64)
        fresh.initializeMemory(as: UInt8.self, repeating: 0, count: max(length, 1))
        (start, count) = (fresh, length)
        return fresh
    }

    deinit { start?.deallocate() }
}
