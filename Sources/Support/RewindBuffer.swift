import CZstd

/// A history of savestates for rewinding, kept small with reverse deltas: the newest state is stored
/// whole, and each older one as the zstd-compressed XOR against the state after it (consecutive frames
/// differ in few bytes, so the XOR is mostly zeros). Stepping back costs one inflate and one XOR.
/// When the history outgrows its memory budget, the oldest steps are forgotten.
public final class RewindBuffer {
    /// The newest state, whole; nil when the buffer is empty.
    private var newest: [UInt8]?
    /// Older states, oldest first: each the compressed XOR of that state against the next newer one.
    private var deltas: [[UInt8]] = []
    private var oldestIndex = 0
    private var deltaBytes = 0
    public let memoryLimit: Int
    /// Reused scratch buffers, so pushing and stepping allocate only the compressed delta.
    private var scratch: [UInt8] = []
    private var compressed: [UInt8] = []
    /// zstd contexts, reused. Level −3 (a fast level): a mostly-zero XOR still shrinks ~50×, at a few µs.
    private let compressor = ZSTD_createCCtx()
    private let decompressor = ZSTD_createDCtx()

    public init(memoryLimit: Int) {
        self.memoryLimit = memoryLimit
    }

    deinit {
        ZSTD_freeCCtx(compressor)
        ZSTD_freeDCtx(decompressor)
    }

    /// States that `step()` can return to.
    public var count: Int { (newest == nil ? 0 : 1) + deltas.count - oldestIndex }

    /// Bytes held: the newest state plus the compressed deltas.
    public var memoryUsed: Int { (newest?.count ?? 0) + deltaBytes }

    public func clear() {
        newest = nil
        deltas.removeAll()
        oldestIndex = 0
        deltaBytes = 0
    }

    /// Records `state` as the newest entry.
    public func push(_ state: UnsafeRawBufferPointer) {
        if let previous = newest, previous.count == state.count {
            // The delta that recovers `previous` from `state`.
            if scratch.count != state.count { scratch = [UInt8](repeating: 0, count: state.count) }
            scratch.withUnsafeMutableBytes { out in
                previous.withUnsafeBytes { old in xor(old, state, into: out) }
            }
            let delta = deflate(scratch)
            deltas.append(delta)
            deltaBytes += delta.count
            newest!.withUnsafeMutableBytes { $0.copyMemory(from: state) }
        } else {
            // First state, or the core's state size changed: history before it cannot be rebuilt.
            clear()
            newest = Array(state)
        }
        while memoryUsed > memoryLimit && oldestIndex < deltas.count {
            deltaBytes -= deltas[oldestIndex].count
            deltas[oldestIndex] = []
            oldestIndex += 1
        }
        if oldestIndex > 64 && oldestIndex * 2 > deltas.count {
            deltas.removeFirst(oldestIndex)
            oldestIndex = 0
        }
    }

    /// Hands the newest state to `restore` and removes it (the next call gives the one before it).
    /// Returns false when the history is empty.
    public func step(_ restore: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard newest != nil else { return false }
        newest!.withUnsafeBytes { restore($0) }
        if deltas.count > oldestIndex, let delta = deltas.popLast() {
            deltaBytes -= delta.count
            inflate(delta, count: newest!.count)
            newest!.withUnsafeMutableBytes { state in
                scratch.withUnsafeBytes { change in xor(UnsafeRawBufferPointer(state), change, into: state) }
            }
        } else {
            clear()
        }
        return true
    }

    private func xor(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
    {
        let words = a.count / 8
        for index in 0..<words {
            let value =
                a.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
            out.storeBytes(of: value, toByteOffset: index * 8, as: UInt64.self)
        }
        for index in words * 8..<a.count { out[index] = a[index] ^ b[index] }
    }

    private func deflate(_ input: [UInt8]) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        if compressed.count < bound { compressed = [UInt8](repeating: 0, count: bound) }
        let length = compressed.withUnsafeMutableBytes { out in
            input.withUnsafeBytes {
                ZSTD_compressCCtx(compressor, out.baseAddress, bound, $0.baseAddress, input.count, -3)
            }
        }
        precondition(ZSTD_isError(length) == 0, "RewindBuffer: zstd compression failed")  // Only on out-of-memory.
        return Array(compressed[0..<length])
    }

    private func inflate(_ input: [UInt8], count: Int) {
        if scratch.count != count { scratch = [UInt8](repeating: 0, count: count) }
        let length = scratch.withUnsafeMutableBytes { out in
            input.withUnsafeBytes {
                ZSTD_decompressDCtx(decompressor, out.baseAddress, count, $0.baseAddress, input.count)
            }
        }
        // We wrote it: a delta that does not decompress is a bug, not bad input.
        precondition(ZSTD_isError(length) == 0 && length == count, "RewindBuffer: a delta does not decompress")
    }
}
