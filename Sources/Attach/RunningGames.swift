import Foundation
import Glibc
import Support

/// This user's running games, found by their sockets in the runtime folder (`UserRuntimeFolder`).
enum RunningGames {
    /// The socket of the one game running; an error listing them when there are several, or saying
    /// where it looked when there is none. Sockets left by runs that ended are removed on the way; one
    /// whose game does not answer within `timeout` seconds is passed over; a stop signal ends the search.
    static func theOne(timeout: Double?) throws(AttachError) -> String {
        var live: [(path: String, summary: String)] = []
        for path in UserRuntimeFolder.sockets() {
            do {
                let connection = try ConsoleConnection(path: path, timeout: timeout)
                let info = (try? connection.request(["cmd": "info"])) ?? [:]
                let pid = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
                let content = TerminalText.printable(info["content"] as? String ?? "?")
                let core = TerminalText.printable(info["core"] as? String ?? "?")
                live.append((path, "\(pid)\t\(content) on \(core), frame \(info["frame"] as? Int ?? 0)"))
            } catch {
                if error.stopped != nil { throw error }
                if error.errorNumber == ECONNREFUSED { unlink(path) }  // its run ended without removing it
            }
        }
        switch live.count {
        case 1: return live[0].path
        case 0:
            let folder = (try? UserRuntimeFolder.prepared()) ?? "the runtime folder"
            throw AttachError(
                "no running game found in \(folder) (every windowed run listens there; headless: run --console)")
        default:
            let list = live.map { "  " + $0.summary }.joined(separator: "\n")
            throw AttachError("several games are running; name one by its process id:\n\(list)")
        }
    }
}
