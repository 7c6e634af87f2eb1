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
        var path = Substring(path)
        while path.count > 1, path.last == "/" { path = path.dropLast() }
        return String(path)
    }
}
