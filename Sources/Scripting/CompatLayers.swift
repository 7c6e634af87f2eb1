import Foundation

/// The compatibility layers (`lua/compat/NAME.lua`): Lua run in a script's own state before it, so a
/// script written for another emulator (FCEUX, BizHawk, Mesen, mGBA) runs as published. `auto` is the
/// layer that reads the script and loads the one its globals point to.
public enum CompatLayers {
    /// The layers in the Lua folder (`common.lua` holds their shared helpers and is none), sorted.
    public static func names(luaFolder: String?) -> [String] {
        guard let luaFolder, let files = try? FileManager.default.contentsOfDirectory(atPath: luaFolder + "/compat")
        else { return [] }
        return files.filter { $0.hasSuffix(".lua") && $0 != "common.lua" }.map { String($0.dropLast(4)) }.sorted()
    }

    /// A `--script` argument: `NAME:path` when NAME is a layer, else the path with `fallback` (`--compat`).
    public static func split(_ argument: String, layers: [String], fallback: String?) -> ScriptSpec {
        if let colon = argument.firstIndex(of: ":"), layers.contains(String(argument[..<colon])) {
            return ScriptSpec(
                path: String(argument[argument.index(after: colon)...]), compat: String(argument[..<colon]))
        }
        return ScriptSpec(path: argument, compat: fallback)
    }
}

/// A user script to run and the compatibility layer to run before it (nil: our API only).
public struct ScriptSpec: Equatable, Sendable {
    public var path: String
    public var compat: String?

    public init(path: String, compat: String? = nil) {
        self.path = path
        self.compat = compat
    }
}
