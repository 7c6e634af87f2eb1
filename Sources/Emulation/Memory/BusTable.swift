import Libretro

/// A memory map turned into a page table, so a bus read costs one lookup: each page whose bytes all
/// go to one block in order holds that block's host pointer; pages the descriptors split finely (a
/// 127-byte HRAM, 8-byte register mirrors) are marked and resolved through the map byte by byte, as are
/// an assembled map's blocks of host-order words (`AssembledMaps.hostOrderWords`: byte `n` at `n ^ 1`).
final class BusTable {
    let map: MemoryMap
    /// Per entry: whether its bytes are swapped in pairs (assembled maps only).
    let swapped: [Bool]
    let pageShift: Int
    let pageCount: Int
    /// The host address of each page's first byte (nil: not one linear block).
    let bases: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Per page: 0 unmapped, 1 read-only, 2 writable, 3 resolved through the map.
    let kinds: UnsafeMutablePointer<UInt8>

    static let unmapped: UInt8 = 0, readOnly: UInt8 = 1, writable: UInt8 = 2, irregular: UInt8 = 3

    init(_ map: MemoryMap) {
        self.map = map
        swapped = map.entries.map { entry in
            map.source == .assembled && entry.flags & AssembledMaps.hostOrderWords != 0
        }
        let width = UInt(bitPattern: map.size &- 1).bitWidth - UInt(bitPattern: map.size &- 1).leadingZeroBitCount
        // At most 2^16 pages, at least 256 bytes each.
        pageShift = max(8, width - 16)
        pageCount = max(1, Int((UInt(bitPattern: map.size &- 1) >> UInt(pageShift)) &+ 1))
        bases = .allocate(capacity: pageCount)
        kinds = .allocate(capacity: pageCount)
        let pageSize = UInt(1) << UInt(pageShift), mask = pageSize - 1
        let regular = map.entries.enumerated().map { index, entry in
            !swapped[index] && entry.start & mask == 0 && entry.disconnect & mask == 0 && entry.length & mask == 0
                && (entry.exactlyOnce || entry.select & mask == 0)
        }
        for page in 0..<pageCount {
            let first = UInt(page) << UInt(pageShift)
            var base: UnsafeMutableRawPointer?
            var kind = Self.unmapped
            for (index, entry) in map.entries.enumerated() {
                if regular[index] {
                    guard entry.claims(first) else { continue }
                    if let block = entry.base {
                        base = block + Int(entry.offset(first))
                        kind = entry.writable ? Self.writable : Self.readOnly
                    }
                    break
                }
                if Self.mayClaim(entry, first, mask) {
                    kind = Self.irregular
                    break
                }
            }
            bases[page] = base
            kinds[page] = kind
        }
    }

    deinit {
        bases.deallocate()
        kinds.deallocate()
    }

    /// Whether an irregular entry could claim any byte of the page at `first`.
    private static func mayClaim(_ entry: MemoryMap.Entry, _ first: UInt, _ mask: UInt) -> Bool {
        if entry.exactlyOnce {
            // Claimed addresses lie in start...start + free.
            return first | mask >= entry.start && first <= entry.start &+ entry.free
        }
        // The selected bits above the page must equal start's.
        return (first ^ entry.start) & entry.select & ~mask == 0
    }

    /// The host pointer of one byte through the map (irregular pages), and whether it is writable.
    func locate(_ address: Int) -> (pointer: UnsafeMutableRawPointer, writable: Bool)? {
        guard let (index, offset) = map.locate(address), let base = map.entries[index].base else { return nil }
        guard swapped[index] else { return (base + offset, map.entries[index].writable) }
        let partner = offset ^ 1
        guard partner < Int(map.entries[index].reach) else { return nil }
        return (base + partner, map.entries[index].writable)
    }

    /// The host pointer of `width` contiguous bytes at `address`, when they are one run of one block.
    func resolve(_ address: Int, width: Int, write: Bool) -> UnsafeMutableRawPointer? {
        guard let (first, firstWritable) = locate(address), !write || firstWritable else { return nil }
        for index in 1..<max(1, width) {
            guard let (next, writable) = locate(address &+ index), next == first + index, !write || writable else {
                return nil
            }
        }
        return first
    }

    /// How many bytes from `address` (at most `limit`) follow each other in one host block, with their pointer.
    func run(at address: Int, limit: Int) -> (pointer: UnsafeMutableRawPointer, count: Int)? {
        guard address >= 0, address < map.size, limit > 0 else { return nil }
        let page = address >> pageShift
        let pageSize = 1 << pageShift
        if let base = bases[page] {
            let inPage = address & (pageSize - 1)
            return (base + inPage, min(limit, pageSize - inPage))
        }
        guard kinds[page] == Self.irregular, let (pointer, _) = locate(address) else { return nil }
        return (pointer, 1)
    }
}
