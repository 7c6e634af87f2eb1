import Emulation
import Foundation

extension MovieCommand {
    /// `movie recover JOURNAL [OUT]`: the journal's movie, written durably; the journal goes once it is.
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
        if let note = recovery.note { FileHandle.standardError.write(Data("retrolua: \(journal): \(note)\n".utf8)) }
        do { try MovieText.write(recovery.movie, to: output) } catch { fail("\(error)") }
        unlink(journal)
        let movie = recovery.movie
        print(
            "movie    recovered \(movie.length) frames to \(output) (rerecords \(movie.rerecords)); \(journal) removed")
    }
}
