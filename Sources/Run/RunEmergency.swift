import CLuaShim
import Emulation
import Foundation
import Libretro

/// What a run must not lose when a script never returns and only ending the process stops it (a long C
/// call such as a backtracking `string.find`, a `__gc` finalizer that never returns while its state
/// closes, or no return within a second of SIGTERM): the watchdog thread (lua_shim.c) calls this to write
/// the recording movie and save RAM, then ends the process. Installed until the scripts' states are closed.
enum RunEmergency {
    /// The run's parts while it runs. Read on the watchdog thread while the emulation thread is stuck in
    /// Lua's C code, which touches neither the movie nor save RAM; the process ends right after.
    nonisolated(unsafe) private static var parts: RunParts?

    static func install(_ parts: RunParts) {
        self.parts = parts
        lh_set_emergency { _ in RunEmergency.writeWhatMustSurvive() }
    }

    static func uninstall() {
        lh_set_emergency(nil)
        parts = nil
    }

    private static func writeWhatMustSurvive() {
        guard let parts else { return }
        _ = parts.host.emulator.finishMovie(quiet: true, console: parts.console)
        do { try parts.session.writeSaveRAM() } catch { parts.console.problem("\(error)") }
        ExtractedContent.removeAll()  // _exit skips the atexit handler that would remove them
    }
}
