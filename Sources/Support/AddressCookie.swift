import CCrypto
import Foundation

/// Stateless proof of a peer's address (the cookie of DTLS and QUIC): HMAC-SHA-256 of a text under a
/// secret drawn once per process from the system's generator, cut to 16 bytes. Only this process can
/// make one, so a peer that echoes the cookie for its address has received what was sent there.
public enum AddressCookie {
    public static let size = 16
    private static let blockSize = 64

    private static let secret: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    /// The cookie of `text` (HMAC per RFC 2104 over OpenSSL's SHA-256).
    public static func of(_ text: [UInt8]) -> [UInt8] {
        var key = secret + [UInt8](repeating: 0, count: blockSize - secret.count)
        let inner = sha256(key.map { $0 ^ 0x36 } + text)
        for index in key.indices { key[index] ^= 0x5c }
        return Array(sha256(key + inner).prefix(size))
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
