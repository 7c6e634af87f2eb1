/// Folder and file name of a user-given path, without Foundation's `NSString` path methods
/// (`deletingLastPathComponent` traps on one-character relative paths such as `s`).
public enum FilePath {
    /// The folder holding `path`: `.` for a bare name, `/` for a file at the root; trailing slashes ignored.
    public static func folder(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path` (trailing slashes ignored; `/` for the root).
    public static func fileName(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        let name = trimmed[trimmed.index(after: slash)...]
        return name.isEmpty ? "/" : String(name)
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        // One pass from the end; a lone "/" stays.
        guard let last = path.lastIndex(where: { $0 != "/" }) else { return path.isEmpty ? path : "/" }
        return String(path[...last])
    }

    /// The longest start of `name` within `bytes` UTF-8 bytes, cut at a character (one pass: names
    /// from scripts and archives can be long).
    public static func prefix(_ name: String, utf8Bytes bytes: Int) -> Substring {
        var used = 0
        var end = name.startIndex
        for character in name {
            used += character.utf8.count
            guard used <= bytes else { break }
            end = name.index(after: end)
        }
        return name[..<end]
    }
}
