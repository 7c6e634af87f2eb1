import Emulation
import Foundation
import Host
import Libretro
import Support

enum DocsCommand {
    static let help = """
        usage: retrolua docs [--out DIR] [--check]

        Writes the Lua API reference (DIR/API.md) and LuaLS type stubs (DIR/types/retrolua.lua), generated
        from the doc strings registered beside each binding. DIR defaults to the project's lua/ folder.
        With --check, writes nothing and exits 1 when the files differ from what would be generated.
        """

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, valued: ["out"], flags: ["check", "help"]) } catch {
            fail("docs: \(error)\n\n\(help)", code: Exit.usage)
        }
        if args.flag("help") { print(help); exit(0) }
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
