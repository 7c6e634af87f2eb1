import CCrypto
import CZlib
import Foundation

/// A content file (ROM) read into memory, with the hashes scripts and movies identify it by
/// (computed once, on first use).
public final class Content {
    public let path: String
    public let bytes: [UInt8]

    public var fileName: String { (path as NSString).lastPathComponent }
    /// The name without folder or extension, used for save files (`game.srm`).
    public var baseName: String { (fileName as NSString).deletingPathExtension }
    public var fileExtension: String { (path as NSString).pathExtension.lowercased() }

    public init(path: String) throws(RetroError) {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .contentUnreadable(path: path, reason: "no such file")
        }
        if isDirectory.boolValue { throw .contentUnreadable(path: path, reason: "is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .contentUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard !data.isEmpty else { throw .contentEmpty(path: path) }
        self.path = url.standardizedFileURL.path
        self.bytes = [UInt8](data)
    }

    public private(set) lazy var crc32: String = Hashing.crc32(bytes)
    public private(set) lazy var sha1: String = Hashing.sha1(bytes)
}

/// Checksums through Debian's zlib (CRC-32) and OpenSSL (SHA-1), not hand-written code.
public enum Hashing {
    public static func crc32(_ bytes: some ContiguousBytes) -> String {
        let value = bytes.withUnsafeBytes { raw in
            CZlib.crc32(0, raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count))
        }
        return hex(withUnsafeBytes(of: UInt32(value).bigEndian) { Array($0) })
    }

    public static func sha1(_ bytes: some ContiguousBytes) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        bytes.withUnsafeBytes { raw in
            _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha1(), nil)
        }
        return hex(digest.prefix(Int(length)))
    }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
