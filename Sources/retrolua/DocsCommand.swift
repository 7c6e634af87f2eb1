import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Support

enum DocsCommand {
    static let spec = CommandSpec(
        name: "docs", summary: "regenerate the Lua API reference, LuaLS stubs, luacheck globals and CLI reference",
        usage: ["docs [--out DIR] [--site DIR] [--check]"],
        description: """
            Writes the Lua API reference (DIR/API.md), the LuaLS type stubs (DIR/types/retrolua.lua) and
            luacheck's globals with their exact fields (DIR/types/luacheck_globals.lua), generated from the doc
            strings registered beside each binding; and the documentation site's reference pages
            (SITE/reference/lua-api.md, SITE/reference/cli.md: the command tables and the default hotkeys).
            """,
        groups: [
            OptionGroup([
                Option("out", "DIR", "the lua/ folder to write (default: the lua/ folder the binary uses)"),
                Option("site", "DIR", "the documentation site's docs/ folder (default: docs/ beside the lua/ folder)"),
                Option("check", nil, "write nothing; exit 1 when the files differ from what would be generated"),
            ])
        ], takesFiles: false)

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("docs: \(error)", command: "docs") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        if let extra = args.positionals.first { usageFail("docs: unexpected argument '\(extra)'", command: "docs") }
        guard let folder = args.value("out") ?? HostPaths.luaFolder() else {
            fail("docs: no lua/ folder found; give --out DIR")
        }
        let site = args.value("site") ?? FilePath.folder(of: folder) + "/docs"
        var stale: [String] = []
        for (path, text) in GeneratedDocs.files(lua: folder, site: site) {
            if args.flag("check") {
                if (try? String(contentsOfFile: path, encoding: .utf8)) != text { stale.append(path) }
                continue
            }
            do { try DurableFile.write(Array(text.utf8), to: path) } catch { fail(error.description) }
            print("wrote \(path)")
        }
        if !stale.isEmpty { fail("docs: out of date (run `retrolua docs`): \(stale.joined(separator: ", "))") }
    }
}

/// What `retrolua docs` writes, each generated from the one table it documents.
enum GeneratedDocs {
    static func files(lua: String, site: String) -> [(path: String, text: String)] {
        [
            (lua + "/API.md", APIReference.markdown),
            (lua + "/types/retrolua.lua", LuaAPIStubs.luaLS),
            (lua + "/types/luacheck_globals.lua", LuaAPIStubs.luacheck),
            (site + "/reference/lua-api.md", LuaAPIStubs.sitePage),
            (site + "/reference/cli.md", CLIReference.markdown),
        ]
    }
}
