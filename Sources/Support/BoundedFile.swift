import Glibc

/// Reads files from strangers (states, movies, cheat files, content): only regular files (a FIFO
/// would block and `/dev/zero` never ends), at most `limit` bytes, read once straight into the array.
public enum BoundedFile {
    public struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        public enum Kind: Sendable { case missing, notRegular, tooLarge, unreadable }
        public let kind: Kind
        /// Without the path: `no such file`, `larger than 512 MB`, …
        public let reason: String
        public var description: String { reason }
    }

    /// The file's bytes, or why they cannot be had.
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        // Non-blocking, so opening a FIFO returns at once (it is then refused as not a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw Failure(kind: code == ENOENT ? .missing : .unreadable, reason: reason(code))
        }
        defer { close(fd) }
        let size = try regularSize(fd)
        guard size <= limit else {
            throw Failure(kind: .tooLarge, reason: "larger than \(describe(limit)) (\(size) bytes)")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: max(size, 1)) { buffer, count in
            while count < size {
                let got = Glibc.read(fd, buffer.baseAddress! + count, size - count)
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                if got <= 0 { break }
                count += got
            }
        }
        if failure != 0 { throw Failure(kind: .unreadable, reason: reason(failure)) }
        return bytes
    }

    /// The size of the regular file at `path`, refusing anything else.
    public static func size(_ path: String) throws(Failure) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw Failure(kind: code == ENOENT ? .missing : .unreadable, reason: reason(code))
        }
        return try checkedSize(info)
    }

    private static func regularSize(_ fd: Int32) throws(Failure) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(kind: .unreadable, reason: reason(errno)) }
        return try checkedSize(info)
    }

    private static func checkedSize(_ info: stat) throws(Failure) -> Int {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return Int(info.st_size)
        case S_IFDIR: throw Failure(kind: .notRegular, reason: "is a folder, not a file")
        default: throw Failure(kind: .notRegular, reason: "is not a regular file (a FIFO, device or socket)")
        }
    }

    private static func reason(_ code: Int32) -> String {
        code == ENOENT ? "no such file" : String(cString: strerror(code))
    }

    /// `512 MB`, `8 KB`, `100 bytes`.
    public static func describe(_ size: Int) -> String {
        if size >= 1 << 20, size % (1 << 20) == 0 { return "\(size >> 20) MB" }
        if size >= 1 << 10, size % (1 << 10) == 0 { return "\(size >> 10) KB" }
        return "\(size) bytes"
    }
}
