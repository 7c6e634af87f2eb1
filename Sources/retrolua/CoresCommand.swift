import Emulation
import Foundation
import Host
import Libretro

enum CoresCommand {
    static let help = """
        usage: retrolua cores

        Lists installed libretro cores: short name (for --core), display name, systems, extensions.
        Searched: $RETROLUA_CORE_PATH, ~/.config/retroarch/cores, Debian's libretro folder.
        """

    static func main(_ raw: [String]) {
        if raw.contains("--help") { print(help); exit(0) }
        guard raw.isEmpty else { fail("cores: takes no arguments\n\n\(help)", code: Exit.usage) }
        let locator = CoreLocator()
        let cores = locator.installed()
        if cores.isEmpty {
            fail(
                """
                no libretro cores found in \(locator.searchFolders.joined(separator: ", ")); install e.g. \
                libretro-nestopia
                """
            )
        }
        // Full names, padded but never cut: each is what --core takes.
        let width = min(max(16, cores.map(\.name.count).max() ?? 0), 40)
        for core in cores {
            let pad = String(repeating: " ", count: max(0, width - core.name.count))
            print("\(core.name)\(pad) \(core.displayName)")
            print("    systems:    \(core.systems.isEmpty ? "-" : core.systems.joined(separator: ", "))")
            print("    extensions: \(core.extensions.map { "." + $0 }.joined(separator: " "))")
            print("    path:       \(core.path)")
            if let problem = core.problem { print("    unusable:   \(problem)") }
        }
    }
}

/// `retrolua probe-core PATH`: what one core says about itself, as JSON on stdout, for `CoreProbe` (which
/// runs it in a child so a core that crashes or hangs while loading only takes this process down).
enum ProbeCoreCommand {
    static func main(_ raw: [String]) {
        guard raw.count == 1 else { fail("probe-core: expected one core path", code: Exit.usage) }
        let result = CoreProbe.probeHere(raw[0])
        guard let data = try? JSONEncoder().encode(result) else { exit(Exit.failure) }
        FileHandle.standardOutput.write(data)
        exit(0)
    }
}

enum InfoCommand {
    static let help = """
        usage: retrolua info ROM [--core NAME|PATH]

        Shows the core Retrolua picks for ROM (or the one given), its systems, and the ROM's size, CRC32 and SHA-1.
        """

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, valued: ["core"], flags: ["help"]) } catch {
            fail("info: \(error)\n\n\(help)", code: Exit.usage)
        }
        if args.flag("help") { print(help); exit(0) }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            fail("info: expected one ROM\n\n\(help)", code: Exit.usage)
        }
        do {
            let content = try Content(path: path)
            let locator = CoreLocator()
            let core: InstalledCore
            var choice: CoreChoice?
            if let spec = args.value("core") {
                let corePath = try locator.resolve(spec)
                let name = (corePath as NSString).lastPathComponent.replacingOccurrences(of: "_libretro.so", with: "")
                core = locator.describe(path: corePath, name: name)
            } else {
                choice = try locator.choose(for: content)
                core = choice!.core
            }
            try content.prepare(extensions: core.extensions, needFullpath: false, core: core.name)
            if !core.extensions.isEmpty && !core.extensions.contains(content.fileExtension) {
                throw RetroError.wrongSystem(path: content.path, core: core.name, extensions: core.extensions)
            }
            print("content  \(content.path)")
            if let member = content.member { print("member   \(member)") }
            if let playlist = content.playlist { print("discs    \(playlist.entries.count)") }
            print("size     \(content.size) bytes")
            print("crc32    \(content.crc32)")
            print("sha1     \(content.sha1)")
            print("core     \(core.name) (\(core.displayName)) at \(core.path)")
            print("system   \(core.systems.isEmpty ? "-" : core.systems.joined(separator: ", "))")
            if let choice {
                print("chosen   \(choice.rule)")
                print("others   \(choice.alternatives.isEmpty ? "-" : choice.alternatives.joined(separator: ", "))")
            }
        } catch let error as RetroError {
            fail(error.description)
        } catch {
            fail("\(error)")
        }
    }
}
