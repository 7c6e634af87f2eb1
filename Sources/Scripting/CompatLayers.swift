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
    /// A script whose own layer is `fallback`'s gets `fallback`'s options too.
    public static func split(_ argument: String, layers: [String], fallback: String?) -> ScriptSpec {
        if let colon = argument.firstIndex(of: ":"), layers.contains(String(argument[..<colon])) {
            let layer = String(argument[..<colon])
            return ScriptSpec(
                path: String(argument[argument.index(after: colon)...]),
                compat: fallback.map(name(of:)) == layer ? fallback : layer)
        }
        return ScriptSpec(path: argument, compat: fallback)
    }

    /// The layer's name in a `--compat` value: `LAYER` or `LAYER:OPTIONS` (`bizhawk:version=2.9.1`).
    public static func name(of compat: String) -> String {
        compat.firstIndex(of: ":").map { String(compat[..<$0]) } ?? compat
    }

    /// The options in a `--compat` value (the text after the first `:`), read by the layer itself; nil when none.
    public static func options(of compat: String) -> String? {
        compat.firstIndex(of: ":").map { String(compat[compat.index(after: $0)...]) }
    }
}

/// A user script to run and the compatibility layer to run before it (nil: our API only), with the layer's
/// options after a colon (`bizhawk:version=2.9.1`).
public struct ScriptSpec: Equatable, Sendable {
    public var path: String
    public var compat: String?

    public init(path: String, compat: String? = nil) {
        self.path = path
        self.compat = compat
    }
}
