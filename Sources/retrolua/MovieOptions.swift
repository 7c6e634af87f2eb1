import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro
import Support

/// The movie options of `retrolua run` (`--play-movie`, `--record-movie` and what goes with them),
/// read into the plan's `MoviePlan`.
enum MovieOptions {
    /// The movie to play or record, if any; options that apply to the other mode are refused.
    static func plan(_ args: Arguments) throws(Arguments.UsageError) -> MoviePlan? {
        let playPath = args.value("play-movie")
        var recordPath = args.value("record-movie")
        if playPath != nil && recordPath != nil {
            throw Arguments.UsageError(description: "--play-movie and --record-movie cannot be combined")
        }
        if let editing = args.value("tastudio") {
            guard playPath == nil && recordPath == nil else {
                throw Arguments.UsageError(
                    description: "--tastudio opens its own movie: drop --play-movie/--record-movie")
            }
            if FileManager.default.fileExists(atPath: editing) {
                var options = MovieEngine.PlayOptions()
                options.readOnly = false
                options.force = args.flag("force")
                return .play(path: editing, options)
            }
            recordPath = editing
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
        if let playPath {
            var options = MovieEngine.PlayOptions()
            options.readOnly = !args.flag("read-write")
            options.force = args.flag("force")
            return .play(path: playPath, options)
        }
        guard let recordPath else { return nil }
        var options = MovieEngine.RecordOptions()
        options.author = args.value("author") ?? ""
        options.verify = args.flag("verify-log")
        options.overwrite = args.flag("overwrite")
        options.start = args.flag("from-now") || args.value("from-state") != nil ? .now : .power
        return .record(path: recordPath, options, fromState: args.value("from-state"))
    }

    /// The content a movie was made with, when no ROM is given (`movie play`, `movie verify`, `run --tastudio
    /// MOVIE`): the file it names beside the movie, in the working folder or among the built ROMs, else the
    /// built-in demo, whichever the movie's content rule accepts in full, its name too
    /// (`MovieEngine.contentMismatch`). Throws
    /// naming the movie's content and checksum when none does.
    static func content(for movie: Movie, moviePath: String) throws(CommandLineError) -> String {
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
            if let content = try? Content(path: path), MovieEngine.contentMismatch(movie, content) == nil {
                return path
            }
        }
        let checksum =
            !movie.contentSHA1.isEmpty
            ? " (SHA-1 \(movie.contentSHA1))"
            : !movie.contentIdentity.isEmpty
                ? " (headerless SHA-1 \(movie.contentIdentity))"
                : !movie.contentMD5.isEmpty ? " (MD5 \(movie.contentMD5))" : ""
        throw CommandLineError(
            message: """
                \(moviePath): give the ROM: the movie was recorded with \
                \(movie.contentName.isEmpty ? "unnamed content" : movie.contentName)\(checksum), not found beside \
                the movie
                """, code: Exit.failure)
    }
}
