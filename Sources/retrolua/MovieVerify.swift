import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Support

/// Headless replays of a movie against its RAM verification log (`movie verify`), or to write one:
/// plans with a `replay`, run by `Run` like every other run.
enum Verify {
    /// Replays and prints "in sync" or the first desync; the exit status (1 on desync).
    static func run(rom: String, moviePath: String, arguments: [String]) -> Int32 {
        let args: Arguments
        do {
            let spec = MovieCommand.subcommand("verify")!
            // play adds --headless --quiet (and --core from the movie) to what the user typed.
            args = try Arguments(arguments, valued: spec.valued, flags: spec.flags.union(["headless", "quiet"]))
        } catch {
            usageFail("movie verify: \(error)", command: "movie verify")
        }
        var config = SessionConfig(contentPath: rom, coreSpec: args.value("core"))
        if let folder = args.value("save-dir") { config.paths.saves = folder }
        if let folder = args.value("system-dir") { config.paths.system = folder }
        var options = MovieEngine.PlayOptions()
        options.force = args.flag("force")
        let outcome = replay(config, movie: .play(path: moviePath, options), kind: .verify)
        guard let replay = outcome.replay else { return outcome.status }
        if let signalled = StopSignals.exitStatus {
            print("stopped  by a signal after \(outcome.frames) of \(replay.length) frames (no verdict)")
            return signalled
        }
        if let problem = replay.problem {
            print("cannot verify: \(problem)")
            return Exit.failure
        }
        if let desync = replay.desync {
            print(
                """
                desync   frame \(desync.frame) of \(replay.length): \(desync.what) (CRC-32 \
                \(hex(desync.actual)), the movie logged \(hex(desync.expected)))
                """
            )
            return Exit.failure
        }
        guard replay.coveredChecks > 0 else {
            print("cannot verify: no frame had anything to hash (\(replay.covers))")
            return Exit.failure
        }
        let seconds = outcome.report.seconds
        // A cut log (verify-frames) verifies its frames only: the count says how far it reached.
        let verified =
            replay.coveredChecks < replay.length ? "\(replay.coveredChecks) of \(replay.length)" : "\(replay.length)"
        print(
            String(
                format: "in sync  %@ frames verified in %.2f s (%.0f fps)", verified, seconds,
                Double(replay.length) / max(seconds, 1e-9)) + ", hashing \(replay.covers)")
        return outcome.status
    }

    /// The movie with a RAM hash logged after every frame of a replay.
    static func addLog(to movie: Movie, rom: String, core: String?) -> Movie {
        var stripped = movie
        stripped.ramHashes = []
        let config = SessionConfig(contentPath: rom, coreSpec: core)
        let outcome = replay(config, movie: .playMovie(stripped, path: nil, MovieEngine.PlayOptions()), kind: .hashRAM)
        if let signalled = StopSignals.exitStatus { fail("stopped by a signal; nothing written", code: signalled) }
        stripped.ramHashes = outcome.replay?.ramHashes ?? []
        stripped.verifyCovers = outcome.replay?.cover
        return stripped
    }

    /// A quiet headless replay; a replay that cannot start is reported and exits with 1.
    private static func replay(_ config: SessionConfig, movie: MoviePlan, kind: RunPlan.Replay) -> RunOutcome {
        var plan = RunPlan(session: config)
        plan.movie = movie
        plan.replay = kind
        plan.frontend.window = false
        plan.report = .none
        plan.quiet = true
        do throws(RunFailure) { return try Run(plan).execute() } catch { fail(error.message) }
    }

    private static func hex(_ value: UInt32) -> String { String(format: "%08x", value) }
}
