import Control
import Emulation
import Foundation
import Frontend
import Scripting

/// Everything one run needs, decided before anything is opened: what `retrolua run`, `movie`,
/// `batch` jobs and tests describe, and what `Run` assembles. A value: building one has no effects.
public struct RunPlan: Sendable {
    /// Content, core, `--option` pairs and the user's folders.
    public var session: SessionConfig
    /// `--script` files, in load order (after the default frontend's, when it loads).
    public var scripts: [ScriptSpec] = []
    public var scriptOptions: ScriptOptions
    /// The default frontend (lua/defaults/): which to leave out, and whether headless runs load it.
    public var defaults = DefaultScripts()
    /// Window, sound, pacing, dumps, stats, progress and the frame limit.
    public var frontend = FrontendOptions()
    /// `--screenshot`: the last frame with the emu overlay, as PNG.
    public var screenshotPath: String?
    /// `--log`: script output and failures are also appended here.
    public var logPath: String?
    /// `--verbose`: the core's own log messages on stderr.
    public var verbose = false
    /// What the run prints when it ends.
    public var report = Report.summary
    /// `--quiet`: none of the run's own lines (stats, movie, progress) besides its report.
    public var quiet = false
    public var movie: MoviePlan?
    /// `--tastudio MOVIE`: the movie is shown in the TAS editor (lua/defaults/tastudio.lua) from the start.
    public var tastudio = false
    /// A headless replay of `movie` (verification, RAM log) instead of the frontend's loop.
    public var replay: Replay?
    public var control: ControlPlan?
    /// `--mcp`: an MCP server (Python's, over HTTP on loopback) attached to `control`, a Unix socket.
    public var mcp: McpPlan?
    /// `--console`: the command line runs the console on its terminal, a client of the run's own socket.
    public var console = false
    /// SIGINT and SIGTERM end the frame loop (the CLI); tests leave the process's signals alone.
    public var stopsOnSignals = true

    public init(session: SessionConfig, scriptOptions: ScriptOptions? = nil) {
        self.session = session
        self.scriptOptions = scriptOptions ?? ScriptOptions(dataFolder: session.paths.data)
    }

    public enum Report: Sendable, Equatable {
        /// The summary lines (core, content, frames, frame hash).
        case summary
        /// One line of JSON (`--json`) for programs.
        case json
        case none
    }

    public struct DefaultScripts: Sendable {
        /// `--no-default NAME` (or `all`).
        public var disabled: Set<String> = []
        /// `--with-defaults`: load them headless too (a window always loads them).
        public var headless = false
        public init() {}
    }

    public enum Replay: Sendable {
        /// Until the movie ends or first differs from its verification log (`movie verify`).
        case verify
        /// Until the movie ends, hashing RAM after every frame (`movie convert --add-verify`).
        case hashRAM
    }

    /// The frame limit (`--frames`); nil runs to the natural end.
    public var frameLimit: Int? {
        get { frontend.frameLimit }
        set { frontend.frameLimit = newValue }
    }

    /// Files the run writes: checked before the core starts, so a bad path costs no run.
    var outputPaths: [String] {
        // A recording's target is checked by the movie engine as it starts (for scripts' recordings too).
        [screenshotPath, frontend.wavPath, frontend.videoPath, frontend.windowCapturePath].compactMap { $0 }
    }

    /// Nothing but the core: the leanest loop (the benchmark's baseline) serves it.
    var isBare: Bool {
        scripts.isEmpty && !frontend.window && !defaults.headless && frontend.wavPath == nil
            && frontend.videoPath == nil
            && !frontend.showStats && !frontend.speak && movie == nil && control == nil && replay == nil
            && scriptOptions.netplay == nil
    }
}

/// A movie to play or record from the start of a run.
public enum MoviePlan: Sendable {
    /// A movie file, read before the core loads so its core options apply from the start.
    case play(path: String, MovieEngine.PlayOptions)
    /// A movie already in memory (`path` names it in messages, if it has one).
    case playMovie(Movie, path: String?, MovieEngine.PlayOptions)
    /// A new recording, written when the run ends; `fromState` is loaded first.
    case record(path: String, MovieEngine.RecordOptions, fromState: String?)

    var path: String? {
        switch self {
        case .play(let path, _), .record(let path, _, _): path
        case .playMovie(_, let path, _): path
        }
    }

    var isRecording: Bool { if case .record = self { true } else { false } }
}

/// `--control`: the socket, its scenario, whether `eval` is allowed (`--trust`), and for TCP the
/// file holding the token clients must show (`--control-token`; without it one is generated).
public struct ControlPlan: Sendable {
    public var address: ControlServer.Address
    public var scenario: String?
    public var allowEval = false
    public var tokenPath: String?
    /// `--die-with-parent`: end the run once the process that started it has gone.
    public var dieWithParent = false
    /// `--exit-on-disconnect`: end the run when its last client leaves.
    public var exitOnDisconnect = false
    /// The socket every windowed run opens for `retrolua attach` (not asked for with --control): said
    /// nowhere, keeps no sound until asked, and one that cannot open is a warning, not a failed run.
    public var isRunsOwn = false

    public init(
        address: ControlServer.Address, scenario: String? = nil, allowEval: Bool = false, tokenPath: String? = nil
    ) {
        self.address = address
        self.scenario = scenario
        self.allowEval = allowEval
        self.tokenPath = tokenPath
    }
}
