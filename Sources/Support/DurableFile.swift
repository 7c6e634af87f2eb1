import Foundation
import Glibc

/// Writes files the user cares about so that a crash or a full disk never leaves a half-written file:
/// temporary file in the same folder, fsync, rename into place, fsync the folder. Only regular files
/// are replaced (never a FIFO, a device such as `/dev/null`, or a folder), temporary names fit in
/// NAME_MAX, and temporary files left by killed processes are removed on the next write.
public enum DurableFile {
    /// Told before and after a write waits for the disk (the script host pauses scripts' deadlines).
    public nonisolated(unsafe) static var blockingWork:
        (begin: @convention(c) () -> Void, end: @convention(c) () -> Void)?

    public static func write(_ bytes: some ContiguousBytes, to path: String) throws(FileWriteError) {
        try prepare(path)
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw FileWriteError(path: path, reason: String(cString: strerror(errno))) }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        blockingWork?.begin()
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        blockingWork?.end()
        close(fd)
        if let failure {
            unlink(temporary)
            throw FileWriteError(path: path, reason: failure)
        }
        try commit(temporary, to: path)
    }

    /// Before writing `path`: its folder exists (created if needed), the target is absent or a
    /// regular file, and stale temporary files of `path` are gone.
    public static func prepare(_ path: String) throws(FileWriteError) {
        try checkTarget(path)
        let folder = FilePath.folder(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw FileWriteError(path: path, reason: "cannot create folder \(folder)")
        }
        removeStaleTemporaries(of: path)
    }

    /// Renames a finished, fsynced temporary file over `path` (checked again: it may have changed)
    /// and fsyncs the folder. The temporary file is removed on failure.
    public static func commit(_ temporary: String, to path: String) throws(FileWriteError) {
        do { try checkTarget(path) } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileWriteError(path: path, reason: reason)
        }
        let folderFD = open(FilePath.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            blockingWork?.begin()
            fsync(folderFD)
            blockingWork?.end()
            close(folderFD)
        }
    }

    /// Checks, without writing anything, that `path` can be written later: the target is absent or
    /// a regular file, and its nearest existing folder is a folder this process may write into.
    /// Runs check their outputs with it before the core starts.
    public static func checkWritable(_ path: String) throws(FileWriteError) {
        guard !path.isEmpty else { throw FileWriteError(path: path, reason: "empty path") }
        try checkTarget(path)
        var folder = FilePath.folder(of: path)
        var info = stat()
        while stat(folder, &info) != 0 {
            guard errno == ENOENT, folder != "/", folder != "." else {
                throw FileWriteError(path: path, reason: "\(folder): \(String(cString: strerror(errno)))")
            }
            folder = FilePath.folder(of: folder)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FileWriteError(path: path, reason: "\(folder) is not a folder")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw FileWriteError(path: path, reason: "folder \(folder) is not writable")
        }
    }

    /// An existing target that is not a regular file (or a link to one) is never replaced.
    static func checkTarget(_ path: String) throws(FileWriteError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a folder"
        case S_IFIFO: kind = "a FIFO"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw FileWriteError(path: path, reason: "it is \(kind), not a regular file (left untouched)")
    }

    /// The longest file name Linux file systems take (NAME_MAX).
    public static let nameMax = 255
    private static let marker = ".tmp"

    /// `NAME.tmp<pid>` beside `path`, NAME shortened (at a character boundary) to fit in NAME_MAX.
    public static func temporaryPath(for path: String, pid: Int32 = getpid()) -> String {
        let folder = FilePath.folder(of: path)
        let name = temporaryPrefix(FilePath.fileName(of: path)) + "\(pid)"
        return (folder == "/" ? "" : folder) + "/" + name
    }

    /// `NAME.tmp`, NAME cut so that ten pid digits still fit.
    static func temporaryPrefix(_ name: String) -> String {
        let room = nameMax - marker.utf8.count - 10
        return FilePath.prefix(name, utf8Bytes: room) + marker
    }

    /// Removes `NAME.tmp<pid>` files of `path` whose process is gone (a write killed half-way).
    public static func removeStaleTemporaries(of path: String) {
        let folder = FilePath.folder(of: path)
        let prefix = temporaryPrefix(FilePath.fileName(of: path))
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            let digits = entry.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let pid = Int32(digits), pid > 0,
                pid != getpid(), !isAlive(pid)
            else { continue }
            unlink((folder == "/" ? "" : folder) + "/" + entry)
        }
    }

    /// Removes every `NAME.tmp<pid>` under `folder` (its subfolders too) whose process is gone: a write
    /// killed half-way to a file that is never written again (a screenshot, a slot) left it for good.
    /// Looks at `limit` entries at most, so a huge folder costs a start-up nothing unbounded.
    public static func removeStaleTemporaries(under folder: String, limit: Int = 20_000) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        var seen = 0
        while seen < limit, let entry = walker.nextObject() as? String {
            seen += 1
            let name = FilePath.fileName(of: entry)
            guard let marked = name.range(of: marker, options: .backwards) else { continue }
            let digits = name[marked.upperBound...]
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let pid = Int32(digits), pid > 0, pid != getpid(), !isAlive(pid)
            else { continue }
            let path = folder + "/" + entry
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            unlink(path)
        }
    }

    private static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
}
