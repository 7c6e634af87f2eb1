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

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let data = (environment["XDG_DATA_HOME"] ?? home + "/.local/share") + "/retrolua"
        config = (environment["XDG_CONFIG_HOME"] ?? home + "/.config") + "/retrolua"
        saves = data + "/saves"
        system = data + "/system"
        states = data + "/states"
    }

    /// Per-core option file, then per-game (later files override earlier ones).
    public func optionFiles(core: String, game: String?) -> [String] {
        var files = [config + "/options/" + core + ".opt"]
        if let game { files.append(config + "/options/" + core + "/" + game + ".opt") }
        return files
    }

    /// The homebrew ROM `retrolua run` plays when given none: `build/roms/demo.nes` in the source tree.
    public static func defaultContent(executable: String = CommandLine.arguments[0], source: String = #filePath) -> String? {
        if let chosen = ProcessInfo.processInfo.environment["RETROLUA_DEFAULT_ROM"] { return chosen }
        var folders: [URL] = []
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            folders.append(folder)
            folder.deleteLastPathComponent()
        }
        // Sources/Host/HostPaths.swift → the project root.
        folders.append(URL(fileURLWithPath: source).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        for root in folders {
            let candidate = root.appendingPathComponent("build/roms/demo.nes").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }
}
