import Foundation
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
