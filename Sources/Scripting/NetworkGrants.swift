import Foundation
import Support

/// The scripts the person let reach loopback from the menu's Scripts page, each by its path and the SHA-1
/// of its content (a changed file asks again): lines `SHA1 PATH` in `network-grants` in the config folder,
/// written durably. A damaged file grants nothing it cannot read.
final class NetworkGrants {
    let file: String
    private var entries: [(sha1: String, path: String)]
    /// Grants kept; the oldest go first.
    static let maxEntries = 1000

    init(file: String) {
        self.file = file
        entries = []
        guard let bytes = try? BoundedFile.read(file, limit: 1 << 20) else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let sha1 = String(line[..<space]), path = String(line[line.index(after: space)...])
            guard sha1.count == 40, sha1.allSatisfy(\.isHexDigit), path.hasPrefix("/") else { continue }
            entries.append((sha1.lowercased(), path))
        }
        entries = Array(entries.suffix(Self.maxEntries))
    }

    func isGranted(path: String, sha1: String) -> Bool {
        entries.contains { $0.path == path && $0.sha1 == sha1 }
    }

    /// Remembers the grant for this content of `path` (forgetting the path's earlier contents' grants).
    func grant(path: String, sha1: String) throws(FileWriteError) {
        guard path.hasPrefix("/"), !path.contains("\n"), !path.utf8.contains(0) else {
            throw FileWriteError(path: file, reason: "a script path with a line break cannot be remembered")
        }
        var kept = entries.filter { $0.path != path }
        kept.append((sha1, path))
        kept = Array(kept.suffix(Self.maxEntries))
        let text = kept.map { "\($0.sha1) \($0.path)\n" }.joined()
        try? FileManager.default.createDirectory(atPath: FilePath.folder(of: file), withIntermediateDirectories: true)
        try DurableFile.write(Array(text.utf8), to: file)
        entries = kept
    }
}
