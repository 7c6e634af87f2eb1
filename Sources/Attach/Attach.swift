import Foundation
import Glibc
import Support
import Synchronization

/// `retrolua attach` and `run --console`: the console on this terminal, into a running game.
public enum Attach {
    /// Seconds `attach` waits for each of a game's replies unless told otherwise (`--timeout`).
    public static let defaultTimeout = ConsoleConnection.defaultTimeout

    /// Attaches to the game at `address` (`unix:PATH`, a socket's path, or a process id), or to the one
    /// running game of this user; runs the console until end of input. Each of the game's replies may take
    /// `timeout` seconds (nil: no limit). The exit status: 128 + the signal when SIGINT (while waiting for
    /// the game or for piped input), SIGTERM or SIGHUP ended it.
    public static func main(address: String?, timeout: Double? = defaultTimeout) -> Int32 {
        StopSignals.install()
        // Ctrl-C drops the line being typed, or ends a wait (for the game's reply, for piped input);
        // SIGTERM and SIGHUP end the console at once. The terminal is given back either way.
        StopSignals.divertInterrupt {
            if ConsoleWait.isAtPrompt.load(ordering: .relaxed)
                && !ConsoleWait.isWaitingForReply.load(ordering: .relaxed)
            {
                LineEditor.interrupt()
            } else {
                ConsoleWait.stop(SIGINT)
                LineEditor.shutdown()
            }
        }
        StopSignals.onStop { number in
            ConsoleWait.stop(number)
            LineEditor.shutdown()
        }
        var status: Int32 = 1
        do {
            let path = try socketPath(for: address, timeout: timeout)
            status = ConsoleREPL(try ConsoleConnection(path: path, timeout: timeout)).run()
        } catch {
            FileHandle.standardError.write(Data("retrolua attach: \(error)\n".utf8))
        }
        return ConsoleWait.stopped.map { 128 + $0 } ?? status
    }

    /// Starts the console for a run of this process (`--console`) on a thread of its own, once the run's
    /// socket at `path` answers; leaving it (Ctrl-D) ends the run. Call `finish` when the run ends: the
    /// terminal is given back before the process exits.
    /// `interrupted` is what else Ctrl-C does (the run stops a chunk that is running frames).
    public static func startConsole(socket path: String, interrupted: @escaping @Sendable () -> Void) -> ConsoleThread {
        let thread = ConsoleThread()
        StopSignals.divertInterrupt {
            LineEditor.interrupt()
            interrupted()
        }
        Thread.detachNewThread {
            defer { thread.done.signal() }
            // The run opens its socket after loading the core and scripts: wait for it (a few seconds at most).
            var connection: ConsoleConnection?
            for _ in 0..<750 where connection == nil && !thread.finishing.load(ordering: .relaxed) {
                connection = try? ConsoleConnection(path: path)
                if connection == nil { usleep(20_000) }
            }
            guard let connection else { return }
            _ = ConsoleREPL(connection).run()
            if !thread.finishing.load(ordering: .relaxed) { _ = try? connection.request(["cmd": "quit"]) }
        }
        return thread
    }

    /// The socket an address names, or the one running game's.
    static func socketPath(for address: String?, timeout: Double?) throws(AttachError) -> String {
        if let address {
            if address.hasPrefix("unix:") { return String(address.dropFirst(5)) }
            if let pid = Int32(address) {
                do { return try UserRuntimeFolder.socket(pid: pid) } catch { throw AttachError("\(error)") }
            }
            if address.hasPrefix("tcp:") {
                throw AttachError("attach speaks to Unix sockets (unix:PATH); a tcp: socket needs its token")
            }
            return address
        }
        return try RunningGames.theOne(timeout: timeout)
    }
}

/// The console's thread in a run (`--console`).
public final class ConsoleThread: Sendable {
    let done = DispatchSemaphore(value: 0)
    let finishing = Atomic<Bool>(false)

    /// The run ended: the console stops reading and gives the terminal back.
    public func finish() {
        finishing.store(true, ordering: .relaxed)
        LineEditor.shutdown()
        _ = done.wait(timeout: .now() + 2)
    }
}
