import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro
import Support

/// `retrolua movie record|play|verify|convert|info`.
enum MovieCommand {
    static let spec = CommandSpec(
        name: "movie", summary: "TAS movies: record, play, verify, convert, info, recover",
        usage: [
            "movie record MOVIE [ROM] [run options]", "movie play MOVIE [ROM] [run options]",
            "movie verify MOVIE [ROM] [--core NAME] [--force]",
            "movie convert IN OUT [--rom ROM] [--core NAME] [--overwrite] [--add-verify]", "movie info MOVIE",
            "movie recover JOURNAL [OUT] [--overwrite]",
        ],
        description: """
            Movies are .rlm (Retrolua's text format), .bk2 (BizHawk) or .fm2 (FCEUX), chosen by extension.
            \(subcommands.map { "  " + $0.name.dropFirst(6).padding(toLength: 9, withPad: " ", startingAt: 0)
                + $0.summary }.joined(separator: "\n"))
            Without ROM, the movie's content is looked for by name beside the movie, in the working folder and
            among the built example ROMs, and checked by SHA-1.
            `retrolua help movie SUB` describes each; `retrolua run --help` lists the run options.
            """)

    static let subcommands: [CommandSpec] = [
        CommandSpec(
            name: "movie record",
            summary: "record from power-on (or --from-now, --from-state FILE); written when the run ends",
            usage: ["movie record MOVIE [ROM] [run options]"],
            description: """
                Records a movie from power-on (or --from-now, --from-state FILE). In a window the player plays;
                headless, a --script drives the input. The movie is written when the run ends (also on SIGINT or
                SIGTERM); while it records, MOVIE.rlm.journal keeps every frame (`retrolua movie recover`).
                """,
            groups: RunCommand.spec.groups),
        CommandSpec(
            name: "movie play", summary: "play back: in a window at normal speed, headless up to the movie's end",
            usage: ["movie play MOVIE [ROM] [run options]"],
            description: """
                Plays a movie back: in a window at normal speed, headless as fast as possible up to the movie's end
                (--dump FILE encodes it; --read-write lets state loads rewrite it). Without ROM, the movie's content
                is looked for beside the movie, in the working folder and among the built example ROMs.
                """,
            groups: RunCommand.spec.groups),
        CommandSpec(
            name: "movie verify",
            summary: "replay headless against the movie's RAM verification log: \"in sync\" or the first desync",
            usage: ["movie verify MOVIE [ROM] [options]"],
            description: """
                Replays the movie headless against its RAM verification log (recorded with --verify-log): prints
                "in sync" (exit 0) or the first frame whose RAM differs (exit 1).
                """,
            groups: [
                OptionGroup([
                    Option("core", "NAME|PATH", "core to use (default: the one the movie names)"),
                    Option("force", nil, "replay a movie made with another core or content"),
                    Option("save-dir", "DIR", "battery saves folder"),
                    Option("system-dir", "DIR", "BIOS/system folder"),
                ])
            ]),
        CommandSpec(
            name: "movie convert", summary: "between .rlm, .bk2 and .fm2 (by extension)",
            usage: ["movie convert IN OUT [options]"],
            description: "Converts a movie between formats, chosen by the files' extensions (.rlm, .bk2, .fm2).",
            groups: [
                OptionGroup([
                    Option("rom", "ROM", "fill in the content's name and SHA-1 (imports lack them)"),
                    Option("core", "NAME", "the core the movie names"),
                    Option("overwrite", nil, "replace OUT if it exists"),
                    Option("add-verify", nil, "replay the movie (needs --rom) and add a RAM verification log"),
                ])
            ]),
        CommandSpec(
            name: "movie info", summary: "the header, length, lag frames, rerecords and branches",
            usage: ["movie info MOVIE"],
            description: "Prints a movie's header, length, lag frames, rerecords and branches."),
        CommandSpec(
            name: "movie recover", summary: "a recording that did not finish, from its journal",
            usage: ["movie recover JOURNAL [OUT] [--overwrite]"],
            description: """
                Recovers a recording that did not finish (a crash, a kill, a power loss) from its journal
                (MOVIE.rlm.journal, kept beside the movie while it records): writes the movie to OUT (default:
                MOVIE.rlm) and reports the frames recovered. A line that cannot be read is reported and skipped
                (a frame whose line was lost is left empty, so the later ones keep their place). The journal is
                removed only when every line of it was recovered; otherwise it is kept and the exit status is 1.
                """,
            groups: [OptionGroup([Option("overwrite", nil, "replace OUT if it exists")])]),
    ]

