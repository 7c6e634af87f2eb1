import Foundation
import Synchronization

/// The Lua the host runs in every script's state before the script itself, kept as Lua files in
/// `lua/host/`: `prelude.lua` (the security profile) and `console.lua` (`print`, `console.*`). `repl.lua`
/// runs in the console's state only (`ScriptConsole`, read with `consoleHelpers`).
struct HostPreludes: Sendable {
    let security: Source
    let console: Source

    struct Source: Sendable {
        let text: String
        /// The chunk name in messages and tracebacks (`retrolua/prelude:12:`), the same wherever lua/ lives.
        let chunkName: String
    }

    /// Read once per process and lua/ folder: scripts are created often (hot reload, bots), and these
    /// files change only with Retrolua itself. Failures are not cached, so a fixed file is picked up.
    private static let cache = Mutex<[String: HostPreludes]>([:])

    /// The preludes under `luaFolder`; without them no script may run, so a missing one is an error naming the file.
    static func load(luaFolder: String?) throws(HostPreludeError) -> HostPreludes {
        guard let luaFolder else {
            throw HostPreludeError(
                "no lua/ folder found (set RETROLUA_LUA_DIR): scripts cannot run without its host/prelude.lua")
        }
        if let cached = cache.withLock({ $0[luaFolder] }) { return cached }
        let preludes = HostPreludes(
            security: try read(
                luaFolder + "/host/prelude.lua", chunkName: "retrolua/prelude", role: "security prelude"),
            console: try read(luaFolder + "/host/console.lua", chunkName: "retrolua/console", role: "console prelude"))
        cache.withLock { $0[luaFolder] = preludes }
        return preludes
    }

    /// `lua/host/repl.lua`, read when a run's console is first used.
    static func consoleHelpers(luaFolder: String?) throws(HostPreludeError) -> Source {
        guard let luaFolder else { throw HostPreludeError("no lua/ folder found (set RETROLUA_LUA_DIR)") }
        return try read(luaFolder + "/host/repl.lua", chunkName: "retrolua/repl", role: "console's helpers")
    }

    private static func read(_ path: String, chunkName: String, role: String) throws(HostPreludeError) -> Source {
        guard FileManager.default.fileExists(atPath: path) else {
            throw HostPreludeError("\(path): the \(role) is missing; scripts cannot run without it")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HostPreludeError("\(path): cannot read the \(role); scripts cannot run without it")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw HostPreludeError("\(path): the \(role) is not UTF-8 text")
        }
        return Source(text: text, chunkName: chunkName)
    }
}

/// A host prelude that cannot be read: the message names the file.
struct HostPreludeError: Error, CustomStringConvertible, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
