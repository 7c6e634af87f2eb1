import Control
import Emulation
import Foundation
import Frontend
import Libretro
import Media
import Scripting

/// A run with scripts around the emulator: the script host, the frontend (none for replays), the
/// movie and the control socket, opened in `assemble` and closed in `runToEnd`, each in this order.
final class RunParts {
    let plan: RunPlan
    let console: RunConsole
    let session: Session
    let host: ScriptHost
    /// The overlay surfaces, window facts and devices the scripts and the frontend share.
    let screen: Screen
    private(set) var frontend: Frontend?
    let movie: RunMovie?
    private var control: (server: ControlServer, session: ControlSession)?
    /// The generated token's file, removed when the run ends.
    private var tokenFile: String?
    /// `--mcp`: the MCP server child, attached to the control socket.
    private var mcp: RunMcp?
    /// Nonzero once a script failed to load under `--strict`.
    private var status: Int32 = 0

    private init(_ plan: RunPlan, session: Session, movie: RunMovie?, console: RunConsole) {
        self.plan = plan
        self.session = session
        self.movie = movie
        self.console = console
        try? FileManager.default.createDirectory(
            atPath: plan.scriptOptions.dataFolder, withIntermediateDirectories: true)
        let emulator = Emulator(session: session)
        screen = Screen.shown(by: emulator)
        host = ScriptHost(emulator: emulator, screen: screen, options: plan.scriptOptions, api: Bindings.api)
        host.onFailure = { console.problem("\($0)") }
    }

    /// Opens every part; on failure lets go of what was opened without running the scripts' exit
    /// callbacks or writing save RAM (the run never started), and throws.
    static func assemble(
        _ plan: RunPlan, session: Session, movie: RunMovie?, console: RunConsole
    ) throws(RunFailure) -> RunParts {
        let parts = RunParts(plan, session: session, movie: movie, console: console)
        do {
            try parts.open()
        } catch {
            parts.abandon()
            throw error
        }
        return parts
    }

    private func open() throws(RunFailure) {
        if let log = plan.logPath {
            if !FileManager.default.fileExists(atPath: log) {
                _ = FileManager.default.createFile(atPath: log, contents: nil)
            }
            host.logFile = FileHandle(forWritingAtPath: log)
            _ = try? host.logFile?.seekToEnd()
            if host.logFile == nil { throw RunFailure("run: --log \(log): cannot open for writing") }
        }
        try? host.emulator.setSpeed(plan.frontend.speed)  // Validated with the arguments; hardcore is off at start.
        if plan.replay == nil {
            let frontend = Frontend(
                emulator: host.emulator, screen: screen, scripts: RunFrontendScripts(host), options: plan.frontend)
            let (console, quiet) = (console, plan.quiet)
            frontend.onNotice = { if !quiet { console.problem($0) } }
            frontend.onProblem = console.problem
            host.mirrorsMessages = !quiet
            if plan.frontend.speak {
                if let speaker = Speaker() {
                    host.onMessage = { speaker.say($0) }
                    host.onSpeak = { speaker.say($0, replacing: true) }
                } else {
                    console.problem("--speak: espeak-ng not found on PATH (Debian: apt-get install espeak-ng)")
                }
            }
            do { try frontend.open() } catch { throw RunFailure(error.description) }
            self.frontend = frontend
        }
        var movieLength = try movie?.start(host.emulator, console: console)
        if plan.tastudio {
            host.emulator.movie.editorEngaged = true
            // The editor opens paused at the movie's first frame, as TAStudio does (the movie never runs on
            // before the person has seen it); headless runs are never paused.
            if frontend?.isWindowed == true { host.emulator.paused = true }
            movieLength = nil  // the editor's run ends when its window closes (or at --frames), not at the movie's end
        }
        // Headless without scripts has no natural end: the default length (a played movie's own). A netplay
        // session's end is its own (the peer leaves, or `stop_after`).
        if let frontend, !frontend.isWindowed && plan.frameLimit == nil,
            plan.scripts.isEmpty && plan.scriptOptions.netplay == nil || movieLength != nil
        {
            frontend.frameLimit = movieLength ?? 600
        }
        RunEmergency.install(self)
        loadScripts()
        if status != 0 { frontend?.frameLimit = 0 }
        if let plan = plan.control { try openControl(plan) }
        if let mcpPlan = plan.mcp, case .unix(let socket)? = plan.control?.address {
            mcp = try RunMcp(mcpPlan, socket: socket, dataFolder: plan.scriptOptions.dataFolder, console: console)
        }
    }

    private func loadScripts() {
        // Every default, also those left out, so the menu can turn them on and off.
        host.defaultScripts = DefaultFrontend.scripts(excluding: [], paths: session.paths).map {
            (name: (($0 as NSString).lastPathComponent as NSString).deletingPathExtension, path: $0)
        }
        var scripts = plan.scripts.map { (spec: $0, isDefault: false) }
        if frontend?.isWindowed == true || plan.defaults.headless {
            scripts =
                DefaultFrontend.scripts(excluding: plan.defaults.disabled, paths: session.paths).map {
                    (spec: ScriptSpec(path: $0), isDefault: true)
                } + scripts
        } else if plan.scriptOptions.netplay != nil {
            // --netplay (and netplay-check) headless: the netplay default alone, which runs the session.
            let others = Set(DefaultFrontend.names).subtracting(["netplay"])
            scripts =
                DefaultFrontend.scripts(excluding: plan.defaults.disabled.union(others), paths: session.paths).map {
                    (spec: ScriptSpec(path: $0), isDefault: true)
                } + scripts
        }
        for script in scripts {
            do {
                try host.load(scriptAt: script.spec.path, compat: script.spec.compat, frontendDefault: script.isDefault)
            } catch {
                // Reported as any failure: said, on the menu's Scripts page, on screen once the run draws.
                host.report(failure: error)
                if plan.scriptOptions.strict { status = 1 }
            }
        }
    }

