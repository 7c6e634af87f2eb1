import Foundation
import Libretro

/// One cheat as RetroArch models it: a code the core applies (Game Genie, Pro Action Replay, …) or a
/// RAM cheat the frontend applies after every frame.
public struct Cheat: Sendable {
    public var id: Int
    public var description: String
    public var enabled: Bool
    public var kind: Kind
    /// `.cht` keys Retrolua does not use (rumble settings), kept so a saved file says what it said.
    public var extras: [(key: String, value: String)] = []

    public enum Kind: Sendable {
        case code(String)
        case ram(RAMCheat)
    }
}

/// A frontend-applied memory cheat with RetroArch's semantics (`cheat_type`, sizes, masks, repeats).
public struct RAMCheat: Sendable, Equatable {
    public enum Operation: Int, Sendable, CaseIterable {
        case set = 1, increase, decrease, ifEqual, ifNotEqual, ifLess, ifGreater

        /// Lua names, in RetroArch's `cheat_type` order from 1.
        public static let names = ["set", "increase", "decrease", "if_equal", "if_not_equal", "if_less", "if_greater"]
        public var name: String { Operation.names[rawValue - 1] }
        public static func named(_ name: String) -> Operation? {
            names.firstIndex(of: name).map { Operation(rawValue: $0 + 1)! }
        }

        var isCondition: Bool { rawValue >= Operation.ifEqual.rawValue }
    }

    /// Sizes RetroArch's `memory_search_size` 0…5 stands for.
    public static let sizes = [1, 2, 4, 8, 16, 32]

    public var address: Int
    public var value: UInt32
    public var operation: Operation = .set
    /// 1, 2, 4, 8, 16 or 32 bits.
    public var bits = 8
    /// For 1, 2 and 4 bits: which bits of the byte (RetroArch's `address_bit_position`).
    public var mask: UInt8 = 0xFF
    public var bigEndian = false
    public var repeatCount = 1
    public var repeatValueStep: UInt32 = 0
    public var repeatAddressStep = 1
    /// Memory domain name (nil: the default domain, as `memory.read_u8` uses).
    public var domain: String?

    public init(address: Int, value: UInt32) {
        self.address = address
        self.value = value
    }

    var bytes: Int { max(1, bits / 8) }
    var widthMask: UInt32 { bits >= 32 ? .max : (UInt32(1) << UInt32(bits)) - 1 }
}

/// The cheats of a session: codes handed to the core, RAM cheats applied after each frame.
public final class CheatList {
    public private(set) var cheats: [Cheat] = []
    private var nextID = 1
    /// RAM cheats only, resolved once per change: the per-frame loop touches nothing else.
    private var ramCheats: [RAMCheat] = []
    private let core: Core
    private let memory: MemoryAccess

    init(core: Core, memory: MemoryAccess) {
        self.core = core
        self.memory = memory
    }

    var isEmpty: Bool { cheats.isEmpty }

    @discardableResult
    func add(
        _ description: String, _ kind: Cheat.Kind, enabled: Bool = true, extras: [(key: String, value: String)] = []
    ) -> Int {
        let id = nextID
        nextID += 1
        cheats.append(Cheat(id: id, description: description, enabled: enabled, kind: kind, extras: extras))
        changed(codes: { if case .code = kind { return true } else { return false } }())
        return id
    }

    func setEnabled(_ id: Int, _ on: Bool) -> Bool {
        guard let index = cheats.firstIndex(where: { $0.id == id }) else { return false }
        cheats[index].enabled = on
        changed(codes: cheats[index].isCode)
        return true
    }

    func remove(_ id: Int) -> Bool {
        guard let index = cheats.firstIndex(where: { $0.id == id }) else { return false }
        let wasCode = cheats[index].isCode
        cheats.remove(at: index)
        changed(codes: wasCode)
        return true
    }

    func removeAll() {
        let hadCodes = cheats.contains { $0.isCode }
        cheats.removeAll()
        changed(codes: hadCodes)
    }

    /// Hands the enabled codes to the core again (it only knows the whole list).
    private func changed(codes: Bool) {
        ramCheats = cheats.compactMap { cheat in
            guard cheat.enabled, case .ram(let ram) = cheat.kind else { return nil }
            return ram
        }
        guard codes else { return }
        core.resetCheats()
        var index: UInt32 = 0
        for cheat in cheats {
            guard case .code(let code) = cheat.kind else { continue }
            if cheat.enabled { core.setCheat(index: index, code: code) }
            index += 1
        }
    }

