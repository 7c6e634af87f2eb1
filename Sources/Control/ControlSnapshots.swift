import Emulation
import Foundation

/// The binary door's snapshots: states kept in the emulator's own memory, one connection's, named
/// by number. The peer never touches their bytes, so restoring one is a trusted load (no rollback
/// copy, no content check) and neither direction copies a state through shared memory: an episode
/// reset costs the core's unserialize and a round trip. Bounded in count and bytes across all
/// connections together (one `Pool`: more connections never hold more); freed with the connection.
final class ControlSnapshots {
    /// What every connection's snapshots hold together, against one cap.
    final class Pool: @unchecked Sendable {
        let maxCount: Int
        let maxBytes: Int
        private let lock = NSLock()
        private(set) var count = 0
        private(set) var bytes = 0

        init(maxCount: Int, maxBytes: Int) {
            self.maxCount = maxCount
            self.maxBytes = maxBytes
        }

        /// Takes `count` more snapshots and `bytes` more bytes (either may be negative: given back); false
        /// (nothing taken) when growing would pass a cap.
        func take(count more: Int, bytes grown: Int) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if more > 0 && count > maxCount - more { return false }
            if grown > 0 && bytes > maxBytes - grown { return false }
            count += more
            bytes += grown
            return true
        }
    }

    /// The process's pool: every connection of every door draws on it.
    static let shared = Pool(maxCount: 4096, maxBytes: 4 << 30)

    private let pool: Pool
    private var kept: [UInt64: UnsafeMutableRawBufferPointer] = [:]
    private var nextID: UInt64 = 1

    init(pool: Pool = ControlSnapshots.shared) { self.pool = pool }

    /// Whether this connection draws on the process's pool (what every door does).
    var poolIsShared: Bool { pool === Self.shared }

    deinit {
        for buffer in kept.values {
            _ = pool.take(count: -1, bytes: -buffer.count)
            buffer.deallocate()
        }
    }

    /// Saves the current state as snapshot `id` (0: a new one; else it replaces that one, reusing its
    /// memory when the state fits); the snapshot's id and length.
    func save(_ emulator: Emulator, into id: UInt64) throws -> (id: UInt64, length: Int) {
        let layout = try emulator.stateLayout()
        var target = id
        if id == 0 {
            target = nextID
        } else if kept[id] == nil {
            throw ControlError("binary snapshot: no snapshot \(id)")
        }
        var buffer = kept[target] ?? UnsafeMutableRawBufferPointer(start: nil, count: 0)
        if id == 0 || buffer.count != layout.length {
            guard pool.take(count: id == 0 ? 1 : 0, bytes: layout.length - buffer.count) else {
                throw ControlError(
                    """
                    binary snapshot: the snapshots of all connections together would pass the cap of \
                    \(pool.maxCount) snapshots or \(pool.maxBytes >> 20) MiB (now \(pool.count) snapshots, \
                    \(pool.bytes >> 20) MiB; this connection holds \(kept.count)); forget some first
                    """)
            }
            buffer.deallocate()
            buffer = .allocate(byteCount: layout.length, alignment: 16)
            kept[target] = buffer
        }
        do {
            try emulator.writeState(layout, into: buffer.baseAddress!)
        } catch {
            if id == 0 { forget(target) }  // a new one that failed is not kept half-written
            throw error
        }
        if id == 0 { nextID &+= 1 }
        return (target, layout.length)
    }

    /// Copies snapshot `id`'s bytes to `target` (it has room: the caller checked the length).
    func copy(_ id: UInt64, into target: UnsafeMutableRawPointer) {
        guard let buffer = kept[id], let base = buffer.baseAddress else { return }
        target.copyMemory(from: base, byteCount: buffer.count)
    }

    /// Loads snapshot `id`.
    func restore(_ emulator: Emulator, _ id: UInt64) throws {
        guard let buffer = kept[id] else { throw ControlError("binary restore: no snapshot \(id)") }
        try emulator.loadState(UnsafeRawBufferPointer(buffer), trusted: true)
    }

    /// Frees snapshot `id` (true when there was one).
    @discardableResult
    func forget(_ id: UInt64) -> Bool {
        guard let buffer = kept.removeValue(forKey: id) else { return false }
        _ = pool.take(count: -1, bytes: -buffer.count)
        buffer.deallocate()
        return true
    }
}