    private func openControl(_ plan: ControlPlan) throws(RunFailure) {
        let control = ControlSession(
            emulator: host.emulator, scripts: RunControlScripts(host), allowEval: plan.allowEval)
        control.encodePNG = { try PNGFile.encode($0, fast: true) }
        if plan.dieWithParent { control.parent = RunParentDeath.parent != 0 ? RunParentDeath.parent : getppid() }
        control.exitOnDisconnect = plan.exitOnDisconnect
        // The scenario before the socket: one that fails refuses the run before a client can connect.
        if let scenario = plan.scenario {
            do { try control.loadScenario(scenario) } catch { throw RunFailure("run: --scenario: \(error)") }
        }
        let server: ControlServer
        var generated: String?
        do {
            var token: String?
            if plan.address.isTCP {
                token = try plan.tokenPath.map(ControlAccess.readToken) ?? ControlAccess.generateToken()
                if plan.tokenPath == nil { generated = token }
            }
            server = try ControlServer(plan.address, access: ControlAccess(token: token))
        } catch {
            if plan.isRunsOwn && self.plan.mcp == nil {
                console.problem("warning: no socket for retrolua attach: \(error)")
                return
            }
            throw RunFailure("run: \(plan.isRunsOwn ? "--mcp" : "--control"): \(error)")  // the run's own: for --mcp
        }
        control.keepsAudio = !plan.isRunsOwn
        if !plan.isRunsOwn { console.problem("control socket listening on \(server.description)") }
        self.control = (server, control)
        if let generated {
            // Printed once; kept 0600 for clients of the same user (Retrolua.connect reads it).
            let path = ControlAccess.tokenFile(dataFolder: self.plan.scriptOptions.dataFolder, port: server.port)
            do { try ControlAccess.writeToken(generated, to: path) } catch {
                throw RunFailure("run: --control: \(error)")
            }
            tokenFile = path
            console.problem("control token \(generated) (also in \(path))")
        }
    }

    /// The run never started: scripts go without their exit callbacks, the core without saving.
    private func abandon() {
        RunEmergency.uninstall()
        mcp?.stop()
        control?.server.close()
        if let tokenFile { unlink(tokenFile) }
        host.unloadScripts()
        frontend = nil
        session.core.close()
    }

    /// Runs the frames, then closes the parts: the socket, the frontend's dumps, the movie, the
    /// scripts (exit callbacks, which may still record results). The session is the caller's to close.
    /// `screenshot` writes `--screenshot` (false: it failed, said); it runs with save RAM, before the scripts' states close.
    func runToEnd(screenshot: ((RGBAImage?) -> Bool)? = nil) -> RunOutcome {
        var replay: ReplayOutcome?
        let report: RunReport
        if let kind = plan.replay {
            (report, replay) = RunReplay.run(kind, emulator: host.emulator, length: movie?.played?.length ?? 0)
        } else if let control {
            report = serve(control.server, control.session)
            mcp?.stop()
            control.server.close()
            if let tokenFile { unlink(tokenFile) }
        } else {
            report = frontend!.run()
        }
        var outcome = RunOutcome(report: report, session: session)
        outcome.replay = replay
        outcome.status = status
        let picture = host.emulator.picture() ?? report.lastFrame.map(RGBAImage.init)
        for problem in frontend?.close() ?? [] {
            console.problem(problem)
            outcome.status = 1
        }
        outcome.movie = movie?.summary(host.emulator)
        let movieStatus = host.emulator.finishMovie(quiet: plan.quiet || plan.report == .json, console: console)
        if movieStatus != 0 { outcome.status = movieStatus }
        // Save RAM is on disk before the scripts' states close: a `__gc` finalizer that never returns is ended
        // by the watchdog (RunEmergency), and a kill then finds the player's save written.
        var screenshotFailed = false
        host.shutdown(beforeClosing: {
            try? session.writeSaveRAM()  // a failure is retried and said at close
            if let screenshot, !screenshot(picture) { screenshotFailed = true }
        })
        outcome.results = host.results  // after `exit` callbacks, which may record results
        if let code = host.emulator.exitCode { outcome.status = code }
        // A run without a window is a job: a script that failed in it fails the run (in a window the person saw
        // the failure on screen and played on). --strict also ends the run at the failure.
        if outcome.status == 0 && frontend?.isWindowed != true, let failure = host.failures.first {
            console.problem("exit status 1: script \(failure.script) failed (above); the run went on without it")
            outcome.status = 1
        }
        if plan.frontend.showStats && !plan.quiet { console.print(host.emulator.stats.summary) }
        if screenshotFailed { outcome.status = 1 }
        RunEmergency.uninstall()
        return outcome
    }

    /// In a window the socket is polled between frames; headless the emulator runs only when stepped.
    /// The run's own socket (for `retrolua attach`) never changes how a run goes: a window that could not open
    /// leaves a headless run that ends as it would have. `--control`, `--console` and `--mcp` headless serve
    /// instead.
    private func serve(_ server: ControlServer, _ control: ControlSession) -> RunReport {
        let servesHeadless = plan.console || plan.mcp != nil || plan.control?.isRunsOwn != true
        guard let frontend, frontend.isWindowed || !servesHeadless else { return control.serve(server) }
        frontend.betweenFrames = {
            server.poll(timeout: 0, control.start)
            return !control.quitRequested && !control.isAbandoned(server)
        }
        return frontend.run()
    }
}
