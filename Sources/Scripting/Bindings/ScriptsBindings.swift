import CLua
import Foundation
import LuaRuntime
import Support

extension Bindings {
    /// The script named by argument 1: a path or a loaded script's file name, as the host knows it.
    private static func knownPath(_ call: LuaCall, _ host: ScriptHost) throws(LuaCallError) -> String? {
        let given = try call.string(1, "script")
        let standard = URL(fileURLWithPath: given).standardizedFileURL.path
        return host.knownScripts.first { $0.path == standard || $0.name == given }?.path
    }

    /// Requests wait for the next frame; a script asking in a loop gets a refusal, not a growing queue.
    private static func requestsFull(_ host: ScriptHost) -> String? {
        host.scriptRequests.count >= 64 ? "64 script requests already wait for the next frame" : nil
    }

    static let scripts = LuaModule(
        "scripts",
        doc: """
            The scripts running in this run (the default frontend's and the user's): what is loaded, what failed \
            and why, and loading, unloading and reloading them — for menus. Requests are carried out before the \
            next frame (never in the middle of another script's callback); their outcome shows in \
            `scripts.list()` and as a message.
            """,
        functions: [
            LuaFunction(
                "list", returns: "table",
                doc:
                    """
                    Every script file loaded in this run, in load order: `{name=, path=, loaded=, default=, \
                    error=, network=}` — `loaded` false once it failed or was unloaded; `error` the message of its \
                    last failure since it was last loaded, if any; `default` for the default frontend's scripts; \
                    `network` `"refused"` when it asked for the network without permission (see \
                    `grant_network`), `"granted"` when the menu's grant holds for it.
                    """
            ) { run($0, $1, scriptsList) },
            LuaFunction(
                "defaults", returns: "table",
                doc:
                    """
                    The default frontend's scripts, loaded or left out (`--no-default`): `{name=, path=, \
                    loaded=}` (the user's replacement's path when there is one). Empty when the run loads none.
                    """
            ) { run($0, $1, scriptsDefaults) },
            LuaFunction(
                "load", "path: string", returns: "boolean?, string?",
                doc:
                    """
                    Asks for the script at `path` to be loaded before the next frame (with this run's security \
                    profile; a default frontend script as a default). `nil, message` when this script may not \
                    read the file or it does not exist; a load that fails later shows in `scripts.list()`.
                    """
            ) { run($0, $1, scriptsLoad) },
            LuaFunction(
                "unload", "script: string", returns: "boolean?, string?",
                doc:
                    """
                    Asks for a loaded script (its path or file name, as in `scripts.list()`) to be unloaded before \
                    the next frame; its `exit` callbacks run first. `nil, message` for a script not loaded.
                    """
            ) { run($0, $1, scriptsUnload) },
            LuaFunction(
                "reload", "script: string", returns: "boolean?, string?",
                doc:
                    """
                    Asks for a script of `scripts.list()` (path or file name; loaded, unloaded or failed) to be \
                    read again and restarted before the next frame. `nil, message` for a script never loaded.
                    """
            ) { run($0, $1, scriptsReload) },
            LuaFunction(
                "grant_network", "script: string", returns: "boolean?, string?",
                doc:
                    """
                    For Retrolua's own frontend scripts (the menu): lets a script of `scripts.list()` reach \
                    loopback (as `--allow-net`), remembered in the config folder for this path and this content \
                    (a changed file asks again), and reloads it before the next frame. `nil, message` for a \
                    script never loaded or when the grant cannot be written.
                    """
            ) { run($0, $1, scriptsGrantNetwork) },
        ])

    // MARK: - The functions

    private static func scriptsList(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let statuses = script.host.scriptStatuses
        call.pushList(statuses) { status in
            call.newTable(fields: 6)
            call.set("name", status.name)
            call.set("path", status.path)
            call.set("loaded", status.loaded)
            call.set("default", status.isDefault)
            if let error = status.error { call.set("error", error) }
            if let network = status.network { call.set("network", network) }
        }
        return 1
    }

    private static func scriptsDefaults(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        call.pushList(host.defaultScripts) { entry in
            call.newTable(fields: 3)
            call.set("name", entry.name)
            call.set("path", entry.path)
            let standard = URL(fileURLWithPath: entry.path).standardizedFileURL.path
            call.set("loaded", host.loadedScript(at: standard) != nil)
        }
        return 1
    }

    private static func scriptsLoad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        if let problem = script.fileAccessProblem(path, write: false) { return call.failure(problem) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return call.failure("\(path): no such script")
        }
        if let full = requestsFull(script.host) { return call.failure(full) }
        script.host.scriptRequests.append(.load(script.host.loadRequest(path)))
        return call.returning(true)
    }

    private static func scriptsUnload(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        guard let path = try knownPath(call, host), host.loadedScript(at: path) != nil else {
            return call.failure("no loaded script '\(try call.string(1, "script"))'")
        }
        if let full = requestsFull(host) { return call.failure(full) }
        host.scriptRequests.append(.unload(path: path))
        return call.returning(true)
    }

    private static func scriptsReload(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        guard let path = try knownPath(call, host) else {
            return call.failure("no script '\(try call.string(1, "script"))' was loaded")
        }
        if let full = requestsFull(host) { return call.failure(full) }
        host.scriptRequests.append(.reload(path: path))
        return call.returning(true)
    }

    private static func scriptsGrantNetwork(_ call: LuaCall, _ script: Script) throws -> Int32 {
        // A grant acts for the person at the keyboard: only the menu (a default frontend script) gives it.
        guard script.isFrontendDefault else {
            throw call.error("only Retrolua's own frontend scripts may grant the network (the menu's Scripts page)")
        }
        let host = script.host
        guard let path = try knownPath(call, host) else {
            return call.failure("no script '\(try call.string(1, "script"))' was loaded")
        }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: 64 << 20) } catch { return call.failure("\(path): \(error)") }
        do { try host.networkGrants.grant(path: path, sha1: Hashing.sha1(bytes)) } catch {
            return call.failure(error.description)
        }
        host.networkRefused.remove(path)
        if let full = requestsFull(host) { return call.failure(full) }
        host.scriptRequests.append(.reload(path: path))
        return call.returning(true)
    }
}
