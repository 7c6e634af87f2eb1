import Glibc

/// Where a user's running games listen for `retrolua attach`: `$XDG_RUNTIME_DIR/retrolua` (the system
/// makes the runtime folder the user's alone), else `/tmp/retrolua-UID`. The folder is made 0700 and is
/// used only when it is a real folder (not a link) that this user owns and no one else may enter, so no other
/// user can plant or read a socket there; each run's socket is named by its process id.
public enum UserRuntimeFolder {
    /// The folder, made if it is missing and checked.
    public static func prepared() throws(RuntimeFolderError) -> String {
        let folder = path
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw RuntimeFolderError("\(folder): cannot make the folder: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            throw RuntimeFolderError("\(folder): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw RuntimeFolderError("\(folder): not a folder") }
        guard info.st_uid == getuid() else { throw RuntimeFolderError("\(folder): owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw RuntimeFolderError("\(folder): others may enter it (its mode must be 0700)")
        }
        return folder
    }

    /// The socket a run with process id `pid` listens on unless told otherwise.
    public static func socket(pid: pid_t = getpid()) throws(RuntimeFolderError) -> String {
        let socket = try prepared() + "/\(pid).sock"
        // sockaddr_un holds 108 bytes with the terminating zero.
        guard socket.utf8.count < 100 else { throw RuntimeFolderError("\(socket): the path is too long for a socket") }
        return socket
    }

    /// The sockets in the folder now (running games, and any a crashed run left), oldest process first.
    public static func sockets() -> [String] {
        guard let folder = try? prepared(), let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [(pid: Int, path: String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".sock"), let pid = Int(name.dropLast(5)) else { continue }
            found.append((pid, folder + "/" + name))
        }
        return found.sorted { $0.pid < $1.pid }.map(\.path)
    }

    private static var path: String {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            return runtime + "/retrolua"
        }
        return "/tmp/retrolua-\(getuid())"
    }
}

/// The runtime folder cannot be used: the message names it and why.
public struct RuntimeFolderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
