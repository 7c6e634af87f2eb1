import Foundation

/// Stateless proof of a peer's address (the cookie of DTLS and QUIC): HMAC-SHA-256 of a text under a
/// secret drawn once per process from the system's generator, cut to 16 bytes. Only this process can
/// make one, so a peer that echoes the cookie for its address has received what was sent there.
public enum AddressCookie {
    public static let size = 16

    private static let secret: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    /// The cookie of `text` (HMAC-SHA-256 under the process's secret, cut to `size`).
    public static func of(_ text: [UInt8]) -> [UInt8] {
        Array(KeyedHash.hmacSHA256(key: secret, message: text).prefix(size))
    }
}
