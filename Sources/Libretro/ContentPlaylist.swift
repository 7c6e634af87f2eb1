import Foundation
import Support

/// An `.m3u` playlist of disc images: one path per line, relative to the playlist's folder, `#` lines
/// are comments, `path|label` names a disc. A playlist may name other playlists (their entries are
/// included in place); a loop, a missing file or an empty list is refused with the playlist and line.
public struct ContentPlaylist: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let path: String
        public let label: String?
    }

    public let path: String
    public let entries: [Entry]

    /// Far above any game's disc count; a playlist is text, so a larger one is not one.
    static let maxSize = 64 << 10
    static let maxEntries = 256
    static let maxDepth = 8

    static func isPlaylist(_ path: String) -> Bool { ContentArchive.extensionOf(path) == "m3u" }

    public init(path: String) throws(RetroError) {
        self.path = path
        entries = try Self.read(path, chain: [])
        guard !entries.isEmpty else { throw .contentUnreadable(path: path, reason: "the playlist names no disc") }
    }

    private static func read(_ path: String, chain: [String]) throws(RetroError) -> [Entry] {
        let real = realPath(path)
        if chain.contains(real) {
            let loop = (chain + [real]).map { FilePath.fileName(of: $0) }.joined(separator: " → ")
            throw .contentUnreadable(path: chain[0], reason: "the playlist includes itself (\(loop))")
        }
        guard chain.count < maxDepth else {
            throw .contentUnreadable(path: chain[0], reason: "playlists nested more than \(maxDepth) deep")
        }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: maxSize) } catch {
            throw .contentUnreadable(path: path, reason: error.reason)
        }
        let folder = FilePath.folder(of: path)
        var entries: [Entry] = []
        for (number, raw) in String(decoding: bytes, as: UTF8.self).split(
            omittingEmptySubsequences: false, whereSeparator: \.isNewline
        ).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            // `path|label`; empty pieces are kept ("|x" has no path), so parts[0] always exists.
            let parts = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                throw .contentUnreadable(path: path, reason: "line \(number + 1) has a label but no file name")
            }
            let label = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : nil
            let entryPath = name.hasPrefix("/") ? name : folder + "/" + name
            do { _ = try BoundedFile.size(entryPath) } catch {
                throw .contentUnreadable(
                    path: path, reason: "line \(number + 1) names '\(name)', which cannot be used: \(error.reason)")
            }
            if isPlaylist(entryPath) {
                entries += try read(entryPath, chain: chain + [real])
            } else {
                entries.append(Entry(path: entryPath, label: label.flatMap { $0.isEmpty ? nil : $0 }))
            }
            guard entries.count <= maxEntries else {
                throw .contentUnreadable(path: path, reason: "more than \(maxEntries) discs")
            }
        }
        return entries
    }

    private static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
