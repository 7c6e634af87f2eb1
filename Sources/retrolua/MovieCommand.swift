import Emulation
import Foundation
import Host
import Libretro
import Support

/// `retrolua movie record|play|verify|convert|info`.
enum MovieCommand {
    static let help = """
        usage: retrolua movie record MOVIE [ROM] [run options]
               retrolua movie play MOVIE [ROM] [run options]
               retrolua movie verify MOVIE [ROM] [--core NAME] [--force]
               retrolua movie convert IN OUT [--rom ROM] [--core NAME] [--overwrite]
               retrolua movie info MOVIE
               retrolua movie recover JOURNAL [OUT] [--overwrite]

        Movies are .rlm (Retrolua's text format), .bk2 (BizHawk) or .fm2 (FCEUX), chosen by extension.
          record   record from power-on (or --from-now, --from-state FILE); in a window the player plays,
                   headless a --script drives the input; written when the run ends
          play     play back: in a window at normal speed, headless as fast as possible up to the movie's
                   end (--dump FILE encodes it; --read-write lets state loads rewrite it)
          verify   replay headless against the movie's RAM verification log (recorded with --verify-log):
                   prints "in sync" (exit 0) or the first frame whose RAM differs (exit 1)
          convert  between formats; --rom fills in the content's name and SHA-1 (imports lack them)
          info     the header, length, lag frames, rerecords and branches
          recover  a recording that did not finish (a crash, a kill, a power loss) from its journal
                   (MOVIE.rlm.journal, kept beside the movie while it records): writes the movie to OUT
                   (default: MOVIE.rlm), reports the frames recovered and removes the journal
        Without ROM, the movie's content is looked for by name beside the movie, in the working folder and
        among the built example ROMs (build/roms/), and checked by SHA-1.
        `retrolua run --help` lists the run options.
        """

    static func main(_ raw: [String]) {
        guard let sub = raw.first else { print(help); exit(Exit.usage) }
        let rest = Array(raw.dropFirst())
        switch sub {
        case "record": record(rest)
        case "play": play(rest, verify: false)
        case "verify": play(rest, verify: true)
        case "convert": convert(rest)
        case "info": info(rest)
        case "recover": recover(rest)
        case "--help", "-h", "help": print(help)
        default: fail("movie: unknown subcommand '\(sub)'\n\n\(help)", code: Exit.usage)
        }
    }

    /// Positionals of a `movie` subcommand, split from the options that follow them.
    private static func split(_ raw: [String], count: Int, usage: String) -> (positionals: [String], options: [String])
    {
        let positionals = Array(raw.prefix { !$0.hasPrefix("--") })
        guard (1...count).contains(positionals.count) else { fail("movie: \(usage)\n\n\(help)", code: Exit.usage) }
        return (positionals, Array(raw.dropFirst(positionals.count)))
    }

    private static func record(_ raw: [String]) {
        let (positionals, options) = split(raw, count: 2, usage: "record expects MOVIE [ROM]")
        RunCommand.main(Array(positionals.dropFirst()) + ["--record-movie", positionals[0]] + options)
    }

    private static func play(_ raw: [String], verify: Bool) {
        let (positionals, options) = split(raw, count: 2, usage: "\(verify ? "verify" : "play") expects MOVIE [ROM]")
        let moviePath = positionals[0]
        let movie: Movie
        do { movie = try MovieText.read(path: moviePath) } catch { fail("\(error)") }
        var arguments = options
        if !options.contains(where: { $0 == "--core" || $0.hasPrefix("--core=") }) && !movie.coreName.isEmpty {
            arguments += ["--core", movie.coreName]
        }
        let rom = positionals.count > 1 ? positionals[1] : findContent(for: movie, moviePath: moviePath)
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

    /// The content a movie names: beside the movie, in the working folder, or the built-in demo.
    static func findContent(for movie: Movie, moviePath: String) -> String {
        let folder = FilePath.folder(of: moviePath)
        var candidates: [String] = []
        if !movie.contentName.isEmpty {
            candidates += [folder + "/" + movie.contentName, movie.contentName]
        }
        if let demo = HostPaths.defaultContent() {
            // The project's built ROMs (build/roms/), where the examples' movies were made.
            if !movie.contentName.isEmpty {
                candidates.append(FilePath.folder(of: demo) + "/" + movie.contentName)
            }
            candidates.append(demo)
        }
        for path in candidates where FileManager.default.isReadableFile(atPath: path) {
            guard !movie.contentSHA1.isEmpty else { return path }
            if let content = try? Content(path: path), content.sha1 == movie.contentSHA1 { return path }
        }
        fail(
            """
            \(moviePath): give the ROM: the movie was recorded with \
            \(movie.contentName.isEmpty ? "unnamed content" : movie.contentName)\
            \(movie.contentSHA1.isEmpty ? "" : " (SHA-1 \(movie.contentSHA1))"), not found beside the movie
            """
        )
    }

    private static func convert(_ raw: [String]) {
        let (positionals, rest) = split(raw, count: 2, usage: "convert expects IN OUT")
        guard positionals.count == 2 else { fail("movie: convert expects IN OUT\n\n\(help)", code: Exit.usage) }
        let args: Arguments
        do { args = try Arguments(rest, valued: ["rom", "core"], flags: ["overwrite", "add-verify"]) } catch {
            fail("movie convert: \(error)", code: Exit.usage)
        }
        let (input, output) = (positionals[0], positionals[1])
        if FileManager.default.fileExists(atPath: output) && !args.flag("overwrite") {
            fail("\(output) exists; movies are never overwritten (pass --overwrite)")
        }
        var movie: Movie
        do { movie = try MovieText.read(path: input) } catch { fail("\(error)") }
        if let rom = args.value("rom") {
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
            guard let rom = args.value("rom") else {
                fail("movie convert: --add-verify needs --rom (the movie is replayed)", code: Exit.usage)
            }
            movie = Verify.addLog(
                to: movie, rom: rom, core: args.value("core") ?? (movie.coreName.isEmpty ? nil : movie.coreName))
        }
        do { try MovieText.write(movie, to: output) } catch { fail("\(error)") }
        print("movie    \(movie.length) frames written to \(output)")
    }

    private static func info(_ raw: [String]) {
        let (positionals, _) = split(raw, count: 1, usage: "info expects MOVIE")
        let path = positionals[0]
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
