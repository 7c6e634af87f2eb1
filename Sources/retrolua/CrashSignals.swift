import Foundation

/// A crash (a core's bad memory access, a trap) ends the run with one line on stderr and the signal's
/// own status, without Swift's backtracer: that helper process inherits the run's stdout and stderr,
/// and when a core's threads cannot be suspended (melonDS's could not) it stayed blocked for good,
/// holding the output open, so whatever read it (a shell pipe, the Python package, a batch parent)
/// never saw the run end. `SWIFT_BACKTRACE` in the environment (`enable=yes`) keeps Swift's handlers
/// and its backtrace instead.
enum CrashSignals {
    static let signals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT]

    static func install() {
        guard (ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] ?? "").isEmpty else { return }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in CrashSignals.crashed(number) }
            // The default action is back on entry: the raise below ends the process with the signal.
            action.sa_flags = Int32(bitPattern: SA_RESETHAND) | SA_NODEFER
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// In the signal handler: only async-signal-safe calls (write, raise), no allocation.
    private static func crashed(_ number: Int32) {
        let text: StaticString
        switch number {
        case SIGSEGV: text = "retrolua: crashed: SIGSEGV (a bad memory access"
        case SIGBUS: text = "retrolua: crashed: SIGBUS (a bad memory access"
        case SIGILL: text = "retrolua: crashed: SIGILL (an illegal instruction or a failed check"
        case SIGFPE: text = "retrolua: crashed: SIGFPE (an arithmetic fault"
        case SIGTRAP: text = "retrolua: crashed: SIGTRAP (a failed check"
        default: text = "retrolua: crashed: SIGABRT (an abort"
        }
        let tail: StaticString =
            " in the core or in Retrolua); run it again with SWIFT_BACKTRACE=enable=yes for a backtrace\n"
        text.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
        tail.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
        raise(number)
    }
}
