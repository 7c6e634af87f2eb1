import CCrypto
import Foundation

/// HMAC-SHA-256 (RFC 2104 over OpenSSL's SHA-256) under a key the caller holds: what netplay's rooms
/// derive their id and packet key with, and sign packets between players with, so a relay that forwards
/// them can neither read the room's secret nor forge a packet.
public enum KeyedHash {
    public static let size = 32
    private static let blockSize = 64

    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? sha256(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = sha256(block.map { $0 ^ 0x36 } + message)
        return sha256(block.map { $0 ^ 0x5c } + inner)
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        bytes.withUnsafeBytes { raw in
            _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        return Array(digest.prefix(Int(length)))
    }
}
