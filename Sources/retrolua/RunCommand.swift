import Emulation
import Foundation
import Host
import Libretro
import Media

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
          --script FILE         run a script (repeatable; scripts run in this order every frame)
          --strict              a failing script ends the run with exit status 1 (default: it is unloaded)
          --watch               reload a script when its file is saved (emulator state is kept)
          --trust               allow os.execute, io.popen, native modules and bytecode
          --sandbox             confine file access to the script's folder and the data folder
          --data-dir DIR        the data folder (default ~/.local/share/retrolua/data)
          --script-memory MB    memory cap per script (default 256)
          --script-budget N     instructions (millions) a script may run before returning (default 200; counted
                                once an entry has run 20 ms)
          --log FILE            also append script output and failures to FILE

        control socket (off by default; see README "Control socket"):
          --control ADDRESS     serve JSON-line requests on unix:PATH or tcp:127.0.0.1:PORT (loopback only; port 0
                                picks one). Headless, the emulator runs only when a client steps it
          --scenario FILE       a Lua script defining reward() and done(), reported with every step
                                (--trust also allows {"cmd": "eval"})

        the default frontend (Lua in lua/defaults/, loaded before --script files in a window):
          --no-default NAME     leave out one default (osd, input, hotkeys, rewind, runahead, cheats, achievements) or all (repeatable)
          --with-defaults       load the defaults in headless runs too
          A same-named file in ~/.config/retrolua/scripts/ replaces the shipped one.

        """ + MovieRun.help

    static func main(_ raw: [String]) {
        let args: Arguments
        do {
            args = try Arguments(raw, valued: (["core", "frames", "screenshot", "option", "save-dir", "system-dir", "script",
                                               "data-dir", "script-memory", "script-budget", "log", "scale", "sync",
                                               "audio-quality", "audio-latency", "rate-delta", "wav", "video", "window-capture", "speed", "no-default", "control", "scenario"] as Set<String>).union(MovieRun.valued),
                                 flags: (["headless", "quiet", "verbose", "help", "strict", "watch", "trust", "sandbox",
                                         "integer-scale", "fullscreen", "no-vsync", "smooth", "no-audio", "stats", "square-pixels",
                                         "with-defaults", "json"] as Set<String>).union(MovieRun.flags))
        } catch {
            fail("run: \(error)\n\n\(help)", code: Exit.usage)
        }
        if args.flag("help") { print(help); exit(0) }
        guard args.positionals.count <= 1 else { fail("run: expected at most one ROM, got \(args.positionals.count)", code: Exit.usage) }

        var config = SessionConfig(contentPath: args.positionals.first, coreSpec: args.value("core"))
        if config.contentPath == nil {
            guard let demo = HostPaths.defaultContent() else {
                fail("run: no ROM given and the built-in demo is not built; run scripts/setup first")
            }
            config.contentPath = demo
            config.coreSpec = config.coreSpec ?? "nestopia"
        }
        var movieRun: MovieRun
        do { movieRun = try MovieRun(args) } catch { fail("run: \(error)", code: Exit.usage) }
        var controlAddress: ControlServer.Address?
        if let control = args.value("control") {
            do { controlAddress = try ControlServer.Address.parse(control) } catch { fail("run: \(error)", code: Exit.usage) }
        } else if args.value("scenario") != nil {
            fail("run: --scenario applies to --control", code: Exit.usage)
        }
        for pair in args.all("option") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                fail("run: --option expects KEY=VALUE, got '\(pair)'", code: Exit.usage)
            }
            config.options.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        movieRun.prepare(&config)
        if let folder = args.value("save-dir") { config.paths.saves = folder }
        if let folder = args.value("system-dir") { config.paths.system = folder }
        let frameLimit: Int?
        var scriptOptions = ScriptOptions(dataFolder: args.value("data-dir") ?? config.paths.data)
        do {
            frameLimit = try args.integer("frames")
            if let megabytes = try args.integer("script-memory") { scriptOptions.memoryLimit = megabytes << 20 }
            if let millions = try args.integer("script-budget") { scriptOptions.instructionBudget = millions * 1_000_000 }
        } catch {
            fail("run: \(error)", code: Exit.usage)
        }
        let frontendOptions: FrontendOptions
        do { frontendOptions = try parseFrontend(args, frameLimit: frameLimit) } catch { fail("run: \(error)", code: Exit.usage) }
        scriptOptions.strict = args.flag("strict")
        scriptOptions.watch = args.flag("watch")
        scriptOptions.trust = args.flag("trust")
        scriptOptions.sandbox = args.flag("sandbox")
        let scripts = args.all("script")
        for script in scripts where !FileManager.default.isReadableFile(atPath: script) {
            fail("run: \(script): no such script")
        }

        let session: Session
        do {
            session = try Session(config)
        } catch {
            fail(error.description)
        }
        if args.flag("verbose") {
            session.core.onLog = { _, message in
                FileHandle.standardError.write(Data("[\(session.coreName)] \(message)\n".utf8))
            }
        }

        var status: Int32 = 0
        var results: [String: any Sendable] = [:]
        var movieSummary: [String: Any]?
        let report: RunReport
        var overlayFrame: (rgba: [UInt8], width: Int, height: Int)?
        let disabledDefaults = Set(args.all("no-default"))
        for name in disabledDefaults where name != "all" && !DefaultFrontend.names.contains(name) {
            fail("run: --no-default: no default named '\(name)' (defaults: \(DefaultFrontend.names.joined(separator: ", ")), all)", code: Exit.usage)
        }
        let plainHeadless = scripts.isEmpty && !frontendOptions.window && !args.flag("with-defaults") && frontendOptions.wavPath == nil
            && frontendOptions.videoPath == nil && !frontendOptions.showStats && !movieRun.isActive && controlAddress == nil
        if plainHeadless {
            // Nothing but the core: the leanest loop (the benchmark's baseline).
            report = session.runHeadless(frames: frameLimit ?? 600, progress: !args.flag("quiet") && !args.flag("json"))
        } else {
            try? FileManager.default.createDirectory(atPath: scriptOptions.dataFolder, withIntermediateDirectories: true)
            let host = ScriptHost(emulator: Emulator(session: session), options: scriptOptions)
            if let log = args.value("log") {
                if !FileManager.default.fileExists(atPath: log) { FileManager.default.createFile(atPath: log, contents: nil) }
                host.logFile = FileHandle(forWritingAtPath: log)
                _ = try? host.logFile?.seekToEnd()
                if host.logFile == nil { fail("run: --log \(log): cannot open for writing") }
            }
            StopSignals.install()
            try? host.emulator.setSpeed(frontendOptions.speed)  // Validated with the arguments; hardcore is off at start.
            let frontend = Frontend(host: host, options: frontendOptions)
            do { try frontend.open() } catch { fail(error.description) }
            let movieLength = movieRun.start(host, quiet: args.flag("quiet"))
            // Headless without scripts has no natural end: the default length (a played movie's own).
            if !frontend.isWindowed && frameLimit == nil && (scripts.isEmpty || movieLength != nil) {
                frontend.frameLimit = movieLength ?? 600
            }
            var toLoad = scripts
            if frontend.isWindowed || args.flag("with-defaults") {
                toLoad = DefaultFrontend.scripts(excluding: disabledDefaults, paths: config.paths) + scripts
            }
            for script in toLoad {
                do { try host.load(scriptAt: script) } catch {
                    host.onFailure(error)
                    if scriptOptions.strict { status = Exit.failure }
                }
            }
            if status != 0 { frontend.frameLimit = 0 }
            if let address = controlAddress {
                let server: ControlServer
                do { server = try ControlServer(address) } catch { fail("run: --control: \(error)") }
                let control = ControlSession(host: host, allowEval: scriptOptions.trust)
                if let scenario = args.value("scenario") {
                    do { try control.loadScenario(scenario) } catch { fail("run: --scenario: \(error)") }
                }
                FileHandle.standardError.write(Data("retrolua: control socket listening on \(server.description)\n".utf8))
                if frontend.isWindowed {
                    frontend.betweenFrames = {
                        server.poll(timeout: 0, control.handle)
                        return !control.quitRequested
                    }
                    report = frontend.run()
                } else {
                    report = control.serve(server)
                }
                server.close()
            } else {
                report = frontend.run()
            }
            overlayFrame = host.frameWithOverlay()
            for problem in frontend.close() {
                FileHandle.standardError.write(Data("retrolua: \(problem)\n".utf8))
                status = Exit.failure
            }
            movieSummary = movieRun.summary(host)
            let movieStatus = movieRun.finish(host, quiet: args.flag("quiet") || args.flag("json"))
            if movieStatus != 0 { status = movieStatus }
            host.shutdown()
            results = host.results  // after `exit` callbacks, which may record results
            if let code = host.emulator.exitCode { status = code }
            if frontendOptions.showStats && !args.flag("quiet") { print(host.emulator.stats.summary) }
        }

        if let path = args.value("screenshot") {
            let frame = overlayFrame ?? report.lastFrame.map { ($0.rgba(), $0.width, $0.height) }
            if let frame {
                do { try PNGFile.write(rgba: frame.rgba, width: frame.width, height: frame.height, to: path) } catch {
                    FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
                    status = Exit.failure
                }
            } else {
                FileHandle.standardError.write(Data("retrolua: no frame to write to \(path): the core produced none\n".utf8))
                status = Exit.failure
            }
        }
        do { try session.close() } catch {
            FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
            status = Exit.failure
        }
        if args.flag("json") {
            printJSON(session: session, report: report, status: status, results: results, movie: movieSummary)
        } else if !args.flag("quiet") {
            printSummary(session: session, report: report)
        }
        exit(status)
    }

    static func parseFrontend(_ args: Arguments, frameLimit: Int?) throws -> FrontendOptions {
        var options = FrontendOptions()
        options.window = !args.flag("headless")
        options.frameLimit = frameLimit
        if let scale = try args.integer("scale") {
            guard (1...16).contains(scale) else { throw Arguments.UsageError(description: "--scale expects 1…16, got \(scale)") }
            options.video.scale = scale
        }
        options.video.integerScale = args.flag("integer-scale")
        options.video.fullscreen = args.flag("fullscreen")
        options.video.vsync = !args.flag("no-vsync")
        options.video.smooth = args.flag("smooth")
        options.squarePixels = args.flag("square-pixels")
        options.audio = !args.flag("no-audio")
        if let sync = args.value("sync") {
            guard let mode = FrontendOptions.Sync(rawValue: sync) else {
                throw Arguments.UsageError(description: "--sync expects audio, vsync or clock, got '\(sync)'")
            }
            options.sync = mode
        }
        if let quality = args.value("audio-quality") {
            guard let value = ResamplerQuality(rawValue: quality) else {
                throw Arguments.UsageError(description: "--audio-quality expects \(ResamplerQuality.allCases.map(\.rawValue).joined(separator: ", ")), got '\(quality)'")
            }
            options.audioQuality = value
        }
        if let latency = try args.integer("audio-latency") {
            guard (8...1000).contains(latency) else { throw Arguments.UsageError(description: "--audio-latency expects 8…1000 ms") }
            options.latency = Double(latency) / 1000
        }
        if let delta = args.value("rate-delta") {
            guard let value = Double(delta), (0...0.1).contains(value) else {
                throw Arguments.UsageError(description: "--rate-delta expects a number 0…0.1, got '\(delta)'")
            }
            options.rateControlDelta = value
        }
        if let speed = args.value("speed") {
            guard let value = Double(speed), value >= 0, value <= 100 else {
                throw Arguments.UsageError(description: "--speed expects a number 0…100, got '\(speed)'")
            }
            options.speed = value
        }
        options.wavPath = args.value("wav")
        options.videoPath = args.value("video") ?? args.value("dump")
        options.showStats = args.flag("stats")
        options.windowCapturePath = args.value("window-capture")
        options.progress = !args.flag("quiet") && !args.flag("json")
        return options
    }

    /// One line of JSON with what the summary says, for programs (`retrolua batch`, bots' harnesses).
    static func printJSON(session: Session, report: RunReport, status: Int32, results: [String: any Sendable], movie: [String: Any]?) {
        let info = session.core.systemInfo
        var object: [String: Any] = [
            "core": session.coreName, "core_library": info.libraryName,
            "core_version": info.libraryVersion.trimmingCharacters(in: .whitespaces),
            "frames": report.frames, "seconds": report.seconds, "fps": report.framesPerSecond,
            "lag_frames": report.lagFrames, "exit_code": Int(status), "results": results,
        ]
        if let content = session.content {
            object["content"] = content.fileName
            object["content_sha1"] = content.sha1
        }
        if let frame = report.lastFrame, let hash = report.frameHash {
            object["frame"] = ["width": frame.width, "height": frame.height, "hash": hash]
        }
        if let movie { object["movie"] = movie }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            FileHandle.standardError.write(Data("retrolua: --json: a result could not be written as JSON\n".utf8))
            return
        }
        print(String(decoding: data, as: UTF8.self))
    }

    static func printSummary(session: Session, report: RunReport) {
        let info = session.core.systemInfo
        let fps = session.core.avInfo?.fps ?? 60
        print("core     \(session.coreName) (\(info.libraryName) \(info.libraryVersion.trimmingCharacters(in: .whitespaces)))")
        if let content = session.content {
            print("content  \(content.fileName)  crc32 \(content.crc32)  sha1 \(content.sha1)")
        }
        print(String(format: "frames   %d in %.3f s: %.0f fps, %.1fx real time (core runs at %.4f fps); %d lag frames",
                     report.frames, report.seconds, report.framesPerSecond, report.framesPerSecond / fps, fps, report.lagFrames))
        if let frame = report.lastFrame, let hash = report.frameHash {
            print("frame    \(frame.width)x\(frame.height) \(frame.format)  hash \(hash)")
        } else {
            print("frame    none (the core presented no frame)")
        }
    }
}