    /// Applies the enabled RAM cheats in order. As in RetroArch, a condition that fails skips the
    /// next enabled RAM cheat.
    @inline(__always)
    func apply() {
        guard !ramCheats.isEmpty else { return }
        var runNext = true
        for cheat in ramCheats {
            if !runNext {
                runNext = true
                continue
            }
            guard let domain = try? memory.domain(named: cheat.domain),
                let first = memory.resolve(domain, address: cheat.address, width: cheat.bytes)
            else { continue }
            let current = Self.read(first, cheat)
            var newValue: UInt32
            switch cheat.operation {
            case .set: newValue = cheat.value
            case .increase: newValue = current &+ cheat.value
            case .decrease: newValue = current &- cheat.value
            case .ifEqual: runNext = current == cheat.value; continue
            case .ifNotEqual: runNext = current != cheat.value; continue
            // RetroArch's "less"/"greater" compare the cheat's value against memory: less runs the
            // next cheat when value < memory.
            case .ifLess: runNext = cheat.value < current; continue
            case .ifGreater: runNext = cheat.value > current; continue
            }
            var address = cheat.address
            var bitMask = cheat.mask
            for _ in 0..<max(1, cheat.repeatCount) {
                if let pointer = memory.resolve(domain, address: address, width: cheat.bytes) {
                    Self.write(
                        cheat.bits < 8 ? newValue : newValue & cheat.widthMask, to: pointer, cheat, bitMask: bitMask)
                }
                newValue = newValue &+ cheat.repeatValueStep
                if cheat.bits < 8 {
                    // Sub-byte cheats step through the byte's bit groups, then to the next byte; from the
                    // first group, a byte's worth of steps is one byte on (so large steps cost nothing).
                    let groups = 8 / cheat.bits, first = UInt8(cheat.widthMask)
                    var steps = cheat.repeatAddressStep
                    while steps > 0 {
                        if bitMask == first && steps >= groups {
                            address = address &+ steps / groups
                            steps %= groups
                            continue
                        }
                        bitMask = UInt8(truncatingIfNeeded: UInt16(bitMask) << UInt16(cheat.bits))
                        if bitMask == 0 {
                            bitMask = first
                            address &+= 1
                        }
                        steps -= 1
                    }
                } else {
                    address = address &+ cheat.repeatAddressStep &* cheat.bytes
                }
            }
        }
    }

    /// The value a cheat compares: 1, 2 or 4 bytes (sub-byte cheats read the whole byte, as RetroArch).
    static func read(_ pointer: UnsafeMutableRawPointer, _ cheat: RAMCheat) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<cheat.bytes {
            let byte = UInt32(pointer.load(fromByteOffset: index, as: UInt8.self))
            value |= cheat.bigEndian ? byte << UInt32(8 * (cheat.bytes - 1 - index)) : byte << UInt32(8 * index)
        }
        return value
    }

    /// Sub-byte cheats replace only the bits of `bitMask`, taking the value's bits at those positions.
    static func write(_ value: UInt32, to pointer: UnsafeMutableRawPointer, _ cheat: RAMCheat, bitMask: UInt8) {
        if cheat.bits < 8 {
            let old = pointer.load(as: UInt8.self)
            pointer.storeBytes(of: (old & ~bitMask) | (UInt8(truncatingIfNeeded: value) & bitMask), as: UInt8.self)
            return
        }
        for index in 0..<cheat.bytes {
            let shift = cheat.bigEndian ? 8 * (cheat.bytes - 1 - index) : 8 * index
            pointer.storeBytes(
                of: UInt8(truncatingIfNeeded: value >> UInt32(shift)), toByteOffset: index, as: UInt8.self)
        }
    }
}

extension Cheat {
    var isCode: Bool { if case .code = kind { true } else { false } }
}

/// The limits every cheat is held to, from a script, a request or a `.cht` file.
extension Cheat.Kind {
    /// Cores copy a code into fixed buffers (nestopia's `retro_cheat_set` holds 255 bytes).
    public static let maxCodeLength = 255
    /// Repeats and steps large enough for any real cheat; more would stall every frame.
    public static let maxRepeatCount = 65536
    public static let maxAddressStep = 1 << 24
    public static let maxAddress = 1 << 48

    /// Why the cheat cannot be used (nil: it can).
    public var problem: String? {
        switch self {
        case .code(let code):
            guard code.utf8.count <= Self.maxCodeLength else {
                return "cheat code is \(code.utf8.count) bytes long (at most \(Self.maxCodeLength))"
            }
            guard !code.utf8.contains(0) else { return "cheat code contains a NUL byte" }
            return nil
        case .ram(let ram):
            guard (0...Self.maxAddress).contains(ram.address) else {
                return "cheat address \(ram.address) is out of range (0…\(Self.maxAddress))"
            }
            guard (1...Self.maxRepeatCount).contains(ram.repeatCount) else {
                return "repeat count \(ram.repeatCount) is out of range (1…\(Self.maxRepeatCount))"
            }
            guard (0...Self.maxAddressStep).contains(ram.repeatAddressStep) else {
                return "repeat address step \(ram.repeatAddressStep) is out of range (0…\(Self.maxAddressStep))"
            }
            return nil
        }
    }
}
