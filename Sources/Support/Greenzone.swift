import CZstd

/// Savestates keyed by movie frame, so that any frame is "the nearest state at or before it, then
/// replay": every frame near the current one, every `midStep`-th a little further, every `farStep`-th
/// beyond; each compressed with zstd on its own (any one can be dropped or read without the others), at a
/// fast level (−3: a state is taken every frame the editor is shown).
/// When the states outgrow `memoryLimit`, the far ones are thinned (the coarsest spacing doubles), then
/// the oldest go; frame 0 stays as long as anything does.
public final class Greenzone {
    public struct Settings: Sendable, Equatable {
        /// Frames either side of the current one that keep every state.
        public var nearFrames = 64
        /// Up to this distance, every `midStep`-th state is kept.
        public var midFrames = 1024
        public var midStep = 2
        /// Beyond `midFrames`, every `farStep`-th state (the first to be thinned when memory runs out).
        public var farStep = 8
        public var memoryLimit = 64 << 20
        public init() {}
    }

    public struct Entry {
        public let frame: Int
        /// The session's frame and lag counters when the state was taken.
        public let frameCount: Int
        public let lagCount: Int
        let size: Int
        let compressed: [UInt8]
    }

    public private(set) var settings: Settings
    /// Entries by ascending frame.
    private var entries: [Entry] = []
    public private(set) var memoryUsed = 0
    /// `farStep` after thinning for memory (reset when the settings change or everything is dropped).
    public private(set) var farStep: Int
    private var scratch: [UInt8] = []
    /// Reused for compressing (a state's compress bound is zeroed once, not every frame).
    private var compressed: [UInt8] = []
    private let compressor = ZSTD_createCCtx()
    private let decompressor = ZSTD_createDCtx()

    public init(settings: Settings = Settings()) {
        self.settings = settings
        farStep = max(1, settings.farStep)
    }

    deinit {
        ZSTD_freeCCtx(compressor)
        ZSTD_freeDCtx(decompressor)
    }

    public var count: Int { entries.count }
    /// The highest frame with a state (nil when empty).
    public var lastFrame: Int? { entries.last?.frame }
    public var frames: [Int] { entries.map(\.frame) }

    public func update(_ settings: Settings) {
        self.settings = settings
        farStep = max(1, settings.farStep)
        enforceLimit()
    }

    public func clear() {
        entries.removeAll()
        memoryUsed = 0
        farStep = max(1, settings.farStep)
    }

    public func contains(_ frame: Int) -> Bool {
        let index = firstIndex(atOrAfter: frame)
        return index < entries.count && entries[index].frame == frame
    }

    /// Stores the state of `frame` (replacing one already there).
    public func insert(frame: Int, frameCount: Int, lagCount: Int, state: UnsafeRawBufferPointer) {
        let entry = Entry(
            frame: frame, frameCount: frameCount, lagCount: lagCount, size: state.count, compressed: deflate(state))
        let index = firstIndex(atOrAfter: frame)
        if index < entries.count && entries[index].frame == frame {
            memoryUsed -= entries[index].compressed.count
            entries[index] = entry
        } else {
            entries.insert(entry, at: index)
        }
        memoryUsed += entry.compressed.count
        if memoryUsed > settings.memoryLimit { enforceLimit() }
    }

    /// Drops every state after `frame` (input from `frame` on changed: they are on another timeline).
    public func invalidate(after frame: Int) {
        let index = firstIndex(atOrAfter: frame &+ 1)
        guard index < entries.count else { return }
        for entry in entries[index...] { memoryUsed -= entry.compressed.count }
        entries.removeSubrange(index...)
    }

    /// The state at or before `frame`, inflated into `body`'s buffer; nil when there is none.
    public func nearest<T>(atOrBefore frame: Int, _ body: (Entry, UnsafeRawBufferPointer) -> T) -> T? {
        let index = firstIndex(atOrAfter: frame &+ 1) - 1
        guard index >= 0 else { return nil }
        let entry = entries[index]
        if scratch.count != entry.size { scratch = [UInt8](repeating: 0, count: entry.size) }
        let length = scratch.withUnsafeMutableBytes { out in
            entry.compressed.withUnsafeBytes {
                ZSTD_decompressDCtx(decompressor, out.baseAddress, entry.size, $0.baseAddress, $0.count)
            }
        }
        // We compressed it: a state that does not decompress is a bug, not bad input.
        precondition(ZSTD_isError(length) == 0 && length == entry.size, "Greenzone: a state does not decompress")
        return scratch.withUnsafeBytes { body(entry, $0) }
    }

    /// Keeps the spacing around `current`: every state near it, fewer further away.
    public func thin(around current: Int) {
        let before = entries.count
        entries.removeAll { !keeps($0.frame, around: current) }
        if entries.count != before { memoryUsed = entries.reduce(0) { $0 + $1.compressed.count } }
    }

    /// Whether the spacing around `current` keeps a state of `frame`.
    public func keeps(_ frame: Int, around current: Int) -> Bool {
        let distance = frame > current ? frame &- current : current &- frame
        if frame == 0 || distance <= settings.nearFrames { return true }
        if distance <= settings.midFrames { return frame % max(1, settings.midStep) == 0 }
        return frame % farStep == 0
    }

    /// Over the limit: thin the far states (doubling their spacing), then drop the oldest.
    private func enforceLimit() {
        let current = entries.last?.frame ?? 0
        while memoryUsed > settings.memoryLimit && farStep < (1 << 20) {
            farStep *= 2
            thin(around: current)
        }
        while memoryUsed > settings.memoryLimit && entries.count > 1 {
            let index = entries[0].frame == 0 && entries.count > 1 ? 1 : 0
            memoryUsed -= entries[index].compressed.count
            entries.remove(at: index)
        }
    }

    private func firstIndex(atOrAfter frame: Int) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].frame < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func deflate(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        if compressed.count < bound { compressed = [UInt8](repeating: 0, count: bound) }
        let length = compressed.withUnsafeMutableBytes {
            ZSTD_compressCCtx(compressor, $0.baseAddress, bound, input.baseAddress, input.count, -3)
        }
        precondition(ZSTD_isError(length) == 0, "Greenzone: zstd compression failed")  // Only on out-of-memory.
        return Array(compressed[0..<length])  // exactly its size
    }
}
