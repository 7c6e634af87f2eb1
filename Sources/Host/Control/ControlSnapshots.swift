import Emulation

/// The binary door's snapshots: states kept in the emulator's own memory, one connection's, named
/// by number. The peer never touches their bytes, so restoring one is a trusted load (no rollback
/// copy, no content check) and neither direction copies a state through shared memory: an episode
/// reset costs the core's unserialize and a round trip. Bounded in count and bytes; freed with the
/// connection.
final class ControlSnapshots {
    static let maxCount = 4096
    static let maxBytes = 4 << 30
    private var kept: [UInt64: UnsafeMutableRawBufferPointer] = [:]
    private var nextID: UInt64 = 1
    private var bytes = 0

    deinit { for buffer in kept.values { buffer.deallocate() } }

    /// Saves the current state as snapshot `id` (0: a new one; else it replaces that one, reusing its
    /// memory when the state fits); the snapshot's id and length.
    func save(_ emulator: Emulator, into id: UInt64) throws -> (id: UInt64, length: Int) {
        let layout = try emulator.stateLayout()
        var target = id
        if id == 0 {
            guard kept.count < Self.maxCount else {
                throw ControlError("binary snapshot: \(kept.count) snapshots are kept; forget some first")
            }
            target = nextID
        } else if kept[id] == nil {
            throw ControlError("binary snapshot: no snapshot \(id)")
        }
        var buffer = kept[target] ?? UnsafeMutableRawBufferPointer(start: nil, count: 0)
        if buffer.count != layout.length {
            let others = bytes - buffer.count
            guard others <= Self.maxBytes - layout.length else {
                throw ControlError(
                    "binary snapshot: snapshots would hold more than \(Self.maxBytes >> 20) MiB; forget some first")
            }
            buffer.deallocate()
            buffer = .allocate(byteCount: layout.length, alignment: 16)
            bytes = others + layout.length
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
        bytes -= buffer.count
        buffer.deallocate()
        return true
    }
}
