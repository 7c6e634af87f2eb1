import Libretro
import Support

/// Rewind: the core's state plus the frame and lag counters into a `RewindBuffer`, and back. No
/// script data and no event: stepping back is the player walking through time, not a state load —
/// but it is one in hardcore mode, where it is refused.
extension Emulator {
    /// Frame and lag counters ride along after the core's state in each entry.
    private static let counterBytes = 16

    /// Records the current state as the buffer's newest entry.
    public func pushRewind(to buffer: RewindBuffer) throws(Refusal) {
        try refuseDuringInputPoll()
        let size = session.core.serializeSize
        guard size > 0 else { throw Refusal(.failed, "the core does not support savestates") }
        if rewindScratch.count != size + Self.counterBytes {
            rewindScratch = [UInt8](repeating: 0, count: size + Self.counterBytes)
        }
        var problem: (any Error)?
        rewindScratch.withUnsafeMutableBytes { raw in
            do {
                try session.core.serialize(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<size]))
            } catch {
                problem = error
            }
            raw.storeBytes(of: UInt64(session.frameCount), toByteOffset: size, as: UInt64.self)
            raw.storeBytes(of: UInt64(session.lagCount), toByteOffset: size + 8, as: UInt64.self)
        }
        if let problem { throw .failed(problem) }
        rewindScratch.withUnsafeBytes { buffer.push($0) }
    }

    /// Restores the buffer's newest entry and removes it; false when the history is empty.
    public func stepRewind(_ buffer: RewindBuffer) throws(Refusal) -> Bool {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("rewind is") }
        var problem: (any Error)?
        let stepped = buffer.step { bytes in
            let size = bytes.count - Self.counterBytes
            do {
                try session.core.unserialize(UnsafeRawBufferPointer(rebasing: bytes[0..<size]), protecting: false)
                session.restoreCounters(
                    frame: Int(bytes.loadUnaligned(fromByteOffset: size, as: UInt64.self)),
                    lag: Int(bytes.loadUnaligned(fromByteOffset: size + 8, as: UInt64.self)))
            } catch {
                problem = error
            }
        }
        if let problem { throw .failed(problem) }
        if stepped { emit(.timeJumped) }
        return stepped
    }
}
