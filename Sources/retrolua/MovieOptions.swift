import Emulation
import Foundation
import Host

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
}
