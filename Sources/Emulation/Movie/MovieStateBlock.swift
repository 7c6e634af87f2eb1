import Foundation

/// The active movie's input up to the frame a savestate was made, carried inside the state, so that
/// loading it while recording can put that timeline's input back (as BizHawk and FCEUX do).
///
/// Layout (little-endian): u16+bytes movie GUID, u64 movie frame, u8 ports, u8 analog, u32+bytes
/// input log records, u32 count + u32 RAM hashes.
struct MovieStateBlock {
    var guid: String
    var frame: Int
    var log: InputLog
    var ramHashes: [UInt32]

    static func encode(guid: String, frame: Int, log: InputLog, ramHashes: [UInt32]) -> [UInt8] {
        let records = log.prefix(frame)
        let hashes = ramHashes.prefix(frame)
        var out: [UInt8] = []
        out.reserveCapacity(guid.utf8.count + 20 + records.count + hashes.count * 4)
        let id = Array(guid.utf8.prefix(255))
        append(UInt16(id.count), &out)
        out += id
        append(UInt64(frame), &out)
        out.append(UInt8(log.ports))
        out.append(log.analog ? 1 : 0)
        append(UInt32(records.count), &out)
        out += records
        append(UInt32(hashes.count), &out)
        for hash in hashes { append(hash, &out) }
        return out
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> MovieStateBlock? {
        var offset = 0
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard bytes.count - offset >= MemoryLayout<T>.size else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        guard let idLength = read(UInt16.self), bytes.count - offset >= Int(idLength) else { return nil }
        let guid = String(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(idLength)]), as: UTF8.self)
        offset += Int(idLength)
        guard let frame = read(UInt64.self), let ports = read(UInt8.self), let analog = read(UInt8.self),
            let length = read(UInt32.self), bytes.count - offset >= Int(length)
        else { return nil }
        let records = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)]))
        offset += Int(length)
        guard let frame = Int(exactly: frame),
            let log = InputLog(ports: Int(ports), analog: analog != 0, bytes: records),
            log.count <= frame,
            let hashCount = read(UInt32.self), Int(hashCount) <= log.count, bytes.count - offset == Int(hashCount) * 4
        else { return nil }
        var hashes: [UInt32] = []
        hashes.reserveCapacity(Int(hashCount))
        for _ in 0..<hashCount { hashes.append(read(UInt32.self)!) }
        return MovieStateBlock(guid: guid, frame: frame, log: log, ramHashes: hashes)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, _ out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
