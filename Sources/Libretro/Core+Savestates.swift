/// Savestates: making them, restoring them (with a rollback for refused ones), and their size.
extension Core {
    /// The core's savestate, or an error when it cannot make one now.
    public func serialize() throws(RetroError) -> [UInt8] {
        let size = try stateSize()
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { symbols.serialize($0.baseAddress, size) }
        guard ok else { throw .stateRejected(reason: "\(systemInfo.libraryName) could not serialize its state now") }
        return bytes
    }

    /// Restores a savestate made by `serialize`.
    ///
    /// With `protecting` (for states from disk or scripts' bytes) a refused state cannot leave the core
    /// half-loaded: the current state is kept and put back when the core says no. States this process
    /// made itself can skip that cost.
    public func unserialize(_ bytes: [UInt8], protecting: Bool = true) throws(RetroError) {
        do {
            try bytes.withUnsafeBytes { try unserialize($0, protecting: protecting) }
        } catch let error as RetroError {
            throw error
        } catch {
            fatalError("unreachable: \(error)")
        }
    }

    public func unserialize(_ bytes: UnsafeRawBufferPointer, protecting: Bool = true) throws(RetroError) {
        guard !bytes.isEmpty else { throw .stateRejected(reason: "the state is empty") }
        let expected = serializeSize
        // Sizes may differ legitimately (nestopia's state before the first frame is smaller than after
        // it, without declaring a variable size), so the core judges; a refusal is rolled back.
        let sizeDiffers = bytes.count != expected
        let backup = protecting || sizeDiffers ? rollbackCopy(size: expected) : nil
        // Measuring costs nestopia a whole serialize: keep the cached size unless this state's differs.
        if sizeDiffers { cachedSerializeSize = nil }
        guard symbols.unserialize(bytes.baseAddress, bytes.count) else {
            if let backup { _ = symbols.unserialize(backup.baseAddress, backup.count) }
            let sizes =
                sizeDiffers
                ? "; its states for this game are \(expected) bytes: made by another core or game, or truncated?"
                : "; corrupt?"
            throw .stateRejected(reason: "\(systemInfo.libraryName) refused the state (\(bytes.count) bytes\(sizes))")
        }
    }

    /// The current state in `rollback` (kept between loads: a fresh megabyte costs more in page faults
    /// than the serialize itself), or nil when the core cannot save now.
    private func rollbackCopy(size: Int) -> UnsafeRawBufferPointer? {
        guard size > 0 else { return nil }
        if rollback.count < size {
            rollback.deallocate()
            rollback = .allocate(byteCount: size, alignment: 16)
        }
        let target = UnsafeMutableRawBufferPointer(rebasing: rollback[0..<size])
        guard symbols.serialize(target.baseAddress, size) else { return nil }
        return UnsafeRawBufferPointer(target)
    }

    /// The size `serialize` needs now. Some cores serialize just to measure, so the answer is
    /// cached until the next frame or reset (or load, for cores whose state size varies).
    /// 0 when the core has no state now or reports an implausible size (see `stateSize`).
    public var serializeSize: Int {
        let size = reportedSerializeSize
        return size > 0 && size <= Core.maxStateSize ? size : 0
    }

    /// The size `serialize` needs now, or why there is none: a size beyond `maxStateSize` (or one
    /// that wrapped negative) is a core's lie, refused before any memory is set aside for it.
    public func stateSize() throws(RetroError) -> Int {
        let size = reportedSerializeSize
        guard size != 0 else { throw .stateUnsupported(core: systemInfo.libraryName) }
        guard size > 0, size <= Core.maxStateSize else {
            throw .implausibleSize(core: systemInfo.libraryName, what: "savestate", size: UInt(bitPattern: size))
        }
        return size
    }

    /// 512 MiB: more than any console's state (N64 with expansion pak, Saturn: tens of MiB).
    public static let maxStateSize = 512 << 20

    private var reportedSerializeSize: Int {
        if let cachedSerializeSize { return cachedSerializeSize }
        let size = symbols.serializeSize()
        cachedSerializeSize = size
        return size
    }

    /// Serializes straight into caller-owned memory of at least `serializeSize` bytes.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RetroError) {
        guard buffer.count > 0 else { throw .stateRejected(reason: "\(systemInfo.libraryName) has no state now") }
        // Zeroed first: cores that skip reserved fields (mGBA) would otherwise leave whatever the memory held
        // (old sound, other states), and two saves of one state would hash differently.
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        guard symbols.serialize(buffer.baseAddress, buffer.count) else {
            throw .stateRejected(reason: "\(systemInfo.libraryName) could not serialize its state now")
        }
    }
}
