import Emulation
import Foundation
import Host
import Libretro

/// The movie part of `retrolua run` (`--play-movie`, `--record-movie`): start before scripts load,
/// report and save at the end.
struct MovieRun {
    static let valued: Set<String> = ["play-movie", "record-movie", "author", "from-state", "dump"]
    static let flags: Set<String> = ["read-write", "force", "verify-log", "overwrite", "from-now"]

    static let help = """
        movies (TAS; see README "Movies"):
          --play-movie FILE     play a movie (.rlm, .bk2, .fm2) from its start; headless runs stop at its end
          --read-write          play in read-write mode (state loads rewrite the movie and record)
          --force               play a movie made with another core or content (warns instead of refusing)
          --record-movie FILE   record a new movie from power-on (never overwrites without --overwrite)
          --from-now            record from the current state instead (with --from-state: that state)
          --from-state FILE     load this savestate, then record from it
          --author NAME         the movie's author
          --verify-log          log a RAM hash every frame (for `retrolua movie verify`)
          --dump FILE           encode the run with ffmpeg (the same as --video)
        """

    let playPath: String?
    let recordPath: String?
    var played: Movie?
    let args: Arguments

    init(_ args: Arguments) throws {
        self.args = args
        playPath = args.value("play-movie")
        recordPath = args.value("record-movie")
        if playPath != nil && recordPath != nil {
            throw Arguments.UsageError(description: "--play-movie and --record-movie cannot be combined")
        }
        if recordPath == nil {
            for name in ["author", "from-state"] where args.value(name) != nil {
                throw Arguments.UsageError(description: "--\(name) applies to --record-movie")
            }
            for name in ["verify-log", "overwrite", "from-now"] where args.flag(name) {
                throw Arguments.UsageError(description: "--\(name) applies to --record-movie")
            }
        }
        if playPath == nil, args.flag("read-write") || args.flag("force") {
            throw Arguments.UsageError(description: "--read-write and --force apply to --play-movie")
        }
    }

    var isActive: Bool { playPath != nil || recordPath != nil }

    /// Reads the movie to play (before the session, so its core options apply from the start).
    mutating func prepare(_ config: inout SessionConfig) {
        guard let playPath else { return }
        do { played = try MovieText.read(path: playPath) } catch { fail("\(error)") }
        let given = Set(config.options.map(\.key))
        for option in played!.options where !given.contains(option.key) { config.options.append(option) }
    }

    /// Starts recording or playback; returns the frame limit a headless playback needs.
    func start(_ host: ScriptHost, quiet: Bool) -> Int? {
        let emulator = host.emulator
        if let played, let playPath {
            var options = MovieEngine.PlayOptions()
            options.readOnly = !args.flag("read-write")
            options.force = args.flag("force")
            do {
                for warning in try emulator.playMovie(played, path: playPath, options: options) {
                    FileHandle.standardError.write(Data("retrolua: warning: movie: \(warning)\n".utf8))
                }
            } catch {
                fail("\(error)")
            }
            return played.length
        }
        if let recordPath {
            var options = MovieEngine.RecordOptions()
            options.author = args.value("author") ?? ""
            options.verify = args.flag("verify-log")
            options.overwrite = args.flag("overwrite")
            options.start = args.flag("from-now") || args.value("from-state") != nil ? .now : .power
            if let state = args.value("from-state") {
                do { try emulator.loadState(from: .file(state)) } catch { fail(error.reason) }
            }
            do { try emulator.recordMovie(to: recordPath, options: options) } catch { fail(error.reason) }
        }
        return nil
    }

    /// The movie's part of `--json`.
    func summary(_ host: ScriptHost) -> [String: Any]? {
        guard isActive, let movie = host.emulator.movie.movie else { return nil }
        var summary: [String: Any] = ["path": playPath ?? recordPath ?? "", "length": movie.length, "rerecords": movie.rerecords,
                                      "mode": recordPath != nil ? "record" : "play", "frame": host.emulator.movie.frame]
        if let desync = host.emulator.movie.firstDesync { summary["desync_frame"] = desync.frame }
        return summary
    }

    /// Saves a recording, reports playback; returns the exit status the movie asks for.
    func finish(_ host: ScriptHost, quiet: Bool) -> Int32 {
        let engine = host.emulator.movie
        guard engine.isActive, let movie = engine.movie else { return 0 }
        var status: Int32 = 0
        if engine.savesOnStop {
            // A recording (from --record-movie or a script's movie.record) is written to its own file.
            let path = engine.path ?? "?"
            do {
                try engine.stop()
                if !quiet { print("movie    recorded \(movie.length) frames to \(path) (rerecords \(movie.rerecords))") }
            } catch {
                FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
                status = Exit.failure
            }
            return status
        }
        if engine.hasUnsavedChanges {
            // A read-write session changed the movie; the original stays as it was.
            let source = engine.path ?? "the movie"
            let folder = host.session.paths.data + "/movies"
            let name = (source as NSString).lastPathComponent
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
            let recovered = folder + "/recovered-\(stamp)-" + (name as NSString).deletingPathExtension + ".rlm"
            do {
                try MovieText.write(engine.movie!, to: recovered)
                FileHandle.standardError.write(Data("retrolua: the movie changed in read-write mode; \(source) is untouched, the changes are in \(recovered)\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("retrolua: the movie's changes could not be kept: \(error)\n".utf8))
            }
        }
        if !quiet {
            let played = min(engine.frame, movie.length)
            var line = "movie    \(played)/\(movie.length) frames played, rerecords \(movie.rerecords)"
            if let desync = engine.firstDesync {
                line += "; DESYNC at frame \(desync.frame): \(desync.what)"
            } else if movie.hasVerification {
                line += "; in sync with its verification log"
            }
            print(line)
        }
        return status
    }
}
