import Emulation
import Foundation
import Libretro
import Media
import Scripting
import Support

/// Turns a `RunPlan` into running parts and runs it to the end: the one place that decides the order
/// in which a run's parts are opened (movie, session, scripts, frontend, socket) and closed (exit
/// callbacks, dumps, the socket, save RAM, the report). Every entry point — `retrolua run`, `movie`,
/// `batch` jobs, tests — goes through here.
public final class Run {
    public let plan: RunPlan
    public let console: RunConsole

    /// A stop signal also interrupts the script running at the time (registered once per process).
    private static let stopsScripts: Void = StopSignals.onStop { _ in ScriptHost.interruptRunningScript() }

    public init(_ plan: RunPlan, console: RunConsole = .standard) {
        self.plan = plan
        self.console = console
    }

    /// Runs the plan; throws when the run cannot be put together (nothing is written then: no save
    /// RAM, no exit callbacks). Problems at the end (a dump, the screenshot) set the status instead.
    public func execute() throws(RunFailure) -> RunOutcome {
        for path in plan.outputPaths {
            do { try DurableFile.checkWritable(path) } catch { throw RunFailure("run: \(error)") }
        }
        if plan.stopsOnSignals {
            StopSignals.install()
            Run.stopsScripts
        }
        if plan.control?.dieWithParent == true { try RunParentDeath.arm() }
        if let mcp = plan.mcp { try RunMcp.check(mcp) }
        var config = plan.session
        var movie = plan.movie.map(RunMovie.init)
        try movie?.prepare(&config)
        for script in plan.scripts where !FileManager.default.isReadableFile(atPath: script.path) {
            throw RunFailure("run: \(script.path): no such script")
        }
        let session = try open(config)
        var outcome: RunOutcome
        // --screenshot: with scripts, written before their states close (RunParts.runToEnd), like save RAM.
        let screenshot = plan.screenshotPath.map { path in
            { [self] (picture: RGBAImage?) in writeScreenshot(picture, to: path) }
        }
        if plan.isBare {
            let frames = plan.frameLimit ?? 600
            var progress = ProgressLine(enabled: plan.frontend.progress && isatty(2) != 0)
            let stops = plan.stopsOnSignals
            let report = Emulator(session: session).runFrames(
                limit: frames, until: { stops && StopSignals.isRequested },
                afterFrame: { progress.update(frames: $0, of: frames) })
            progress.finish()
            outcome = RunOutcome(report: report, session: session)
            if let screenshot, !screenshot(report.lastFrame.map(RGBAImage.init)) { outcome.status = 1 }
        } else {
            let parts = try RunParts.assemble(plan, session: session, movie: movie, console: console)
            outcome = parts.runToEnd(screenshot: screenshot)
        }
        do { try session.close() } catch {
            console.problem("\(error)")
            outcome.status = 1
        }
        // A stop signal ended the run: everything above was still written, and the status says why.
        if plan.stopsOnSignals, let signalled = StopSignals.exitStatus { outcome.status = signalled }
        switch plan.report {
        case .json: RunSummary.printJSON(outcome, to: console)
        case .summary where !plan.quiet: RunSummary.print(outcome, to: console)
        default: break
        }
        return outcome
    }

    private func open(_ config: SessionConfig) throws(RunFailure) -> Session {
        let console = console
        let session: Session
        let quiet = plan.quiet
        do {
            session = try Session(
                config, hardwareRenderers: EGLHeadlessRenderer.make, warn: { console.problem("warning: \($0)") },
                notice: { if !quiet { console.problem($0) } })
        } catch {
            throw RunFailure(error.description)
        }
        // Ambiguous content: which core took it and what else could have (docs/guides/cores-and-content.md).
        if let choice = session.coreChoice, !choice.alternatives.isEmpty, !plan.quiet {
            FileHandle.standardError.write(Data("retrolua: \(choice.note)\n".utf8))
        }
        if plan.verbose {
            let name = session.coreName
            session.core.onLog = { _, message in FileHandle.standardError.write(Data("[\(name)] \(message)\n".utf8)) }
        }
        return session
    }

    /// `--screenshot`: false (with the problem reported) when it could not be written.
    private func writeScreenshot(_ picture: RGBAImage?, to path: String) -> Bool {
        guard let picture else {
            console.problem("no frame to write to \(path): the core produced none")
            return false
        }
        do { try PNGFile.write(rgba: picture.rgba, width: picture.width, height: picture.height, to: path) } catch {
            console.problem("\(error)")
            return false
        }
        return true
    }
}
