import CCrypto
import CZlib
import Foundation

/// Checksums through Debian's zlib (CRC-32) and OpenSSL (SHA-1, MD5), not hand-written code.
public enum Hashing {
    public static func crc32(_ bytes: some ContiguousBytes) -> String {
        let value = bytes.withUnsafeBytes { raw in
            crc32_z(0, raw.bindMemory(to: Bytef.self).baseAddress, raw.count)  // size_t length: no 4 GiB limit
        }
        return hex(withUnsafeBytes(of: UInt32(value).bigEndian) { Array($0) })
    }

    public static func sha1(_ bytes: some ContiguousBytes) -> String { digest(bytes, EVP_sha1()) }

    /// For BIOS files: libretro's `.info` files name their expected md5.
    public static func md5(_ bytes: some ContiguousBytes) -> String { digest(bytes, EVP_md5()) }

    /// One-shot digest with OpenSSL's `algorithm`, as lowercase hex.
    private static func digest(_ bytes: some ContiguousBytes, _ algorithm: OpaquePointer?) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        bytes.withUnsafeBytes { raw in
            _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, algorithm, nil)
        }
        return hex(digest.prefix(Int(length)))
    }

    /// SHA-1 over several pieces, fed in order (the hash of their concatenation).
    public final class SHA1 {
        private let context = EVP_MD_CTX_new()

        public init() { EVP_DigestInit_ex(context, EVP_sha1(), nil) }
        deinit { EVP_MD_CTX_free(context) }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            if bytes.count > 0 { EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
        }

        public func finish() -> String {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &length)
            return Hashing.hex(digest.prefix(Int(length)))
        }
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
