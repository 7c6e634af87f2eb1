import Libretro

extension MemoryAccess {
    /// Copies the `count` bytes at `address` to `destination`: straight from one block, or on a bus
    /// across blocks or mirrors gathered as `read` gathers them (refused where unmapped or outside).
    public func copy(
        _ domain: Domain, address: Int, count: Int, into destination: UnsafeMutableRawPointer
    ) throws(Refusal) {
        if let pointer = resolve(domain, address: address, width: count) {
            destination.copyMemory(from: pointer, byteCount: count)
            return
        }
        let bytes = try read(domain, address: address, count: count)
        bytes.withUnsafeBytes {
            if let base = $0.baseAddress { destination.copyMemory(from: base, byteCount: $0.count) }
        }
    }
}
