import CRetroShim

/// Checks on what a core hands over (frames, audio, memory): a core that lies about a size gets its
/// data ignored with a warning naming it, never a read past the memory it gave.
extension Core {
    /// No console draws wider or taller than this; larger frames are lies.
    public static let maxFrameSide = 16384
    /// Audio frames per `audio_sample_batch` call: seconds of sound, far more than one video frame's.
    public static let maxAudioBatch = 1 << 17
    /// Memory regions (save RAM, system RAM, memory-map blocks) larger than this are lies.
    public static let maxRegionSize = 1 << 30

    /// Warns once per kind of misbehaviour, naming the core.
    func reportOnce(_ kind: String, _ message: @autoclosure () -> String) {
        guard reportedProblems.insert(kind).inserted else { return }
        log(.warn, "core misbehaves: \(message()) (ignored; warned once)")
    }

    /// The bytes a frame may span: the declared maximum geometry at 4 bytes a pixel.
    private var frameByteLimit: Int {
        let width = min(max(avInfo?.maxWidth ?? 0, avInfo?.baseWidth ?? 0), Core.maxFrameSide)
        let height = min(max(avInfo?.maxHeight ?? 0, avInfo?.baseHeight ?? 0), Core.maxFrameSide)
        // A core that declares no geometry still gets an ordinary screen's worth.
        return width > 0 && height > 0 ? width * height * 4 : 1024 * 1024 * 4
    }

    /// Whether a frame's size is believable and the memory it claims is readable.
    func frameIsSafe(_ data: UnsafeRawPointer, _ width: Int, _ height: Int, _ pitch: Int) -> Bool {
        guard width > 0, height > 0, width <= Core.maxFrameSide, height <= Core.maxFrameSide else {
            reportOnce("frame size", "a video frame of \(width)x\(height)")
            return false
        }
        let row = width * pixelFormat.bytesPerPixel
        guard pitch >= row else {
            reportOnce("frame pitch", "a video frame \(width) pixels wide with a pitch of \(pitch) bytes")
            return false
        }
        let (rows, overflow) = pitch.multipliedReportingOverflow(by: height - 1)
        let span = rows &+ row
        guard !overflow, span > 0, span <= frameByteLimit else {
            reportOnce(
                "frame span",
                "a \(width)x\(height) video frame with a pitch of \(pitch) bytes, beyond the declared geometry")
            return false
        }
        if checkedFrameBuffers.contains(where: { $0.pointer == data && $0.span >= span }) { return true }
        guard rs_is_readable(data, span) != 0 else {
            reportOnce("frame memory", "a \(width)x\(height) video frame whose buffer is not readable memory")
            return false
        }
        if checkedFrameBuffers.count >= 4 { checkedFrameBuffers.removeFirst() }
        checkedFrameBuffers.append((data, span))
        return true
    }

    /// Whether an audio batch's frame count is believable and its samples readable.
    func audioBatchIsSafe(_ samples: UnsafePointer<Int16>, _ frames: Int) -> Bool {
        guard frames >= 0, frames <= Core.maxAudioBatch else {
            reportOnce("audio batch", "an audio batch of \(UInt(bitPattern: frames)) frames")
            return false
        }
        let span = frames * 4
        let pointer = UnsafeRawPointer(samples)
        if let checked = checkedAudioBuffer, checked.pointer == pointer, checked.span >= span { return true }
        guard rs_is_readable(pointer, span) != 0 else {
            reportOnce("audio memory", "an audio batch of \(frames) frames whose buffer is not readable memory")
            return false
        }
        checkedAudioBuffer = (pointer, span)
        return true
    }

    /// A region the core reports (`retro_get_memory_*`, a memory-map block), or nil when its size is
    /// implausible or its memory unreadable.
    func checkedRegion(
        _ what: String, pointer: UnsafeMutableRawPointer?, size: Int
    ) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        guard let pointer, size != 0 else { return nil }
        guard size > 0, size <= Core.maxRegionSize else {
            reportOnce("size " + what, "\(what) of \(UInt(bitPattern: size)) bytes")
            return nil
        }
        guard rs_is_readable(pointer, size) != 0 else {
            reportOnce("memory " + what, "\(what) of \(size) bytes that is not readable memory")
            return nil
        }
        return (pointer, size)
    }
}
