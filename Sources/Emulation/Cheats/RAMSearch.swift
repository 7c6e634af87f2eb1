import Foundation

/// RAM search (a cheat finder): snapshot one domain or several, then narrow the candidate addresses
/// by comparing the memory now against a value or against the previous snapshot, as often as needed.
public final class RAMSearch {
    public enum Comparison: String, CaseIterable {
        case equal, notEqual = "not_equal", less, greater, lessEqual = "less_equal", greaterEqual = "greater_equal"
        case changed, unchanged, increased, decreased
        case increasedBy = "increased_by", decreasedBy = "decreased_by"

        /// Compares with a given value rather than with the previous snapshot.
        public var needsValue: Bool {
            switch self {
            case .equal, .notEqual, .less, .greater, .lessEqual, .greaterEqual, .increasedBy, .decreasedBy: true
            default: false
            }
        }

        /// Whether `current` passes, against `operand` or against `before` (the value at the last look); `wrap`
        /// masks the amount of `increased_by`/`decreased_by` (-1: signed, no wrap). The one rule for the RAM
        /// search and for a control step's stop conditions.
        public func holds(_ current: Int64, before: Int64, operand: Int64, wrap: Int64 = -1) -> Bool {
            switch self {
            case .equal: current == operand
            case .notEqual: current != operand
            case .less: current < operand
            case .greater: current > operand
            case .lessEqual: current <= operand
            case .greaterEqual: current >= operand
            case .changed: current != before
            case .unchanged: current == before
            case .increased: current > before
            case .decreased: current < before
            case .increasedBy: (current &- before) & wrap == operand
            case .decreasedBy: (before &- current) & wrap == operand
            }
        }
    }

    /// One value still in the running: which of the searched domains, where in it, and for values
    /// under 8 bits, which bits of the byte (from bit `shift`).
    public struct Candidate: Equatable {
        let domain: Int
        let address: Int
        var shift = 0
    }

    let domains: [MemoryAccess.Domain]
    let domainNames: [String]
    /// 1, 2 or 4 bytes per value (1 for values under 8 bits).
    let width: Int
    /// 1, 2, 4, 8, 16 or 32.
    let bits: Int
    let bigEndian: Bool
    /// Values compare as two's complement numbers of `bits` bits (0xFF is -1 in an 8-bit search).
    let signed: Bool
    /// Memory at the last snapshot (start or search), per domain.
    private var previous: [[UInt8]]
    /// In domain order, addresses ascending.
    public private(set) var candidates: [Candidate]

    public init?(memory: MemoryAccess, domains: [MemoryAccess.Domain], bits: Int, bigEndian: Bool, signed: Bool = false)
    {
        self.domains = domains
        self.signed = signed
        domainNames = domains.map(memory.name)
        self.bits = bits
        width = max(1, bits / 8)
        self.bigEndian = bigEndian
        var snapshots: [[UInt8]] = []
        for domain in domains {
            guard let bytes = RAMSearch.snapshot(memory, domain) else { return nil }
            snapshots.append(bytes)
        }
        previous = snapshots
        let shifts = bits < 8 ? Array(stride(from: 0, to: 8, by: bits)) : [0]
        let width = max(1, bits / 8)
        candidates = snapshots.enumerated().flatMap { index, bytes in
            stride(from: 0, through: bytes.count - width, by: 1).flatMap { address in
                shifts.map { Candidate(domain: index, address: address, shift: $0) }
            }
        }
    }

    /// The domain's bytes (the bus: every mapped byte up to its size; unmapped bytes read 0).
    static func snapshot(_ memory: MemoryAccess, _ domain: MemoryAccess.Domain) -> [UInt8]? {
        if let base = domain.base { return Array(UnsafeRawBufferPointer(start: base, count: domain.size)) }
        guard domain.size <= 64 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: domain.size)
        for address in 0..<domain.size {
            if let pointer = memory.resolve(domain, address: address, width: 1) {
                bytes[address] = pointer.load(as: UInt8.self)
            }
        }
        return bytes
    }

    /// For values under 8 bits: the bits of the byte the candidate covers (RetroArch's address mask).
    func mask(_ candidate: Candidate) -> UInt8 { bits < 8 ? UInt8((1 << bits) - 1) << UInt8(candidate.shift) : 0xFF }

    func value(in bytes: [UInt8], at candidate: Candidate) -> UInt32 {
        if bits < 8 { return UInt32(bytes[candidate.address] >> UInt8(candidate.shift)) & UInt32((1 << bits) - 1) }
        let address = candidate.address
        var value: UInt32 = 0
        for index in 0..<width {
            let byte = UInt32(bytes[address + index])
            value |= bigEndian ? byte << UInt32(8 * (width - 1 - index)) : byte << UInt32(8 * index)
        }
        return value
    }

    private func snapshots(_ memory: MemoryAccess) -> [[UInt8]]? {
        var all: [[UInt8]] = []
        for domain in domains {
            guard let bytes = RAMSearch.snapshot(memory, domain) else { return nil }
            all.append(bytes)
        }
        return all
    }

    /// A value as the search compares it: sign-extended from `bits` bits in a signed search.
    func number(_ value: UInt32) -> Int64 {
        guard signed, bits > 0, bits <= 32 else { return Int64(value) }
        let sign = UInt32(1) << UInt32(bits - 1)
        return value & sign != 0 ? Int64(value) - (Int64(1) << Int64(bits)) : Int64(value)
    }

    /// Keeps the candidates that pass; returns how many remain. The snapshot becomes the memory now.
    /// `operand` is the script's number as given (negative ones for signed searches).
    public func filter(_ comparison: Comparison, _ operand: Int, memory: MemoryAccess) -> Int {
        guard let now = snapshots(memory) else { return candidates.count }
        // Signed values compare sign-extended; unsigned amounts wrap at the value's size (an 8-bit 3 → 254
        // decreased by 5).
        let operand = signed ? Int64(operand) : Int64(UInt32(truncatingIfNeeded: operand))
        let wrap: Int64 = signed ? -1 : Int64(bits >= 32 ? UInt32.max : (1 << UInt32(bits)) - 1)
        candidates.removeAll { candidate in
            let current = number(value(in: now[candidate.domain], at: candidate))
            let before = number(value(in: previous[candidate.domain], at: candidate))
            return !comparison.holds(current, before: before, operand: operand, wrap: wrap)
        }
        previous = now
        return candidates.count
    }

    /// Drops the first candidate (tests narrowing a search by hand).
    func dropFirstCandidate() { if !candidates.isEmpty { candidates.removeFirst() } }

    /// The first `limit` candidates with their domain and their value now and at the last snapshot.
    public func results(
        limit: Int, memory: MemoryAccess
    ) -> [(domain: String, address: Int, mask: UInt8, value: UInt32, previous: UInt32)] {
        guard let now = snapshots(memory) else { return [] }
        return candidates.prefix(limit).map {
            (
                domainNames[$0.domain], $0.address, mask($0), value(in: now[$0.domain], at: $0),
                value(in: previous[$0.domain], at: $0)
            )
        }
    }
}
