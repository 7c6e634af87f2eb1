import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// A data-folder path from a script's relative name (no absolute paths, no `..`). The name is checked
    /// here; where it leads (a symlink in the data folder pointing out of it) is the one path rule's to
    /// judge, as for every binding that opens files (`Script.checkFileAccess`).
    private static func dataPath(_ call: LuaCall, _ host: ScriptHost) throws(LuaCallError) -> String {
        let name = try call.string(1, "name")
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !name.hasPrefix("/"), !parts.contains(".."), !parts.contains(""), !name.contains("\0")
        else {
            throw call.badArgument(1, "name", "a relative path inside the data folder expected, got '\(name)'")
        }
        return host.options.dataFolder + "/" + name
    }

    /// `emu` functions for the user's folders and a script's own durable files.
    static let dataFunctions: [LuaFunction] = [
        LuaFunction(
            "paths", returns: "table",
            doc:
                """
                The user's folders: `{config=, data=, saves=, states=, screenshots=, system=}`, and `save_ram=`: \
                this game's battery save file (`GAME.KEY.srm`, KEY from the content's SHA-1 without headers; \
                nil without content).
                """
        ) { run($0, $1, emuDataPaths) },
        LuaFunction(
            "save_data", "name: string, contents: string", returns: "boolean?, string?",
            doc:
                """
                Writes `contents` durably (temporary file, fsync, rename: a crash never leaves half a file) \
                as `name` in the data folder (`emu.paths().data`) — for a script's own saves, such as \
                achievement progress. `name` is a relative path (folders are created) without `..`; where a \
                symlink in the data folder leads out of it, `nil, message` (as for `io.open`).
                """
        ) { run($0, $1, emuDataSaveData) },
        LuaFunction(
            "load_data", "name: string", returns: "string?, string?",
            doc:
                """
                Reads a file of the data folder (written by `emu.save_data`); `nil, message` when there is none, or \
                where a symlink in the data folder leads out of it (as for `io.open`).
                """
        ) { run($0, $1, emuDataLoadData) },
    ]

    // MARK: - The functions

    private static func emuDataPaths(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let session = script.emulator.session
        let paths = session.paths
        call.newTable(fields: 7)
        if let saveRAMPath = session.saveRAMPath { call.set("save_ram", saveRAMPath) }
        call.set("config", paths.config)
        call.set("data", paths.data)
        call.set("saves", paths.saves)
        call.set("states", paths.states)
        call.set("screenshots", paths.screenshots)
        call.set("system", paths.system)
        return 1
    }

    private static func emuDataSaveData(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try dataPath(call, script.host)
        let contents = try call.bytes(2, "contents")
        try script.checkFileAccess(path, write: true)
        do { try DurableFile.write(contents, to: path) } catch { return call.failure("\(error)") }
        return call.returning(true)
    }

    private static func emuDataLoadData(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try dataPath(call, script.host)
        try script.checkFileAccess(path, write: false)
        guard let data = FileManager.default.contents(atPath: path) else {
            return call.failure("\(path): no such file")
        }
        data.withUnsafeBytes { call.push(bytes: $0) }
        return 1
    }
}
