import Foundation
import Libretro

/// Retrolua's savestate file: the core's own state plus what identifies it and the scripts' data.
///
/// Layout (little-endian): `RLST`, u16 version (2), u16+bytes core name, u16+bytes content SHA-1 (hex),
/// u64 frame count, u64 lag count, u32+bytes core state, u32 entry count, then per entry
/// u16+bytes key and u32+bytes value (`savestate.data`, encoded by LuaSerializer), then u32+bytes
/// movie block (the active movie's input up to this frame, `MovieStateBlock`; empty without a movie).
/// Version 1 states (no movie block) still load.
/// A file without the magic is taken as a bare core state (as other frontends write them).
public struct StateContainer {
    static let magic: [UInt8] = Array("RLST".utf8)

    /// Where the core name, content SHA-1 and core state sit inside the container's bytes
    /// (ranges, so decoding a state allocates nothing unless scripts stored data with it).
    var coreNameRange: Range<Int>
    var contentSHA1Range: Range<Int>
    var frame: Int
    var lag: Int
    public internal(set) var coreState: Range<Int>
    var scriptData: [String: [UInt8]]
    /// Where the movie block sits (nil: none).
    var movieBlock: Range<Int>?

    /// Magic, version, core name and content SHA-1: the same for every state of a session.
    static func prefix(coreName: String, contentSHA1: String) -> [UInt8] {
        var out = magic
        put(UInt16(2), &out)
        putString16(coreName, &out)
        putString16(contentSHA1, &out)
        return out
    }

    /// The largest frame or lag count a state may carry (about 150,000 years of frames at 60 Hz).
    static let maxCounter = 1 << 48

    /// Bytes between the prefix and the core state: frame, lag, state size.
    static let countersSize = 20

    static func writeCounters(frame: Int, lag: Int, stateSize: Int, to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: UInt64(frame).littleEndian, as: UInt64.self)
        (pointer + 8).storeBytes(of: UInt64(lag).littleEndian, as: UInt64.self)
        (pointer + 16).storeBytes(of: UInt32(stateSize).littleEndian, as: UInt32.self)
    }

    private static let emptyTrailer: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]

    /// Script data and the movie block, after the core state.
    static func trailer(_ data: [String: [UInt8]], movieBlock: [UInt8]? = nil) -> [UInt8] {
        if data.isEmpty && movieBlock == nil { return emptyTrailer }
        var out: [UInt8] = []
        put(UInt32(data.count), &out)
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            putString16(key, &out)
            put(UInt32(value.count), &out)
            out += value
        }
        put(UInt32(movieBlock?.count ?? 0), &out)
        if let movieBlock { out += movieBlock }
        return out
    }

    /// Parses a container; throws a message naming what is wrong.
    /// Checks that `bytes` are a state (a container or a bare core state) without keeping anything.
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) { _ = try decode(bytes) }

    /// The frame count a container was made at (nil for a bare core state or bytes that are no state).
    public static func frame(of bytes: UnsafeRawBufferPointer) -> Int? {
        guard let container = try? decode(bytes), !container.isBare else { return nil }
        return container.frame
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) -> StateContainer {
        guard bytes.count >= 4,
            bytes.loadUnaligned(as: UInt32.self) == magic.withUnsafeBytes({ $0.loadUnaligned(as: UInt32.self) })
        else {
            return StateContainer(
                coreNameRange: 0..<0, contentSHA1Range: 0..<0, frame: -1, lag: -1, coreState: 0..<bytes.count,
                scriptData: [:])
        }
        var reader = Reader(bytes: bytes, offset: 4)
        guard let version: UInt16 = reader.read(), version == 1 || version == 2 else {
            throw StateFormatError("unsupported state version")
        }
        guard let core = reader.skipString16(), let sha1 = reader.skipString16(), let frame: UInt64 = reader.read(),
            let lag: UInt64 = reader.read(), let size: UInt32 = reader.read(), reader.remaining >= Int(size)
        else {
            throw StateFormatError("truncated state header")
        }
        // Counters past any real run would trap the frame loop's arithmetic later.
        guard let frame = Int(exactly: frame), frame <= maxCounter, let lag = Int(exactly: lag), lag <= maxCounter
        else {
            throw StateFormatError("frame or lag count out of range (at most \(maxCounter))")
        }
        let start = reader.offset
        reader.offset += Int(size)
        guard let count: UInt32 = reader.read() else { throw StateFormatError("truncated state (script data missing)") }
        var data: [String: [UInt8]] = [:]
        for _ in 0..<count {
            guard let key = reader.skipString16(), let length: UInt32 = reader.read(), reader.remaining >= Int(length)
            else {
                throw StateFormatError("truncated script data")
            }
            data[String(decoding: bytes[key], as: UTF8.self)] = Array(
                bytes[reader.offset..<reader.offset + Int(length)])
            reader.offset += Int(length)
        }
        var movieBlock: Range<Int>?
        if version >= 2 {
            guard let length: UInt32 = reader.read(), reader.remaining >= Int(length) else {
                throw StateFormatError("truncated movie input")
            }
            if length > 0 { movieBlock = reader.offset..<reader.offset + Int(length) }
            reader.offset += Int(length)
        }
        guard reader.remaining == 0 else {
            throw StateFormatError("\(reader.remaining) unexpected bytes after the state")
        }
        return StateContainer(
            coreNameRange: core, contentSHA1Range: sha1, frame: frame, lag: lag,
            coreState: start..<start + Int(size), scriptData: data, movieBlock: movieBlock)
    }

    var isBare: Bool { frame < 0 }

    func coreName(in bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes[coreNameRange], as: UTF8.self) }
    func contentSHA1(in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes[contentSHA1Range], as: UTF8.self)
    }

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

        /// The range of a u16-length-prefixed string, moving past it.
        mutating func skipString16() -> Range<Int>? {
            guard let length: UInt16 = read(), remaining >= Int(length) else { return nil }
            defer { offset += Int(length) }
            return offset..<offset + Int(length)
        }
    }
}

public struct StateFormatError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    init(_ message: String) { self.message = message }
}
