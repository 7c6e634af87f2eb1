import Foundation

/// Where Retrolua keeps the user's files, following the XDG base directory layout.
public struct HostPaths: Sendable {
    /// `$XDG_CONFIG_HOME/retrolua`: options and user configuration.
    public var config: String
    /// Battery saves (`NAME.srm`).
    public var saves: String
    /// BIOS and other files cores ask for.
    public var system: String
    /// Savestate slots.
    public var states: String
    /// Scripts' own files (the sandbox lets scripts write here).
    public var data: String
    /// Screenshots taken with the default hotkey.
    public var screenshots: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let data = (environment["XDG_DATA_HOME"] ?? home + "/.local/share") + "/retrolua"
        config = (environment["XDG_CONFIG_HOME"] ?? home + "/.config") + "/retrolua"
        saves = data + "/saves"
        system = data + "/system"
        states = data + "/states"
        self.data = data + "/data"
        screenshots = data + "/screenshots"
    }

    /// Per-core option file, then per-game (later files override earlier ones).
    public func optionFiles(core: String, game: String?) -> [String] {
        var files = [config + "/options/" + core + ".opt"]
        if let game { files.append(config + "/options/" + core + "/" + game + ".opt") }
        return files
    }

    /// The homebrew ROM `retrolua run` plays when given none: an installed copy
    /// (`PREFIX/share/retrolua/roms/demo.nes`), else `build/roms/demo.nes` in the source tree.
    public static func defaultContent() -> String? {
        ProcessInfo.processInfo.environment["RETROLUA_DEFAULT_ROM"] ?? installedFile("roms/demo.nes")
            ?? projectFile("build/roms/demo.nes")
    }

    /// The `lua/` folder (library modules and the default frontend): an installed copy beside the
    /// binary (`PREFIX/share/retrolua/lua`), else the source tree's.
    public static func luaFolder() -> String? {
        ProcessInfo.processInfo.environment["RETROLUA_LUA_DIR"] ?? installedFile("lua") ?? projectFile("lua")
    }

    /// The running binary's real path: `/proc/self/exe`, since `argv[0]` may be a bare name found on
    /// PATH or a symbolic link.
    public static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    }

    /// A file installed by `scripts/install`: `PREFIX/share/retrolua/RELATIVE` for `PREFIX/bin/retrolua`.
    static func installedFile(_ relative: String, executable: String = executablePath()) -> String? {
        let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
        let candidate = prefix.appendingPathComponent("share/retrolua").appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }

    /// A file of the source tree (nil when there is none), for the command line's own look-ups.
    public static func treeFile(_ relative: String) -> String? { projectFile(relative) }

    /// A file of the source tree, looked for above the executable and then beside these sources.
    static func projectFile(
        _ relative: String, executable: String = executablePath(), source: String = #filePath
    ) -> String? {
        var folders: [URL] = []
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            folders.append(folder)
            folder.deleteLastPathComponent()
        }
        // Sources/Emulation/Session/HostPaths.swift → the project root.
        folders.append(
            URL(fileURLWithPath: source).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent())
        for root in folders {
            let candidate = root.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }
}
