import Libretro
import Support

/// Reads that a bus cannot give as one pointer (across blocks or mirrors), and hashes over domains.
extension MemoryAccess {
    /// Reads beyond this are refused (a script's typo must not allocate gigabytes).
    public static let maxRead = 1 << 28

    /// The bytes at `address..<address + count` (on a bus, gathered from every block they fall in).
    public func read(_ domain: Domain, address: Int, count: Int) throws(Refusal) -> [UInt8] {
        guard count >= 0, count <= Self.maxRead else {
            throw Refusal(.outOfRange, "cannot read \(count) bytes (at most \(Self.maxRead))")
        }
        if count == 0 { return [] }
        if let pointer = resolve(domain, address: address, width: count) {
            return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
        }
        guard domain.isBus, address >= 0, count <= domain.size, address <= domain.size - count else {
            throw outside(domain, address, count)
        }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        guard let table = buses[domain.index] else { throw outside(domain, address, count) }
        while done < count {
            guard let (pointer, run) = table.run(at: address &+ done, limit: count - done) else {
                throw outside(domain, address &+ done, 1)
            }
            out.withUnsafeMutableBytes { ($0.baseAddress! + done).copyMemory(from: pointer, byteCount: run) }
            done += run
        }
        return out
    }

    /// Each byte's host pointer (writes: writable blocks only), or a refusal naming the first that fails.
    func busBytes(_ domain: Domain, address: Int, count: Int, write: Bool) throws(Refusal) -> [UnsafeMutableRawPointer]
    {
        guard let table = buses[domain.index], address >= 0, count <= domain.size, address <= domain.size - count else {
            throw outside(domain, address, count)
        }
        var pointers: [UnsafeMutableRawPointer] = []
        pointers.reserveCapacity(count)
        for index in 0..<count {
            guard let (pointer, writable) = table.locate(address + index) else {
                throw outside(domain, address + index, 1)
            }
            if write && !writable { throw unwritable(domain, address + index, 1) }
            pointers.append(pointer)
        }
        return pointers
    }

    func unwritable(_ domain: Domain, _ address: Int, _ width: Int) -> Refusal {
        guard address >= 0, let table = buses[domain.index] else { return outside(domain, address, width) }
        for index in 0..<max(1, width) {
            guard let (_, writable) = table.locate(address &+ index) else {
                return outside(domain, address &+ index, 1)
            }
            if !writable {
                return Refusal(
                    .outOfRange, "address \(Self.hex(address &+ index)) in '\(name(domain))' is read-only (ROM)")
            }
        }
        return outside(domain, address, width)
    }

    /// SHA-1 (hex) of a domain, or of `length` bytes from `address`. On a bus: with no range, each block
    /// it maps once, in the memory map's order (mirrors are not hashed twice); with a range, the mapped
    /// bytes of the range in address order (unmapped addresses are skipped; a range with none is refused).
    public func sha1(_ domain: Domain, address: Int?, length: Int?) throws(Refusal) -> String {
        if let length, length <= 0 { throw Refusal(.outOfRange, "length must be positive") }
        guard domain.isBus, let table = buses[domain.index] else {
            let start = address ?? 0
            let count = length ?? max(1, domain.size &- start)
            let pointer = try pointer(domain, address: start, width: count)
            return Hashing.sha1(UnsafeRawBufferPointer(start: pointer, count: count))
        }
        let hasher = Hashing.SHA1()
        guard address != nil || length != nil else {
            var seen = Set<UnsafeMutableRawPointer>()
            for entry in table.map.entries {
                guard let base = entry.base, seen.insert(base).inserted else { continue }
                hasher.update(UnsafeRawBufferPointer(start: base, count: Int(entry.reach)))
            }
            return hasher.finish()
        }
        let start = address ?? 0
        let count = length ?? max(1, domain.size &- start)
        guard start >= 0, count <= domain.size, start <= domain.size - count else {
            throw outside(domain, start, count)
        }
        var offset = 0, mapped = 0
        while offset < count {
            if let (pointer, run) = table.run(at: start + offset, limit: count - offset) {
                hasher.update(UnsafeRawBufferPointer(start: pointer, count: run))
                offset += run
                mapped += run
            } else if table.kinds[(start &+ offset) >> table.pageShift] == BusTable.unmapped {
                offset += (1 << table.pageShift) - ((start + offset) & ((1 << table.pageShift) - 1))
            } else {
                offset += 1
            }
        }
        guard mapped > 0 else { throw outside(domain, start, count) }
        return hasher.finish()
    }
}