    static var help: String { spec.helpText }

    static func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == "movie " + name } }

    static func main(_ raw: [String]) {
        guard let sub = raw.first else { usageFail("movie: expected a subcommand", command: "movie") }
        let rest = Array(raw.dropFirst())
        if let spec = subcommand(sub), rest.contains(where: { $0 == "-h" || $0 == "--help" }) {
            print(spec.helpText)
            exit(0)
        }
        switch sub {
        case "record": record(rest)
        case "play": play(rest, verify: false)
        case "verify": play(rest, verify: true)
        case "convert": convert(rest)
        case "info": info(rest)
        case "recover": recover(rest)
        case "--help", "-h", "help": print(help)
        default:
            let names = subcommands.map { String($0.name.dropFirst(6)) }
            let near = names.first { OptionSuggestion.distance($0, sub) <= 2 }
            usageFail(
                "movie: unknown subcommand '\(sub)'\(near.map { "; did you mean \($0)?" } ?? "")", command: "movie")
        }
    }

    /// Positionals of a `movie` subcommand, split from the options that follow them.
    private static func split(_ raw: [String], count: Int, usage: String) -> (positionals: [String], options: [String])
    {
        let positionals = Array(raw.prefix { !$0.hasPrefix("-") || $0 == "-" })
        guard (1...count).contains(positionals.count) else { usageFail("movie: \(usage)", command: "movie") }
        return (positionals, Array(raw.dropFirst(positionals.count)))
    }

    private static func record(_ raw: [String]) {
        let (positionals, options) = split(raw, count: 2, usage: "record expects MOVIE [ROM]")
        RunCommand.main(Array(positionals.dropFirst()) + ["--record-movie", positionals[0]] + options)
    }

    private static func play(_ raw: [String], verify: Bool) {
        let (positionals, options) = split(raw, count: 2, usage: "\(verify ? "verify" : "play") expects MOVIE [ROM]")
        let moviePath = BundledName.resolveOrFail(positionals[0], "movie", command: "movie")
        let movie: Movie
        do { movie = try MovieText.read(path: moviePath) } catch { fail("\(error)") }
        var arguments = options
        if !options.contains(where: { $0 == "--core" || $0.hasPrefix("--core=") }) && !movie.coreName.isEmpty {
            arguments += ["--core", movie.coreName]
        }
        let rom =
            positionals.count > 1
            ? BundledName.resolveOrFail(positionals[1], "content", command: "movie")
            : findContent(for: movie, moviePath: moviePath)
        if verify {
            guard movie.hasVerification else {
                fail(
                    """
                    \(moviePath) has no verification log (record with --verify-log, or add one: retrolua movie \
                    convert IN OUT --rom ROM --add-verify)
                    """
                )
            }
            arguments += ["--headless", "--quiet"]
            let status = Verify.run(rom: rom, moviePath: moviePath, arguments: arguments)
            exit(status)
        }
        RunCommand.main([rom, "--play-movie", moviePath] + arguments)
    }

    /// The content a movie names (MovieOptions.content: the one lookup, shared with `run --tastudio`).
    static func findContent(for movie: Movie, moviePath: String) -> String {
        do { return try MovieOptions.content(for: movie, moviePath: moviePath) } catch { fail(error.message) }
    }

    private static func convert(_ raw: [String]) {
        let (positionals, rest) = split(raw, count: 2, usage: "convert expects IN OUT")
        guard positionals.count == 2 else { usageFail("movie: convert expects IN OUT", command: "movie convert") }
        let args: Arguments
        do { args = try Arguments(rest, spec: subcommand("convert")!) } catch {
            usageFail("movie convert: \(error)", command: "movie convert")
        }
        let (input, output) = (BundledName.resolveOrFail(positionals[0], "movie", command: "movie"), positionals[1])
        if FileManager.default.fileExists(atPath: output) && !args.flag("overwrite") {
            fail("\(output) exists; movies are never overwritten (pass --overwrite)")
        }
        var movie: Movie
        do { movie = try MovieText.read(path: input) } catch { fail("\(error)") }
        let rom = args.value("rom").map { BundledName.resolveOrFail($0, "content", command: "movie") }
        if let rom {
            do {
                let content = try Content(path: rom)
                movie.contentName = content.fileName
                movie.contentSHA1 = content.sha1
                movie.contentIdentity = content.identity
                movie.contentMD5 = content.identityMD5
            } catch {
                fail("\(error)")
            }
        }
        if let core = args.value("core") { movie.coreName = core }
        if args.flag("add-verify") {
            guard let rom else {
                fail("movie convert: --add-verify needs --rom (the movie is replayed)", code: Exit.usage)
            }
            movie = Verify.addLog(
                to: movie, rom: rom, core: args.value("core") ?? (movie.coreName.isEmpty ? nil : movie.coreName))
        }
        do { try MovieText.write(movie, to: output) } catch { fail("\(error)") }
        print("movie    \(movie.length) frames written to \(output)")
    }

    private static func info(_ raw: [String]) {
        let (positionals, rest) = split(raw, count: 1, usage: "info expects MOVIE")
        if let extra = rest.first { usageFail("movie info: unknown option \(extra)", command: "movie info") }
        let path = BundledName.resolveOrFail(positionals[0], "movie", command: "movie")
        let movie: Movie
        do { movie = try MovieText.read(path: path) } catch { fail("\(error)") }
        print("movie      \(path)")
        print(
            """
            core       \(movie.coreName.isEmpty ? "(not recorded)" : movie.coreName) \(movie.coreLibrary) \
            \(movie.coreVersion)
            """
        )
        print("system     \(movie.system)")
        print(
            "content    \(movie.contentName)  sha1 \(movie.contentSHA1.isEmpty ? "(not recorded)" : movie.contentSHA1)")
        if !movie.author.isEmpty { print("author     \(movie.author)") }
        for comment in movie.comments { print("comment    \(comment)") }
        print("start      \(movie.startState == nil ? "power-on" : "savestate (\(movie.startState!.count) bytes)")")
        print("frames     \(movie.length) (\(movie.lagFrames) lag)")
        print("rerecords  \(movie.rerecords)")
        print(
            """
            ports      \(movie.log.ports)\(movie.log.analog ? " with analog" : ""); buttons \
            \(movie.buttons.map(\.name).joined(separator: " "))
            """
        )
        let hashed = movie.ramHashes.count
        print(
            "verify     "
                + (!movie.hasVerification
                    ? "none"
                    : hashed == movie.length
                        ? "RAM hash every frame"
                        : "RAM hashes for frames 0–\(hashed - 1) of \(movie.length) (cut short)"))
        for option in movie.options { print("option     \(option.key)=\(option.value)") }
        let branches = ((try? FileManager.default.contentsOfDirectory(atPath: path + ".branches")) ?? []).filter {
            $0.hasSuffix(".state")
        }
        if !branches.isEmpty {
            print("branches   \(branches.sorted().map { String($0.dropLast(6)) }.joined(separator: ", "))")
        }
    }
}
