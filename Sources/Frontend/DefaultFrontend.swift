import Emulation
import Foundation

/// The frontend's own behaviour, written in Lua and shipped in `lua/defaults/`: each default can be
/// left out (`--no-default NAME`) or replaced by a same-named file in `~/.config/retrolua/scripts/`.
public enum DefaultFrontend {
    /// In load order: the OSD first, so it hears the messages the others send.
    public static let names = [
        "osd", "input", "hotkeys", "rewind", "runahead", "netplay", "cheats", "achievements", "ramtools", "menu",
        "tastudio",
        "console",
    ]

    /// The script files to load, the user's replacements taking the place of the shipped ones.
    public static func scripts(
        excluding disabled: Set<String>, paths: HostPaths,
        luaFolder: String? = HostPaths.luaFolder()
    ) -> [String] {
        guard !disabled.contains("all") else { return [] }
        return names.filter { !disabled.contains($0) }.compactMap { name in
            let replacement = paths.config + "/scripts/" + name + ".lua"
            if FileManager.default.fileExists(atPath: replacement) { return replacement }
            return luaFolder.map { $0 + "/defaults/" + name + ".lua" }
        }
    }
}
