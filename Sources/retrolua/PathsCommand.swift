import Emulation
import Foundation
import Run
import Support

/// `retrolua paths`: where the bundled files (the Lua library, the example ROMs, the examples) and the user's
/// folders are; with NAMEs, the file each one is read from (`BundledFiles`' rule, as `run` reads it).
enum PathsCommand {
    static let spec = CommandSpec(
        name: "paths", summary: "where the bundled ROMs, examples and Lua library are, and the user's folders",
        usage: ["paths [NAME…] [--json]"],
        description: """
            Without NAME, lists the folders: the Lua library (lua), the example ROMs (roms: a bare name such as
            dodge.nes names one, from any folder), the examples (examples: examples/overlays/ram_watch.lua names
            one), then the user's folders (config, data, saves, states, screenshots, system). With NAMEs, prints
            the file each one is read from, as run, info and movie read a ROM, script, scenario or movie: a path
            that exists (relative to the working folder) first, else the bundled file; exit 1 naming the places
            looked at for a name found nowhere.
            """,
        groups: [OptionGroup([Option("json", nil, "one JSON object instead of lines")])])

    static func main(_ raw: [String]) -> Never {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("paths: \(error)", command: "paths") }
        if args.flag("help") {
            print(spec.helpText)
            exit(0)
        }
        let pairs: [(String, String)]
        if args.positionals.isEmpty {
            pairs = folders()
        } else {
            do throws(CommandLineError) {
                pairs = try args.positionals.map { name throws(CommandLineError) in
                    let path = try BundledName.resolve(name, "file")
                    // A name that can only be the person's own path (absolute, `../…`) is not looked up.
                    guard FileManager.default.fileExists(atPath: path) else {
                        throw CommandLineError(message: "\(name): no such file", code: Exit.failure)
                    }
                    return (name, absolute(path))
                }
            } catch {
                fail("paths: \(error.message)")
            }
        }
        if args.flag("json") {
            var object: [String: Any] = [:]
            for (key, value) in pairs { object[key] = value }
            print(String(decoding: JSONWriter.encode(object) ?? [], as: UTF8.self))
        } else if args.positionals.isEmpty {
            for (key, value) in pairs { print(key.padding(toLength: 12, withPad: " ", startingAt: 0) + value) }
        } else {
            for (_, value) in pairs { print(value) }
        }
        exit(0)
    }

    /// The bundled folders (a missing one as `-`), then the user's.
    static func folders() -> [(String, String)] {
        let places = BundledFiles.places()
        let user = HostPaths()
        return [
            ("lua", HostPaths.luaFolder() ?? "-"),
            ("roms", BundledFiles.folder(.roms, places: places) ?? "-"),
            ("examples", BundledFiles.folder(.examples, places: places) ?? "-"),
            ("config", user.config), ("data", user.data), ("saves", user.saves), ("states", user.states),
            ("screenshots", user.screenshots), ("system", user.system),
        ]
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// A file the command line is given to read (content, a script, a scenario, a movie), resolved by
/// `BundledFiles`' rule; a name found nowhere is a failure (exit 1) naming every place looked at.
enum BundledName {
    static func resolve(_ name: String, _ what: String) throws(CommandLineError) -> String {
        let path: String
        do { path = try BundledFiles.resolve(name) } catch {
            throw CommandLineError(message: error.message(what), code: Exit.failure)
        }
        return path
    }

    /// For commands that end at once on a bad name: the path, or `COMMAND: NAME: no such WHAT (…)` and exit 1.
    static func resolveOrFail(_ name: String, _ what: String, command: String) -> String {
        do throws(CommandLineError) { return try resolve(name, what) } catch { fail("\(command): \(error.message)") }
    }

    /// A run's files, read where `run` reads them: the content, scripts, scenario and the movie to play.
    static func resolve(in plan: inout RunPlan) throws(CommandLineError) {
        if let content = plan.session.contentPath { plan.session.contentPath = try resolve(content, "content") }
        for index in plan.scripts.indices { plan.scripts[index].path = try resolve(plan.scripts[index].path, "script") }
        if let scenario = plan.control?.scenario { plan.control?.scenario = try resolve(scenario, "scenario") }
        if case .play(let path, let options)? = plan.movie {
            plan.movie = .play(path: try resolve(path, "movie"), options)
        }
    }
}
