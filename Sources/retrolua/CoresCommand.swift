import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro

enum CoresCommand {
    static let spec = CommandSpec(
        name: "cores", summary: "list installed cores with their systems and file extensions", usage: ["cores"],
        description: """
            Lists installed libretro cores: short name (for --core), display name, systems, extensions.
            Searched: $RETROLUA_CORE_PATH, ~/.config/retroarch/cores, Debian's libretro folder,
            $RETROLUA_EXTRA_CORE_PATH (the Python package adds an installed stable-retro's cores there).
            """, takesFiles: false)

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("cores: \(error)", command: "cores") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.isEmpty else { usageFail("cores: takes no arguments", command: "cores") }
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
        guard raw.count == 1 else { usageFail("probe-core: expected one core path", command: nil) }
        let result = CoreProbe.probeHere(raw[0])
        guard let data = try? JSONEncoder().encode(result) else { exit(Exit.failure) }
        FileHandle.standardOutput.write(data)
        exit(0)
    }
}

enum InfoCommand {
    static let spec = CommandSpec(
        name: "info", summary: "show the core Retrolua would pick for ROM, and the ROM's hashes",
        usage: ["info ROM [--core NAME|PATH]"],
        description: """
            Shows the core Retrolua picks for ROM (or the one given), why, the others that could take it, its
            systems, and the ROM's size, CRC32 and SHA-1.
            """,
        groups: [OptionGroup([Option("core", "NAME|PATH", "the core to describe instead of the one chosen")])])

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("info: \(error)", command: "info") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            usageFail("info: expected one ROM", command: "info")
        }
        do {
            let content = try Content(path: BundledName.resolveOrFail(path, "content", command: "info"))
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
