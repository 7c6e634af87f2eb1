import Emulation
import Foundation

/// A run's movie (`RunPlan.movie`): read before the session, started before scripts load, reported
/// and saved at the end.
struct RunMovie {
    let plan: MoviePlan
    /// The movie to play, read in `prepare`.
    private(set) var played: Movie?

    init(_ plan: MoviePlan) { self.plan = plan }

    /// Reads the movie to play; its core options join the session's (those given win).
    mutating func prepare(_ config: inout SessionConfig) throws(RunFailure) {
        switch plan {
        case .play(let path, _):
            do { played = try MovieText.read(path: path) } catch { throw RunFailure("\(error)") }
        case .playMovie(let movie, _, _):
            played = movie
        case .record:
            return
        }
        let given = Set(config.options.map(\.key))
        for option in played!.options where !given.contains(option.key) { config.options.append(option) }
    }

    /// Starts playback or recording; returns the frame limit a headless playback needs.
    func start(_ emulator: Emulator, console: RunConsole) throws(RunFailure) -> Int? {
        switch plan {
        case .play(_, let options), .playMovie(_, _, let options):
            do {
                for warning in try emulator.playMovie(played!, path: plan.path, options: options) {
                    console.problem("warning: movie: \(warning)")
                }
            } catch {
                throw RunFailure("\(error)")
            }
            return played!.length
        case .record(let path, let options, let state):
            if let state {
                do { try emulator.loadState(from: .file(state)) } catch { throw RunFailure(error.reason) }
            }
            do { try emulator.recordMovie(to: path, options: options) } catch {
                throw RunFailure(error.reason.replacingOccurrences(of: MovieEngine.overwriteHint, with: overwriteHint))
            }
            return nil
        }
    }

    /// The command line's spelling of the option that allows recording over a file.
    private var overwriteHint: String { "choose another name, or pass --overwrite" }

    /// The movie's part of `--json`.
    func summary(_ emulator: Emulator) -> [String: Any]? {
        guard let movie = emulator.movie.movie else { return nil }
        var summary: [String: Any] = [
            "path": plan.path ?? "", "length": movie.length, "rerecords": movie.rerecords,
            "mode": plan.isRecording ? "record" : "play", "frame": emulator.movie.frame,
        ]
        if let desync = emulator.movie.firstDesync { summary["desync_frame"] = desync.frame }
        if movie.hasVerification { summary["verified_frames"] = movie.ramHashes.count }
        return summary
    }
}

extension Emulator {
    /// Saves a recording, keeps a read-write session's changes, reports playback; the exit status the
    /// movie asks for. Also ends movies scripts started (`movie.record`).
    func finishMovie(quiet: Bool, console: RunConsole) -> Int32 {
        let engine = movie
        guard engine.isActive, let movie = engine.movie else { return 0 }
        if engine.savesOnStop {
            // A recording (from --record-movie or a script's movie.record) is written to its own file.
            let path = engine.path ?? "?"
            do {
                try engine.stop()
                if !quiet {
                    console.print("movie    recorded \(movie.length) frames to \(path) (rerecords \(movie.rerecords))")
                }
                if let cut = engine.verificationTruncated {
                    console.problem(
                        "movie: its verification log ends at frame \(cut) of \(movie.length) (verify-frames)")
                }
            } catch {
                console.problem("\(error)")
                return 1
            }
            return 0
        }
        if engine.hasUnsavedChanges {
            if engine.editorOpened, engine.path != nil {
                // Edited in the TAS editor: the changes go to the movie opened, its previous file kept beside.
                do {
                    let backup = try engine.save()
                    if !quiet {
                        console.print(
                            "movie    saved the TAS editor's changes to \(engine.path ?? "?")"
                                + (backup.map { " (the previous file is \($0))" } ?? ""))
                    }
                } catch {
                    console.problem("movie: \(error)")
                    keepChanges(of: engine, console: console)
                }
            } else {
                keepChanges(of: engine, console: console)
            }
        }
        if !quiet {
            let played = min(engine.frame, movie.length)
            var line = "movie    \(played)/\(movie.length) frames played, rerecords \(movie.rerecords)"
            if let cut = engine.verificationTruncated {
                line += "; the verification log ends at frame \(cut) of \(movie.length)"
            }
            if let desync = engine.firstDesync {
                line += "; DESYNC at frame \(desync.frame): \(desync.what)"
            } else if let problem = engine.verificationProblem {
                line += "; not verified: \(problem)"
            } else if movie.hasVerification && engine.coveredChecks > 0 {
                line += "; in sync with its verification log (\(engine.describe(engine.cover)))"
            }
            console.print(line)
        }
        return 0
    }

    /// A read-write session changed the movie; the original stays as it was, the changes go beside.
    private func keepChanges(of engine: MovieEngine, console: RunConsole) {
        let source = engine.path ?? "the movie"
        let folder = session.paths.data + "/movies"
        let name = (source as NSString).lastPathComponent
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let recovered = folder + "/recovered-\(stamp)-" + (name as NSString).deletingPathExtension + ".rlm"
        do {
            try MovieText.write(engine.movie!, to: recovered)
            console.problem(
                "the movie changed in read-write mode; \(source) is untouched, the changes are in \(recovered)")
        } catch {
            console.problem("the movie's changes could not be kept: \(error)")
        }
    }
}
