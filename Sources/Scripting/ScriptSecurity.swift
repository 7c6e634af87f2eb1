import Emulation
import CLua
import CLuaShim
import Foundation
import LuaRuntime
import Support

extension Script {
    // The security profile itself is Lua: lua/host/prelude.lua, loaded by HostPreludes. This file holds
    // the one path check that both the prelude (io, os, require, loadfile) and the bindings that take
    // paths (savestates, movies, cheats, images) use.

    /// A folder a confined script may use, and whether it may write there.
    struct FileRoot {
        let folder: String
        let writable: Bool
    }

    /// Retrolua's own frontend scripts (lua/defaults, or the user's replacements in the config folder) act
    /// for the person at the keyboard: a screenshot, a script or watch list the person picks, the movie the
    /// TAS editor saves are the person's files. So they have every file the user has (as `--allow-files`);
    /// they are still confined from processes and native code. Scripts the person runs keep their profile.
    var mayUseEveryFile: Bool { host.options.trust || host.options.allowFiles || isFrontendDefault }

    /// Any socket at all (`NetworkPermission` decides which addresses).
    var mayUseNetwork: Bool { networkPermission.level != .none }

    /// Folders a confined script may use: its own folder and the lua/ folder to read, the data folder to
    /// read and write.
    var fileRoots: [FileRoot] {
        var roots = [FileRoot(folder: host.options.dataFolder, writable: true)]
        // A script without a file (the control socket's evaluator) has no folder of its own.
        let folder = path.contains("/") ? FilePath.folder(of: path) : ""
        if !folder.isEmpty { roots.append(FileRoot(folder: folder, writable: false)) }
        if let luaFolder = host.options.luaFolder { roots.append(FileRoot(folder: luaFolder, writable: false)) }
        return roots.map { FileRoot(folder: Script.resolve($0.folder, relativeTo: "/"), writable: $0.writable) }
    }

    /// Nil when this script may open `path` (for writing when `write`), else why not, naming the folders.
    func fileAccessProblem(_ path: String, write: Bool) -> String? {
        if mayUseEveryFile { return nil }
        if path.utf8.contains(0) {
            // Shown with \0: the message travels as a C string.
            return "\(path.replacingOccurrences(of: "\0", with: "\\0")): a path with a NUL byte is not allowed"
        }
        let resolved = Script.resolve(path, relativeTo: FileManager.default.currentDirectoryPath)
        let roots = fileRoots
        if roots.contains(where: {
            ($0.writable || !write) && (resolved == $0.folder || resolved.hasPrefix($0.folder + "/"))
        }) {
            return nil
        }
        let readable = roots.filter { !$0.writable }.map(\.folder).joined(separator: ", ")
        let writable = roots.filter(\.writable).map(\.folder).joined(separator: ", ")
        return """
            \(path): outside the folders this script may \(write ? "write" : "read") (read: \(readable); \
            read and write: \(writable)); run with --allow-files to lift this
            """
    }

    /// For bindings that take a path: throws an error naming the path and the allowed folders.
    func checkFileAccess(_ path: String, write: Bool) throws(FileAccessRefusal) {
        if let problem = fileAccessProblem(path, write: write) { throw FileAccessRefusal(message: problem) }
    }

    /// allow_path(path, write) → true | nil, message: may the script open `path`?
    static let allowPath: lh_binding = { L, context in
        LuaCall.run(L) { call in
            let script = Unmanaged<Script>.fromOpaque(context!).takeUnretainedValue()
            let path = try call.string(1, "path")
            if let problem = script.fileAccessProblem(path, write: lua_toboolean(L, 2) != 0) {
                return call.failure(problem)
            }
            call.push(true)
            return 1
        }
    }

    /// An absolute path with `.`/`..` and symlinks resolved the way the file system will resolve them:
    /// the longest existing prefix through realpath (so `link/..` goes where the kernel goes), the rest
    /// lexically (a missing folder followed by `..` cannot be opened anyway).
    static func resolve(_ path: String, relativeTo folder: String) -> String {
        var existing = path.hasPrefix("/") ? path : folder + "/" + path
        var rest: [String] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                var resolved = URL(fileURLWithPath: String(cString: real))
                for component in rest { resolved.appendPathComponent(component) }
                return resolved.standardizedFileURL.path
            }
            guard let slash = existing.lastIndex(of: "/"), existing != "/" else { return "/" }
            rest.insert(String(existing[existing.index(after: slash)...]), at: 0)
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
    }
}

/// A path outside a confined script's folders: an expected failure (`nil, message`).
struct FileAccessRefusal: LuaFailure {
    let message: String
    var isExpected: Bool { true }
}
