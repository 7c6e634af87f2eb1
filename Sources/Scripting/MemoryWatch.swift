import Emulation
import CLua
import Glibc
import Libretro

/// A native watch on a few bytes of memory, compared once per frame; Lua is entered only on a change.
struct MemoryWatch {
    let id: Int
    let reference: Int32
    let pointer: UnsafeMutableRawPointer
    let size: Int
    let bigEndian: Bool
    private var last: [UInt8]

    init(id: Int, reference: Int32, pointer: UnsafeMutableRawPointer, size: Int, bigEndian: Bool) {
        self.id = id
        self.reference = reference
        self.pointer = pointer
        self.size = size
        self.bigEndian = bigEndian
        last = Array(UnsafeRawBufferPointer(start: pointer, count: size))
    }

    enum Value {
        case integer(Int)
        case bytes([UInt8])

        func push(_ L: OpaquePointer) {
            switch self {
            case .integer(let value): lua_pushinteger(L, lua_Integer(value))
            case .bytes(let bytes):
                _ = bytes.withUnsafeBytes {
                    lua_pushlstring(L, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
                }
            }
        }
    }

    /// The new and old values when the memory changed since the last poll.
    mutating func poll() -> (new: Value, old: Value)? {
        if memcmp(pointer, last, size) == 0 { return nil }
        let old = last
        last = Array(UnsafeRawBufferPointer(start: pointer, count: size))
        return (value(last), value(old))
    }

    private func value(_ bytes: [UInt8]) -> Value {
        guard size <= 4 else { return .bytes(bytes) }
        let ordered = bigEndian ? bytes : bytes.reversed()
        return .integer(ordered.reduce(0) { $0 << 8 | Int($1) })
    }
}
