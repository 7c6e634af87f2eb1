import Foundation
import Host

/// `retrolua run`: the command line becomes a `RunPlan`, which `Run` assembles and runs.
enum RunCommand {
    static let help = """
        usage: retrolua run [ROM] [options]

        Runs ROM on a libretro core. Without ROM, plays the built-in homebrew demo (build/roms/demo.nes)
        on nestopia. With a display it opens a window (keys: arrows, z x a s q w, return, right shift;
        p pause, n frame advance, tab fast-forward, f11 fullscreen, escape quit); without one, or with
        --headless, it runs unpaced. Either way it ends with a summary and a hash of the last frame.

          --core NAME|PATH      core to use (default: chosen from the ROM's extension; see `retrolua cores`)
          --frames N            frames to run (default: until the window closes; headless 600; with
                                scripts, until they finish or call emu.exit)
          --headless            no window, no sound, no pacing
          --screenshot FILE     write the last frame, with the scripts' emu overlay, as PNG
          --option KEY=VALUE    set a core option (repeatable; overrides the option files)
          --save-dir DIR        battery saves folder (default ~/.local/share/retrolua/saves)
          --system-dir DIR      BIOS/system folder (default ~/.local/share/retrolua/system)
          --quiet               print nothing but errors and script output
          --json                end with one line of JSON (core, content, frames, fps, lag, frame hash, exit code,
                                the scripts' emu.result values) instead of the summary
          --verbose             show the core's own log messages

        window, sound and dumps:
          --scale N             initial window size as a multiple of the game's (default 3)
          --integer-scale       scale by whole multiples only
          --fullscreen          start fullscreen (f11 toggles)
          --no-vsync            do not wait for the display's vertical blank
          --smooth              bilinear filtering instead of sharp pixels
          --square-pixels       show pixels square instead of at the core's display aspect ratio
          --sync MODE           pacing: audio (default with sound), vsync (display ≈ core fps), clock
          --speed X             start at X times real time (0 = unthrottled; scripts: emu.speed)
          --no-audio            no sound (pacing falls back to the clock)
          --audio-quality Q     resampler: sinc-fastest (default), sinc-medium, sinc-best, linear, zoh
          --audio-latency MS    target audio queue (default 64)
          --rate-delta D        dynamic rate control strength (default 0.005)
          --wav FILE            also write the resampled audio as a WAV file
          --video FILE          encode video and audio with ffmpeg (e.g. out.mkv)
          --stats               per-frame times (core, scripts, audio, present), drops and underruns on
                                screen and as a summary at exit (also emu.stats() in Lua)
          --window-capture FILE at exit, write the window's game area as drawn (for checking the output)

        scripts (Lua 5.4; API reference: lua/API.md):
          --script FILE         run a script (repeatable; scripts run in this order every frame);
                                LAYER:FILE runs it through a compatibility layer (fceux, bizhawk, … auto)
          --compat LAYER        the layer for every --script without one: a script written for FCEUX,
                                BizHawk, Mesen or mGBA runs as published (auto: chosen from its globals)
          --strict              a failing script ends the run with exit status 1 (default: it is unloaded)
          --watch               reload a script when its file is saved (emulator state is kept)
          --allow-files         let scripts read and write any file you can (default: read their own folder and
                                lua/, read and write the data folder; see README "Security")
          --trust               give scripts everything: os.execute, io.popen, native modules, bytecode, debug,
                                every file
          --sandbox             the default profile, named (accepted for older command lines)
          --data-dir DIR        the data folder (default ~/.local/share/retrolua/data)
          --script-memory MB    memory cap per script (default 256)
          --script-budget N     instructions (millions) a script may run before returning (default 200; counted
                                once an entry has run 20 ms)
          --log FILE            also append script output and failures to FILE

        control socket (off by default; see README "Control socket"):
          --control ADDRESS     serve JSON-line requests on unix:PATH or tcp:127.0.0.1:PORT (loopback only; port 0
                                picks one). Headless, the emulator runs only when a client steps it
          --control-token FILE  tcp: the token clients must send in {"cmd": "hello", "token": …}, read from FILE
                                (default: a new one per run, printed once and kept 0600 beside the data folder)
          --scenario FILE       a Lua script defining reward() and done(), reported with every step
                                (--trust also allows {"cmd": "eval"})
          --die-with-parent     end the run once the process that started it has gone (Python's launcher)
          --exit-on-disconnect  end the run when the last client leaves

        the default frontend (Lua in lua/defaults/, loaded before --script files in a window):
          --no-default NAME     leave out one default (osd, input, hotkeys, rewind, runahead, cheats,
                                achievements, tastudio) or all (repeatable)
          --with-defaults       load the defaults in headless runs too
          A same-named file in ~/.config/retrolua/scripts/ replaces the shipped one.

        """ + MovieOptions.help

    static func main(_ raw: [String]) {
        let plan: RunPlan
        do throws(CommandLineError) {
            guard let parsed = try RunArguments.parse(raw) else { print(help); exit(0) }
            plan = parsed
        } catch {
            fail(error.withHelp ? "\(error.message)\n\n\(help)" : error.message, code: error.code)
        }
        exit(execute(plan))
    }

    /// Runs a plan; its exit status (a run that cannot start is reported and exits here with 1).
    static func execute(_ plan: RunPlan) -> Int32 {
        do throws(RunFailure) { return try Run(plan).execute().status } catch { fail(error.message) }
    }
}
