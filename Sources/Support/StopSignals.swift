import Dispatch
import Glibc
import Synchronization

/// SIGINT, SIGTERM and SIGHUP end the run like closing the window: every loop (window, headless,
/// control socket, replays) stops before its next frame, and save RAM, the movie, dumps, the report
/// and scripts' exit callbacks are written and run as usual. The run then exits with 128 + the signal
/// (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell reports a process the signal ended. A script
/// running at the time is interrupted (the run registers that with `onStop`); one stuck in a long C call
/// ends the process a second later (RunEmergency).
public enum StopSignals {
    /// The first stop signal received (0: none).
    private static let received = Atomic<Int32>(0)
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Called with each stop signal (on a dispatch queue), for what must act at once rather than at the
    /// next look at the flag: `batch` stops its jobs' processes.
    private static let handlers = Mutex<[@Sendable (Int32) -> Void]>([])
    /// While set, SIGINT calls this instead of stopping the run: the console's Ctrl-C drops its line.
    private static let interruptDiversion = Mutex<(@Sendable () -> Void)?>(nil)

    /// From now on SIGINT runs `handler` and stops nothing (SIGTERM and SIGHUP still stop the run).
    public static func divertInterrupt(to handler: @escaping @Sendable () -> Void) {
        interruptDiversion.withLock { $0 = handler }
        install()
    }

    /// Runs `handler` for every stop signal from now on (the signals are installed if they were not).
    public static func onStop(_ handler: @escaping @Sendable (Int32) -> Void) {
        handlers.withLock { $0.append(handler) }
        install()
    }

    public static func install() {
        guard sources.isEmpty else { return }
        for number in handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if number == SIGINT, let diverted = interruptDiversion.withLock({ $0 }) {
                    diverted()
                    return
                }
                _ = received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
                for handler in handlers.withLock({ $0 }) { handler(number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    public static var isRequested: Bool { received.load(ordering: .relaxed) != 0 }

    /// The exit status for the signal that stopped the run (nil: none did).
    public static var exitStatus: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : 128 + number
    }
}
