import Glibc
import Synchronization

/// How `retrolua attach` waits — for a game's reply, or for piped input — so that neither can hold it
/// forever: each wait has a deadline, and a stop signal (`stop`, from the signal handlers) ends it at once
/// through a pipe the wait polls beside its descriptor.
enum ConsoleWait {
    enum Outcome {
        case ready
        /// A stop signal came: its number.
        case stopped(Int32)
        case timedOut
    }

    /// Written once by `stop`; polled by every wait. Non-blocking and closed on exec.
    private static let pipe: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }()
    private static let received = Atomic<Int32>(0)
    /// Whether a request is waiting for its reply: Ctrl-C then ends the wait (and attach) rather than
    /// dropping the line being typed.
    static let isWaitingForReply = Atomic<Bool>(false)
    /// Whether the line editor is reading a line: Ctrl-C there drops the line.
    static let isAtPrompt = Atomic<Bool>(false)

    /// Ends every wait from now on (async-signal-safe: an atomic and a write).
    static func stop(_ signal: Int32) {
        _ = received.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
    }

    /// The stop signal received (nil: none).
    static var stopped: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Waits until `descriptor` is ready for `events` (POLLIN, POLLOUT), a stop comes, or `deadline`
    /// (seconds on the monotonic clock; nil: none) passes.
    static func wait(_ descriptor: Int32, for events: Int16, until deadline: Double?) -> Outcome {
        _ = pipe  // made before the first signal can need it
        while true {
            if let number = stopped { return .stopped(number) }
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - now()
                guard left > 0 else { return .timedOut }
                timeout = Int32(min(left * 1000, 60_000).rounded(.up))
            }
            var fds = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0),
            ]
            let count = poll(&fds, nfds_t(fds.count), timeout)
            if count < 0 && errno != EINTR { return .ready }  // the read or write that follows says why
            if let number = stopped { return .stopped(number) }
            if count > 0 && fds[0].revents != 0 { return .ready }
        }
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A signal's name for a message.
    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT (Ctrl-C)"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}
