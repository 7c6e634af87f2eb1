import Control
import Foundation
import Glibc

/// `--die-with-parent`, kept by the kernel: the run asks to be signalled when its parent process
/// dies (PR_SET_PDEATHSIG), so it ends even while a core hangs inside a frame and nothing polls.
///
/// The signal's handler first checks that the parent really is gone (the kernel also signals when
/// the parent's *thread* that started us ends, while the parent lives on: a launcher's worker
/// thread), then stops the run as SIGTERM does (save RAM written, exit callbacks run) and arms an
/// alarm: a run still going `graceSeconds` later (a core stuck in a frame) is ended by SIGALRM.
/// The serve loop also polls the parent between requests (`ControlSession.parent`).
public enum RunParentDeath {
    /// The process whose death ends the run, once armed.
    public private(set) nonisolated(unsafe) static var parent: pid_t = 0
    /// `RETROLUA_PARENT_PID`: a launcher's own pid, set for the child it starts, so that a parent
    /// that died before the run armed its watch (between fork and here) is noticed; removed from the
    /// environment once read (the run's own children must not inherit it).
    public static let parentVariable = "RETROLUA_PARENT_PID"
    static let graceSeconds: UInt32 = 5
    private static let deathSignal = SIGUSR2

    /// Arms the watch; throws when the parent is already gone (the run must not start then).
    public static func arm() throws(RunFailure) {
        let expected = getppid()
        if let text = getenv(parentVariable).map({ String(cString: $0) }) {
            unsetenv(parentVariable)
            guard let pid = pid_t(text), pid > 1 else {
                throw RunFailure(
                    "run: --die-with-parent: \(parentVariable) must be a process id, got '\(text.prefix(40))'")
            }
            // A launcher that started us through a wrapper that stays (a shell script without exec): the
            // wrapper is the parent the kernel watches. Only a launcher that is gone refuses the run.
            if pid != expected && kill(pid, 0) != 0 && errno == ESRCH {
                throw RunFailure("run: --die-with-parent: the parent process \(pid) is already gone")
            }
        }
        parent = expected
        signal(SIGALRM, SIG_DFL)  // an ignored SIGALRM is inherited across exec: the backstop must end us
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGALRM)
        sigaddset(&unblock, deathSignal)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in RunParentDeath.parentMayBeGone() }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(deathSignal, &action, nil)
        if let prctl = Self.prctl { _ = prctl(prSetPdeathsig, UInt(deathSignal), 0, 0, 0) }
        // Checked after arming: a parent that died before is seen now, one that dies later signals us.
        if getppid() != expected {
            throw RunFailure("run: --die-with-parent: the parent process \(expected) is already gone")
        }
    }

    /// In the signal handler: async-signal-safe calls only.
    private static func parentMayBeGone() {
        guard getppid() != parent else { return }  // a thread of the parent ended, not the parent
        kill(getpid(), SIGTERM)
        alarm(graceSeconds)
    }

    // prctl is variadic in <sys/prctl.h> (Swift imports no variadic C function): the C library's
    // symbol, called with its five register arguments as Linux's ABIs pass them.
    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    private static let prctl: Prctl? = dlsym(nil, "prctl").map { unsafeBitCast($0, to: Prctl.self) }
    private static let prSetPdeathsig: Int32 = 1  // PR_SET_PDEATHSIG
}
