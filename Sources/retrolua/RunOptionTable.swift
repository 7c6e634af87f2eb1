import Control
import Frontend
import Run
import Scripting

/// `retrolua run`'s options, by heading: the one table its help, parser, completions and man page use.
extension RunCommand {
    static let spec = CommandSpec(
        name: "run", summary: "run content on a core (the built-in homebrew demo when no ROM is given)",
        usage: ["run [ROM] [options]"],
        description: """
            Runs ROM on a libretro core. Without ROM, plays the built-in homebrew demo (demo.nes) on nestopia.
            With a display it opens a window (its hotkeys are listed below; the pad's keys and every other
            key are in the window and hotkeys guide, docs/guides/window-and-hotkeys.md); without a display,
            or with --headless, it runs unpaced. Either way it ends with a summary and a hash of the last
            frame. SIGINT, SIGTERM and SIGHUP end it the same way, with exit status 130, 143 or 129.
            """,
        groups: [
            OptionGroup([
                Option(
                    "core", "NAME|PATH",
                    "core to use (default: chosen from the ROM's extension; see `retrolua cores`)"),
                Option(
                    "frames", "N",
                    "frames to run (default: until the window closes; headless 600; with scripts, until they finish "
                        + "or call emu.exit)"
                ),
                Option("headless", nil, "no window, no sound, no pacing"),
                Option("screenshot", "FILE", "write the last frame, with the scripts' emu overlay, as PNG"),
                Option("option", "KEY=VALUE", "set a core option (repeatable; overrides the option files)"),
                Option("save-dir", "DIR", "battery saves folder (default ~/.local/share/retrolua/saves)"),
                Option("system-dir", "DIR", "BIOS/system folder (default ~/.local/share/retrolua/system)"),
                Option("quiet", nil, "print nothing but errors and script output (no notices, summary or progress)"),
                Option(
                    "json", nil,
                    "end with one line of JSON (core, content, frames, fps, lag, frame hash, exit code, the scripts' "
                        + "emu.result values) instead of the summary"
                ),
                Option("verbose", nil, "show the core's own log messages"),
            ]),
            OptionGroup(
                "window, sound and dumps",
                [
                    Option("scale", "N", "initial window size as a multiple of the game's (default 3)"),
                    Option("integer-scale", nil, "scale by whole multiples only"),
                    Option("fullscreen", nil, "start fullscreen (f11 toggles)"),
                    Option("no-vsync", nil, "do not wait for the display's vertical blank"),
                    Option("smooth", nil, "bilinear filtering instead of sharp pixels"),
                    Option("square-pixels", nil, "show pixels square instead of at the core's display aspect ratio"),
                    Option(
                        "sync", "MODE", "pacing: audio (default with sound), vsync (display ≈ core fps), clock",
                        choices: ["audio", "vsync", "clock"]),
                    Option("speed", "X", "start at X times real time (0 = unthrottled; scripts: emu.speed)"),
                    Option("no-audio", nil, "no sound (pacing falls back to the clock)"),
                    Option(
                        "audio-quality", "Q", "resampler: sinc-fastest (default), sinc-medium, sinc-best, linear, zoh",
                        choices: ["sinc-fastest", "sinc-medium", "sinc-best", "linear", "zoh"]),
                    Option("audio-latency", "MS", "target audio queue (default 64)"),
                    Option("rate-delta", "D", "dynamic rate control strength (default 0.005)"),
                    Option("wav", "FILE", "also write the resampled audio as a WAV file"),
                    Option("video", "FILE", "encode video and audio with ffmpeg (e.g. out.mkv)"),
                    Option(
                        "stats", nil,
                        "per-frame times (core, scripts, audio, present), skipped frames and underruns on screen and "
                            + "as a summary at exit (also emu.stats() in Lua)"
                    ),
                    Option(
                        "window-capture", "FILE",
                        "at exit, write the window's game area as drawn (for checking the output)"),
                    Option(
                        "speak", nil,
                        "read on-screen messages aloud with espeak-ng (for blind and low-vision players)"),
                ]),
            OptionGroup(
                "scripts (Lua 5.4; API reference: lua/API.md)",
                [
                    Option(
                        "script", "FILE",
                        "run a script (repeatable; scripts run in this order every frame); LAYER:FILE runs it through "
                            + "a compatibility layer (fceux, bizhawk, … auto)"
                    ),
                    Option(
                        "compat", "LAYER[:OPTIONS]",
                        "the layer for every --script without one: a script written for FCEUX, BizHawk, Mesen or "
                            + "mGBA runs as published (auto: chosen from its globals); OPTIONS go to the layer "
                            + "(bizhawk:version=2.9.1,socket=HOST:PORT)",
                        choices: ["auto", "fceux", "bizhawk", "mesen", "mgba"]),
                    Option("strict", nil, "a failing script ends the run at once, status 1 (default: it is unloaded)"),
                    Option("watch", nil, "reload a script when its file is saved (emulator state is kept)"),
                    Option(
                        "allow-files", nil,
                        "let scripts read and write any file you can (default: read their own folder and lua/, read "
                            + "and write the data folder; see the Security guide, docs/guides/security.md)"
                    ),
                    Option(
                        "trust", nil,
                        "give scripts everything: os.execute, io.popen, native modules, bytecode, debug, every file"),
                    Option(
                        "allow-net", nil,
                        "let scripts open TCP and UDP sockets on loopback (the net module, LuaSocket); =HOST[:PORT],… "
                            + "also reaches those addresses (repeatable; * binds every address). The netplay default "
                            + "reaches everything with --netplay",
                        inlineValue: "HOST[:PORT],…"),
                    Option("sandbox", nil, "the default profile, named (accepted for older command lines)"),
                    Option("data-dir", "DIR", "the data folder (default ~/.local/share/retrolua/data)"),
                    Option("script-memory", "MB", "memory cap per script (default 256)"),
                    Option(
                        "script-budget", "N",
                        "instructions (millions) a script may run before returning (default 200; counted once an "
                            + "entry has run 20 ms)"
                    ),
                    Option("log", "FILE", "also append script output, failures and on-screen messages to FILE"),
                ]),
            OptionGroup(
                "control socket and console (a windowed run listens on $XDG_RUNTIME_DIR/retrolua/PID.sock for "
                    + "`retrolua attach`; see the Control socket guide, docs/guides/control-socket.md)",
                [
                    Option(
                        "console", nil,
                        "the Lua console on this terminal: line editing, history, Tab completion; Ctrl-C drops the "
                            + "line, Ctrl-D ends the run. Headless, the game runs only when stepped"
                    ),
                    Option("no-control", nil, "no socket for `retrolua attach` in a windowed run"),
                    Option(
                        "control", "ADDRESS",
                        "serve JSON-line requests on unix:PATH or tcp:127.0.0.1:PORT (loopback only; port 0 picks "
                            + "one). Headless, the emulator runs only when a client steps it"
                    ),
                    Option(
                        "control-token", "FILE",
                        "tcp: the token clients must send in {\"cmd\": \"hello\", \"token\": …}, read from FILE "
                            + "(default: a new one per run, printed once and kept 0600 beside the data folder)"
                    ),
                    Option(
                        "scenario", "FILE",
                        "a Lua script defining reward() and done(), reported with every step (--trust also allows "
                            + "{\"cmd\": \"eval\"})"
                    ),
                    Option(
                        "die-with-parent", nil,
                        "end the run once the process that started it has gone (Python's launcher)"),
                    Option("exit-on-disconnect", nil, "end the run when the last client leaves"),
                ]),
            OptionGroup(
                "MCP for agents (see docs/guides/mcp.md, \"Serving MCP from a running game\")",
                [
                    Option(
                        "mcp", nil,
                        "serve MCP (Streamable HTTP) at http://HOST:PORT/mcp, loopback only: PORT (default "
                            + "\(McpPlan.defaultPort)), 127.0.0.1:PORT, [::1]:PORT or localhost:PORT; clients send "
                            + "Authorization: Bearer TOKEN. Runs python3 -m retrolua.mcp (pip install "
                            + "'retrolua[mcp]') on the run's socket. Headless, the game runs only when the agent "
                            + "steps it",
                        inlineValue: "[HOST:]PORT"),
                    Option(
                        "mcp-token", "FILE",
                        "the bearer token, read from FILE (default: a new one per run, kept 0600 in "
                            + "mcp-PORT.token beside the data folder)"),
                ]),
            OptionGroup(
                "the default frontend (Lua in lua/defaults/, loaded before --script files in a window)",
                note: "A same-named file in ~/.config/retrolua/scripts/ replaces the shipped one.",
                [
                    Option(
                        "no-default", "NAME",
                        "leave out one default (\(DefaultFrontend.names.joined(separator: ", "))) or all (repeatable)",
                        choices: DefaultFrontend.names + ["all"]),
                    Option("with-defaults", nil, "load the defaults in headless runs too"),
                ]),
            OptionGroup(
                "netplay (two players, rollback; see the Netplay guide, docs/guides/netplay.md)",
                [
                    Option(
                        "netplay", "host[:PORT]|join ADDRESS",
                        "host a session on UDP port PORT (default \(NetplayRequest.defaultPort)) or join the host at "
                            + "ADDRESS (HOST[:PORT]); loads the netplay default, headless too"),
                    Option(
                        "netplay-relay", "HOST[:PORT]",
                        "meet through this relay (`retrolua netplay-relay`, default port "
                            + "\(NetplayRelayDefaults.port)) instead: both players dial out, no port to open; "
                            + "with --netplay host or --netplay join (no ADDRESS) and --netplay-room"),
                    Option(
                        "netplay-room", "SECRET",
                        "the secret both players share: with the content's SHA-1 it names the room on the relay "
                            + "and keys every packet, which the relay can neither read the secret from nor forge"),
                    Option("netplay-delay", "N", "frames of input delay, 0…8 (default 2)"),
                    Option(
                        "spectate", nil,
                        "with --netplay join: watch the session (both players' confirmed inputs, from the "
                            + "host's state when joining mid-game) without playing"),
                    Option(
                        "netplay-options", "host",
                        "joining: take the host's core options where they change emulation, for this session, "
                            + "instead of being refused (display-only options never have to match)",
                        choices: ["host"]),
                ]),
            OptionGroup(
                "movies (TAS; see the Movies and TAS editor guide, docs/guides/tas.md)",
                [
                    Option(
                        "play-movie", "FILE",
                        "play a movie (.rlm, .bk2, .fm2, imports .fcm .fmv .vmv) from its start; headless runs stop "
                            + "at its end"),
                    Option("read-write", nil, "play in read-write mode (state loads rewrite the movie and record)"),
                    Option("force", nil, "play a movie made with another core or content (warns instead of refusing)"),
                    Option(
                        "record-movie", "FILE",
                        "record a new movie from power-on (never overwrites without --overwrite)"),
                    Option("overwrite", nil, "let --record-movie replace an existing file"),
                    Option("from-now", nil, "record from the current state instead (with --from-state: that state)"),
                    Option("from-state", "FILE", "load this savestate, then record from it"),
                    Option("author", "NAME", "the movie's author"),
                    Option("verify-log", nil, "log a RAM hash every frame (for `retrolua movie verify`)"),
                    Option("dump", "FILE", "encode the run with ffmpeg (the same as --video)"),
                    Option(
                        "tastudio", "FILE",
                        "open FILE in the TAS editor (played read-write; a new file is recorded from power-on); see "
                            + "docs/guides/tas.md, \"The TAS editor\""),
                ]),
        ])
}
