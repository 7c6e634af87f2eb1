import Emulation
import Dispatch
import CLuaShim
import Glibc
import Synchronization

/// SIGINT and SIGTERM end the run like closing the window: the frame loop stops at the next frame and
/// save RAM, dumps and scripts' exit callbacks are written and run as usual. A script running at the
/// time is interrupted; one stuck in a long C call ends the process a second later (RunEmergency).
public enum StopSignals {
    private static let requested = Atomic<Bool>(false)
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static func install() {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                requested.store(true, ordering: .relaxed)
                lh_request_stop()  // A script running now is stopped too (the watchdog in lua_shim.c).
            }
            source.resume()
            sources.append(source)
        }
    }

    public static var isRequested: Bool { requested.load(ordering: .relaxed) }
}
