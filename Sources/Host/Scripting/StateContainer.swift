import Foundation
import Libretro

/// Retrolua's savestate file: the core's own state plus what identifies it and the scripts' data.
///
/// Layout (little-endian): `RLST`, u16 version (1), u16+bytes core name, u16+bytes content SHA-1 (hex),
/// u64 frame count, u64 lag count, u32+bytes core state, u32 entry count, then per entry
/// u16+bytes key and u32+bytes value (`savestate.data`, encoded by LuaSerializer).
/// A file without the magic is taken as a bare core state (as other frontends write them).
struct StateContainer {
    static let magic: [UInt8] = Array("RLST".utf8)

    var coreName: String
    var contentSHA1: String
    var frame: Int
    var lag: Int
    /// Where the core's state sits inside the container's bytes.
    var coreState: Range<Int>
    var scriptData: [String: [UInt8]]

    /// Header bytes up to (and including) the core state's length field.
    static func header(coreName: String, contentSHA1: String, frame: Int, lag: Int, stateSize: Int) -> [UInt8] {
        var out = magic
        put(UInt16(1), &out)
        putString16(coreName, &out)
        putString16(contentSHA1, &out)
        put(UInt64(frame), &out)
        put(UInt64(lag), &out)
        put(UInt32(stateSize), &out)
        return out
    }

    static func trailer(_ data: [String: [UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        put(UInt32(data.count), &out)
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            putString16(key, &out)
            put(UInt32(value.count), &out)
            out += value
        }
        return out
    }

    /// Parses a container; throws a message naming what is wrong.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) -> StateContainer {
        guard bytes.count >= 4, Array(bytes[0..<4]) == magic else {
            return StateContainer(coreName: "", contentSHA1: "", frame: -1, lag: -1, coreState: 0..<bytes.count, scriptData: [:])
        }
        var reader = Reader(bytes: bytes, offset: 4)
        guard let version: UInt16 = reader.read(), version == 1 else { throw StateFormatError("unsupported state version") }
        guard let core = reader.string16(), let sha1 = reader.string16(), let frame: UInt64 = reader.read(),
              let lag: UInt64 = reader.read(), let size: UInt32 = reader.read(), reader.remaining >= Int(size) else {
            throw StateFormatError("truncated state header")
        }
        let start = reader.offset
        reader.offset += Int(size)
        guard let count: UInt32 = reader.read() else { throw StateFormatError("truncated state (script data missing)") }
        var data: [String: [UInt8]] = [:]
        for _ in 0..<count {
            guard let key = reader.string16(), let length: UInt32 = reader.read(), reader.remaining >= Int(length) else {
                throw StateFormatError("truncated script data")
            }
            data[key] = Array(bytes[reader.offset..<reader.offset + Int(length)])
            reader.offset += Int(length)
        }
        guard reader.remaining == 0 else { throw StateFormatError("\(reader.remaining) unexpected bytes after the state") }
        return StateContainer(coreName: core, contentSHA1: sha1, frame: Int(frame), lag: Int(lag),
                              coreState: start..<start + Int(size), scriptData: data)
    }

    var isBare: Bool { frame < 0 }

    private static func put<T: FixedWidthInteger>(_ value: T, _ out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func putString16(_ string: String, _ out: inout [UInt8]) {
        let bytes = Array(string.utf8.prefix(Int(UInt16.max)))
        put(UInt16(bytes.count), &out)
        out += bytes
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int
        var remaining: Int { bytes.count - offset }

        mutating func read<T: FixedWidthInteger>() -> T? {
            guard remaining >= MemoryLayout<T>.size else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        mutating func string16() -> String? {
            guard let length: UInt16 = read(), remaining >= Int(length) else { return nil }
            defer { offset += Int(length) }
            return String(decoding: bytes[offset..<offset + Int(length)], as: UTF8.self)
        }
    }
}

struct StateFormatError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
    init(_ message: String) { self.message = message }
}
