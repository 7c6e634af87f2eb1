import Emulation
import Foundation
import Support

/// Headless replays of the run's movie, as fast as the core goes, for as long as it plays.
enum RunReplay {
    static func run(_ kind: RunPlan.Replay, emulator: Emulator, length: Int) -> (RunReport, ReplayOutcome) {
        let report: RunReport
        var outcome = ReplayOutcome(length: length)
        switch kind {
        case .verify:
            var progress = ProgressLine()
            report = emulator.runFrames(
                until: { emulator.movie.mode != .play || emulator.movie.firstDesync != nil || StopSignals.isRequested },
                afterFrame: { _ in progress.update(frames: emulator.movie.frame, of: length) })
            progress.finish()
            outcome.desync = emulator.movie.firstDesync
        case .hashRAM:
            outcome.ramHashes.reserveCapacity(length)
            var pictures: [UInt32] = []
            report = emulator.runFrames(until: { emulator.movie.mode != .play || StopSignals.isRequested }) { _ in
                let (hash, picture) = emulator.movie.logHashes()
                outcome.ramHashes.append(hash)
                pictures.append(picture)
            }
            // A log of memory that never changed gives way to the picture's (MovieVerification.swift).
            outcome.ramHashes = emulator.movie.logToKeep(hashes: outcome.ramHashes, pictures: pictures)
        }
        outcome.cover = emulator.movie.cover
        outcome.covers = emulator.movie.describe(emulator.movie.cover)
        outcome.problem = emulator.movie.verificationProblem
        outcome.coveredChecks = emulator.movie.coveredChecks
        return (report, outcome)
    }
}
