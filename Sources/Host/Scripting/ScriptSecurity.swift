import Emulation
import CLua
import CLuaShim
import Foundation
import LuaRuntime

extension Script {
    // The security profile itself is Lua: lua/host/prelude.lua, loaded by HostPreludes.

    /// allow_path(path, write) → true | nil, message: is `path` inside one of the sandbox roots?
    static let allowPath: lh_binding = { L, context in
        LuaCall.run(L) { call in
            let script = Unmanaged<Script>.fromOpaque(context!).takeUnretainedValue()
            let path = try call.string(1, "path")
            let resolved = Script.resolve(path, relativeTo: FileManager.default.currentDirectoryPath)
            if script.sandboxRoots.contains(where: { resolved == $0 || resolved.hasPrefix($0 + "/") }) {
                call.push(true)
                return 1
            }
            return call.failure(
                "\(path): outside the sandbox (allowed: \(script.sandboxRoots.joined(separator: ", ")))")
        }
    }

    /// An absolute path with `.`/`..` and symlinks resolved as far as the file system has them.
    static func resolve(_ path: String, relativeTo folder: String) -> String {
        let absolute = path.hasPrefix("/") ? path : folder + "/" + path
        var existing = URL(fileURLWithPath: absolute).standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in rest { resolved.appendPathComponent(component) }
        return resolved.standardizedFileURL.path
    }
}
