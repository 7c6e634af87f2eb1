import Emulation
import Foundation
import Host
import Libretro
import Support

enum DocsCommand {
    static let spec = CommandSpec(
        name: "docs", summary: "regenerate the Lua API reference and LuaLS stubs (lua/API.md, lua/types/)",
        usage: ["docs [--out DIR] [--check]"],
        description: """
            Writes the Lua API reference (DIR/API.md) and LuaLS type stubs (DIR/types/retrolua.lua), generated
            from the doc strings registered beside each binding.
            """,
        groups: [
            OptionGroup([
                Option("out", "DIR", "where to write (default: the lua/ folder the binary uses)"),
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
        let files = [
            (folder + "/API.md", APIReference.markdown), (folder + "/types/retrolua.lua", APIReference.luaLSStubs),
        ]
        var stale: [String] = []
        for (path, text) in files {
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
