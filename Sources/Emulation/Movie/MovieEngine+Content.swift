import Foundation
import Libretro

/// Which content a movie is for: the one rule every door that plays a movie goes through.
extension MovieEngine {
    /// How a movie and the content it is played on differ.
    public struct ContentMismatch: Sendable {
        public let problem: String
        /// A checksum differs (a refusal unless forced); false: the movie carries no checksum and names other
        /// content (a warning where the person chose the ROM; the ROM lookup passes it by).
        public let byChecksum: Bool
    }

    /// Why `movie` is not for `content`, or nil: the strongest checksum the movie carries must match
    /// (whole-file SHA-1, else the headerless SHA-1, else the headerless MD5 of FCEUX's movies); a movie
    /// that carries none but names its game should name this one. The one rule for every door that plays a
    /// movie (`movie play`, `--play-movie`, `--tastudio`, `movie.play`) and for the ROM lookup.
    public static func contentMismatch(_ movie: Movie, _ content: Content) -> ContentMismatch? {
        func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }
        let named = movie.contentName.isEmpty ? "unnamed content" : movie.contentName
        let checks: [(String, String, String)] = [
            ("SHA-1", movie.contentSHA1, content.sha1), ("headerless SHA-1", movie.contentIdentity, content.identity),
            ("MD5", movie.contentMD5, content.identityMD5),
        ]
        if let (kind, expected, actual) = checks.first(where: { !$0.1.isEmpty }) {
            guard !same(expected, actual) else { return nil }
            return ContentMismatch(
                problem: """
                    the movie was recorded with other content (\(named), \(kind) \(expected.prefix(12))…), this \
                    is \(content.fileName) (\(kind) \(actual.prefix(12))…)
                    """, byChecksum: true)
        }
        guard !movie.contentName.isEmpty, !same(movie.contentName, content.fileName) else { return nil }
        return ContentMismatch(
            problem: "the movie names other content (\(movie.contentName), no checksum), this is \(content.fileName)",
            byChecksum: false)
    }
}
