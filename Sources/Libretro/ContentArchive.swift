import Foundation
import Support

/// A `.zip` given as content: which member a core gets, and that member's bytes or a private copy
/// on disk. The archive is a stranger's: a member whose name would leave a folder (`../x.nes`, `/x.nes`)
/// is never used, and a member larger than `Content.maxLoadedSize` (declared or actually inflated) is
/// refused before or while it is inflated, never after.
struct ContentArchive {
    let path: String
    /// Files in archive order (folders left out).
    let members: [ZipArchive.Member]
    private let archive: ZipArchive

    /// Extensions that mean "this is a zip": a core listing one takes archives itself.
    static let archiveExtensions: Set<String> = ["zip"]

    static func isArchive(_ path: String) -> Bool { archiveExtensions.contains(extensionOf(path)) }

    init(path: String) throws(RetroError) {
        self.path = path
        do { archive = try ZipArchive(path: path) } catch {
            throw .contentUnreadable(path: path, reason: Self.withoutPath(error.description, path))
        }
        members = archive.members().filter { !$0.isFolder }
    }

    /// A member name that names a file inside the archive's own folder tree.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\0") else { return false }
        return !name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains("..")
    }

    /// The members a core taking `extensions` could be given, in archive order.
    func usable(for extensions: [String]) -> [ZipArchive.Member] {
        members.filter { Self.isSafe($0.name) && extensions.contains(Self.extensionOf($0.name)) }
    }

    /// The extensions of the usable members, in archive order, each once.
    var memberExtensions: [String] {
        var seen = Set<String>()
        return members.filter { Self.isSafe($0.name) }.map { Self.extensionOf($0.name) }.filter {
            !$0.isEmpty && seen.insert($0).inserted
        }
    }

    /// The first member a core taking `extensions` can use, or why there is none.
    func choose(for extensions: [String], core: String) throws(RetroError) -> ZipArchive.Member {
        if let member = usable(for: extensions).first { return member }
        let unsafe = members.filter { !Self.isSafe($0.name) }.map { "'\($0.name)'" }
        let skipped =
            unsafe.isEmpty ? "" : "; skipped (their paths leave the archive): \(unsafe.joined(separator: ", "))"
        let inside =
            members.isEmpty ? "it is empty" : "it holds \(members.prefix(8).map(\.name).joined(separator: ", "))"
        throw .contentUnreadable(
            path: path,
            reason:
                """
                no member with an extension core '\(core)' takes (looked for \
                \(extensions.map { "." + $0 }.joined(separator: " "))); \(inside)\(skipped)
                """)
    }

    /// The member's bytes, at most `Content.maxLoadedSize`.
    func bytes(of member: ZipArchive.Member) throws(RetroError) -> [UInt8] {
        try checkSize(member)
        do { return try archive.read(index: member.index, limit: Content.maxLoadedSize) } catch {
            throw .contentUnreadable(path: path, reason: Self.withoutPath(error.description, path))
        }
    }

    /// Copies the member to `target` (a new file, mode 0600), at most `Content.maxLoadedSize` bytes.
    func extract(_ member: ZipArchive.Member, to target: String) throws(RetroError) {
        try checkSize(member)
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw .contentUnreadable(
                path: path, reason: "cannot extract to \(target): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        do { try archive.extract(index: member.index, to: fd, limit: Content.maxLoadedSize) } catch {
            unlink(target)
            throw .contentUnreadable(path: path, reason: Self.withoutPath(error.description, path))
        }
    }

    /// A zip bomb's declared size is refused before anything is inflated.
    private func checkSize(_ member: ZipArchive.Member) throws(RetroError) {
        guard member.size <= UInt64(Content.maxLoadedSize) else {
            throw .contentUnreadable(
                path: path,
                reason:
                    """
                    member '\(member.name)' would inflate to \(member.size) bytes, more than the \
                    \(BoundedFile.describe(Content.maxLoadedSize)) content limit; refused before extracting
                    """)
        }
    }

    static func extensionOf(_ name: String) -> String {
        let file = FilePath.fileName(of: name)
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return "" }
        return file[file.index(after: dot)...].lowercased()
    }

    /// The reader's messages start with the archive's path; RetroError adds it again.
    private static func withoutPath(_ message: String, _ path: String) -> String {
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
    }
}

/// Private folders holding members extracted for `need_fullpath` cores: removed with their content,
/// and at exit whatever is left (a run that ends through `exit`).
public enum ExtractedContent {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: Set<String> = []
    nonisolated(unsafe) private static var registered = false

    /// A new folder only this user can enter, under `$TMPDIR`.
    static func makeFolder() throws(RetroError) -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/retrolua-content-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .contentUnreadable(
                path: base, reason: "cannot make a folder to extract into: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        lock.withLock {
            folders.insert(folder)
            if !registered {
                registered = true
                atexit { ExtractedContent.removeAll() }
            }
        }
        return folder
    }

    static func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
        _ = lock.withLock { folders.remove(folder) }
    }

    /// Removes every folder still held (the process is about to end).
    public static func removeAll() {
        for folder in lock.withLock({ folders }) { remove(folder) }
    }
}
