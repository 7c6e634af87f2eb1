import Emulation
import Foundation

extension MovieCommand {
    /// `movie recover JOURNAL [OUT]`: the journal's movie, written durably. The journal goes only when every
    /// line of it was recovered; otherwise it stays, what was lost is said, and the exit status is 1.
    static func recover(_ raw: [String]) {
        let positionals = Array(raw.prefix { !$0.hasPrefix("-") || $0 == "-" })
        guard (1...2).contains(positionals.count) else {
            usageFail("movie: recover expects JOURNAL [OUT]", command: "movie recover")
        }
        let args: Arguments
        do { args = try Arguments(Array(raw.dropFirst(positionals.count)), spec: subcommand("recover")!) } catch {
            usageFail("movie recover: \(error)", command: "movie recover")
        }
        let journal = positionals[0]
        let output: String
        if positionals.count == 2 {
            output = positionals[1]
        } else if journal.hasSuffix(".journal") {
            output = String(journal.dropLast(".journal".count))
        } else {
            fail("movie recover: \(journal) does not end in .journal: give OUT", code: Exit.usage)
        }
        if FileManager.default.fileExists(atPath: output) && !args.flag("overwrite") {
            fail("\(output) exists; movies are never overwritten (give another OUT, or pass --overwrite)")
        }
        let recovery: MovieJournal.Recovery
        do { recovery = try MovieJournal.recover(path: journal) } catch { fail("\(error)") }
        do { try MovieText.write(recovery.movie, to: output) } catch { fail("\(error)") }
        let movie = recovery.movie
        let recovered = "recovered \(movie.length) frames to \(output) (rerecords \(movie.rerecords))"
        if recovery.exact {
            unlink(journal)
            MovieJournal.syncFolder(of: journal)
            print("movie    \(recovered); \(journal) removed")
            return
        }
        print("movie    \(recovered)")
        fail(lossReport(recovery, journal: journal))
    }

    /// What a recovery could not read, said once: the lines, the frames left empty, the journal kept.
    static func lossReport(_ recovery: MovieJournal.Recovery, journal: String) -> String {
        let shown = 10
        var lines = recovery.problems.prefix(shown).map { "  " + $0 }
        if recovery.problems.count > shown { lines.append("  … and \(recovery.problems.count - shown) more") }
        var report =
            "movie recover: \(journal): \(recovery.problems.count) of \(recovery.lines) journal lines could not be "
            + "read:\n" + lines.joined(separator: "\n")
        let empty = recovery.emptyFrames.reduce(0) { $0 + $1.count }
        if empty > 0 {
            let ranges = recovery.emptyFrames.prefix(shown).map {
                $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)"
            }
            report +=
                "\n\(empty) frame\(empty == 1 ? "" : "s") whose lines were lost \(empty == 1 ? "is" : "are") left "
                + "empty (no buttons), so the later frames keep their place: frame\(empty == 1 ? "" : "s") "
                + ranges.joined(separator: ", ") + (recovery.emptyFrames.count > shown ? ", …" : "")
        }
        report += "\nthe journal is kept (\(journal)); check the movie, then remove the journal"
        return report
    }
}
