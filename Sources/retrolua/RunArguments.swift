import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro
import Media
import Support

/// A command line that cannot run: what to print, the exit status, and whether the help follows.
struct CommandLineError: Error {
    let message: String
    var code: Int32 = Exit.usage
    var withHelp = false
}

/// `retrolua run`'s command line, read into a `RunPlan` (also a batch job's, before it is spawned).
enum RunArguments {
    /// The run the arguments describe; nil for `--help`. Checks are made in the order the messages
    /// have always come in; nothing is opened (content, scripts and movies are read by `Run`).
    static func parse(_ raw: [String]) throws(CommandLineError) -> RunPlan? {
        let args: Arguments
        do {
            args = try Arguments(joiningMcpAddress(joiningNetplayAddress(raw)), spec: RunCommand.spec)
        } catch {
            throw CommandLineError(message: "run: \(error)", withHelp: true)
        }
        if args.flag("help") { return nil }
        guard args.positionals.count <= 1 else {
            throw CommandLineError(message: "run: expected at most one ROM, got \(args.positionals.count)")
        }
        var config = SessionConfig(contentPath: args.positionals.first, coreSpec: args.value("core"))
        if config.contentPath == nil, let editing = args.value("tastudio"),
            FileManager.default.fileExists(atPath: editing)
        {
            // The movie's own content, found as `movie play` finds it.
            let movie: Movie
            do { movie = try MovieText.read(path: editing) } catch {
                throw CommandLineError(message: "run: --tastudio: \(error)", code: Exit.failure)
            }
            config.contentPath = try MovieOptions.content(for: movie, moviePath: editing)
            if config.coreSpec == nil && !movie.coreName.isEmpty { config.coreSpec = movie.coreName }
        }
        if config.contentPath == nil {
            guard let demo = HostPaths.defaultContent() else {
                throw CommandLineError(
                    message: "run: no ROM given and the built-in demo is not built; run scripts/setup first",
                    code: Exit.failure)
            }
            config.contentPath = demo
            config.coreSpec = config.coreSpec ?? "nestopia"
        }
        var result: RunPlan
        do {
            result = try plan(args, config: config)
        } catch {
            throw CommandLineError(message: "run: \(error)")
        }
        // Bundled names (dodge.nes, examples/…) become their files, after the command line is known good.
        do throws(CommandLineError) { try BundledName.resolve(in: &result) } catch {
            throw CommandLineError(message: "run: " + error.message, code: error.code)
        }
        return result
    }

    private static func plan(_ args: Arguments, config: SessionConfig) throws -> RunPlan {
        var config = config
        let movie = try MovieOptions.plan(args)
        var control: ControlPlan?
        if let address = args.value("control") {
            control = ControlPlan(
                address: try ControlServer.Address.parse(address), scenario: args.value("scenario"),
                allowEval: args.flag("trust"), tokenPath: args.value("control-token"))
            control?.dieWithParent = args.flag("die-with-parent")
            control?.exitOnDisconnect = args.flag("exit-on-disconnect")
            if control?.address.isTCP == false && args.value("control-token") != nil {
                throw Arguments.UsageError(
                    description: "--control-token applies to tcp: a Unix socket admits its own user only")
            }
        } else if args.value("scenario") != nil {
            throw Arguments.UsageError(description: "--scenario applies to --control")
        } else if args.flag("die-with-parent") || args.flag("exit-on-disconnect") {
            throw Arguments.UsageError(description: "--die-with-parent and --exit-on-disconnect apply to --control")
        } else if args.value("control-token") != nil {
            throw Arguments.UsageError(description: "--control-token applies to --control tcp:…")
        }
        let mcp = try mcpPlan(args)
        control = try runsOwnControl(args, given: control, mcp: mcp != nil)
        for pair in args.all("option") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw Arguments.UsageError(description: "--option expects KEY=VALUE, got '\(pair)'")
            }
            config.options.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        if let folder = args.value("save-dir") { config.paths.saves = folder }
        if let folder = args.value("system-dir") { config.paths.system = folder }
        var plan = RunPlan(
            session: config, scriptOptions: ScriptOptions(dataFolder: args.value("data-dir") ?? config.paths.data))
        plan.movie = movie
        plan.tastudio = args.value("tastudio") != nil
        plan.console = args.flag("console")
        plan.control = control
        plan.mcp = mcp
        let frameLimit = try args.integer("frames")
        if let megabytes = try args.integer("script-memory") { plan.scriptOptions.memoryLimit = megabytes << 20 }
        if let millions = try args.integer("script-budget") {
            plan.scriptOptions.instructionBudget = millions * 1_000_000
        }
        plan.frontend = try frontend(args)
        plan.frameLimit = frameLimit
        plan.scriptOptions.strict = args.flag("strict")
        plan.scriptOptions.watch = args.flag("watch")
        plan.scriptOptions.trust = args.flag("trust")
        // --sandbox names the default (confined) profile, kept for command lines written before it was.
        plan.scriptOptions.allowFiles = args.flag("allow-files")
        if args.flag("sandbox") && (plan.scriptOptions.allowFiles || plan.scriptOptions.trust) {
            throw Arguments.UsageError(
                description: "--sandbox is the default profile; it cannot be combined with --allow-files or --trust")
        }
        try netplay(args, into: &plan.scriptOptions)
        plan.scripts = try scripts(args)
        plan.defaults.disabled = Set(args.all("no-default"))
        for name in args.all("no-default") where name != "all" && !DefaultFrontend.names.contains(name) {
            throw Arguments.UsageError(
                description:
                    """
                    --no-default: no default named '\(name)' (defaults: \
                    \(DefaultFrontend.names.joined(separator: ", ")), all)
                    """
            )
        }
        plan.defaults.headless = args.flag("with-defaults")
        plan.screenshotPath = args.value("screenshot")
        plan.logPath = args.value("log")
        plan.verbose = args.flag("verbose")
        plan.quiet = args.flag("quiet")
        plan.report = args.flag("json") ? .json : args.flag("quiet") ? .none : .summary
        return plan
    }

    /// `--netplay join ADDRESS` takes two words: they become one value (`join ADDRESS`), so the address is
    /// not read as the ROM.
    private static func joiningNetplayAddress(_ raw: [String]) -> [String] {
        var raw = raw
        var index = 0
        while index + 1 < raw.count {
            // A relay's join names no ADDRESS: an option after `join` is not one.
            let joined =
                raw[index] == "--netplay" && raw[index + 1] == "join" && index + 2 < raw.count
                && !raw[index + 2].hasPrefix("-")
            if joined || raw[index] == "--netplay=join" && !raw[index + 1].hasPrefix("-") {
                let valueIndex = joined ? index + 1 : index
                raw[valueIndex] = (joined ? "join" : "--netplay=join") + " " + raw[valueIndex + 1]
                raw.remove(at: valueIndex + 1)
            }
            index += 1
        }
        return raw
    }

    /// `--mcp X` is `--mcp=X` when X is an address (a port, HOST:PORT, [::1]:PORT, a name without a dot), not a
    /// ROM: an option, a path, a name with an extension, a file that exists.
    private static func joiningMcpAddress(_ raw: [String]) -> [String] {
        var raw = raw
        var index = 0
        while index + 1 < raw.count, raw[index] != "--" {
            let next = raw[index + 1]
            if raw[index] == "--mcp" && !next.hasPrefix("-") && !next.isEmpty && !looksLikeFile(next) {
                raw[index] = "--mcp=" + next
                raw.remove(at: index + 1)
            }
            index += 1
        }
        return raw
    }

    private static func looksLikeFile(_ word: String) -> Bool {
        if word.contains(":") || word.hasPrefix("[") { return false }
        if word.contains("/") || FileManager.default.fileExists(atPath: word) { return true }
        guard let dot = word.lastIndex(of: ".") else { return false }
        return word[word.index(after: dot)...].contains { $0.isLetter }  // game.nes, not 10.0.0.1
    }

    /// `--mcp[=[HOST:]PORT]` and `--mcp-token FILE`.
    private static func mcpPlan(_ args: Arguments) throws -> McpPlan? {
        guard args.flag("mcp") else {
            if args.value("mcp-token") != nil {
                throw Arguments.UsageError(description: "--mcp-token applies to --mcp")
            }
            return nil
        }
        var plan: McpPlan
        do { plan = try McpPlan.parse(args.value("mcp")) } catch {
            throw Arguments.UsageError(description: error.message)
        }
        plan.tokenPath = args.value("mcp-token")
        if args.flag("no-control") {
            throw Arguments.UsageError(description: "--mcp attaches to the run's socket: not with --no-control")
        }
        return plan
    }

    /// `--netplay`, `--netplay-delay` and `--allow-net[=HOST[:PORT],…]` into the scripts' options.
    private static func netplay(_ args: Arguments, into options: inout ScriptOptions) throws {
        options.allowNet = args.flag("allow-net")
        for text in args.all("allow-net").flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            guard let grant = NetworkPermission.Grant(String(text)) else {
                throw Arguments.UsageError(
                    description: "--allow-net: '\(text)' is not HOST[:PORT] (a name, an IPv4 address, [IPv6], or *)")
            }
            options.netGrants.append(grant)
        }
        let delay = try args.integer("netplay-delay")
        if let delay, !(0...8).contains(delay) {
            throw Arguments.UsageError(description: "--netplay-delay must be 0…8, got \(delay)")
        }
        let coreOptions = args.value("netplay-options")
        if let coreOptions, coreOptions != "host" {
            throw Arguments.UsageError(description: "--netplay-options takes host, got '\(coreOptions)'")
        }
        guard let value = args.value("netplay") else {
            if delay != nil { throw Arguments.UsageError(description: "--netplay-delay applies to --netplay") }
            try NetplayRoomArguments.refuseWithoutNetplay(args)
            if coreOptions != nil || args.flag("spectate") {
                throw Arguments.UsageError(
                    description: "--\(coreOptions != nil ? "netplay-options" : "spectate") applies to --netplay join")
            }
            return
        }
        if let relayed = try NetplayRoomArguments.request(value, args) {
            options.netplay = relayed
        } else {
            do { options.netplay = try NetplayRequest.parse(value) } catch {
                throw Arguments.UsageError(description: error.description)
            }
        }
        if coreOptions != nil && options.netplay?.mode != .join {
            throw Arguments.UsageError(description: "--netplay-options applies to --netplay join")
        }
        options.netplay?.delay = delay
        options.netplay?.options = coreOptions
        if args.flag("spectate") {
            guard options.netplay?.mode == .join, coreOptions == nil, delay == nil else {
                throw Arguments.UsageError(
                    description: "--spectate applies to --netplay join (without --netplay-delay or --netplay-options)")
            }
            options.netplay?.spectate = true
        }
    }

    /// Without --control, a windowed run (and any with --console or --mcp) listens on a socket of the user's own for
    /// `retrolua attach`; --no-control turns it off. --console needs a Unix socket to talk to.
    private static func runsOwnControl(_ args: Arguments, given: ControlPlan?, mcp: Bool) throws -> ControlPlan? {
        let console = args.flag("console")
        if args.flag("no-control") {
            if console {
                throw Arguments.UsageError(description: "--console talks to the run's socket: not with --no-control")
            }
            if given != nil {
                throw Arguments.UsageError(description: "--no-control and --control contradict each other")
            }
            return nil
        }
        if let given {
            if console && given.address.isTCP {
                throw Arguments.UsageError(description: "--console needs a Unix socket (--control unix:PATH or none)")
            }
            if mcp && given.address.isTCP {
                throw Arguments.UsageError(description: "--mcp needs a Unix socket (--control unix:PATH or none)")
            }
            return given
        }
        guard !args.flag("headless") || console || mcp else { return nil }
        let path: String
        do { path = try UserRuntimeFolder.socket() } catch {
            if console { throw Arguments.UsageError(description: "--console: \(error)") }
            if mcp { throw Arguments.UsageError(description: "--mcp: \(error)") }
            FileHandle.standardError.write(Data("retrolua: warning: no socket for retrolua attach: \(error)\n".utf8))
            return nil
        }
        var plan = ControlPlan(address: .unix(path), allowEval: args.flag("trust"))
        plan.isRunsOwn = true
        return plan
    }

    /// Window, sound, pacing and dumps.
    static func frontend(_ args: Arguments) throws -> FrontendOptions {
        var options = FrontendOptions()
        options.window = !args.flag("headless")
        if let scale = try args.integer("scale") {
            guard (1...16).contains(scale) else {
                throw Arguments.UsageError(description: "--scale expects 1…16, got \(scale)")
            }
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
                throw Arguments.UsageError(
                    description:
                        """
                        --audio-quality expects \
                        \(ResamplerQuality.allCases.map(\.rawValue).joined(separator: ", ")), got '\(quality)'
                        """
                )
            }
            options.audioQuality = value
        }
        if let latency = try args.integer("audio-latency") {
            guard (8...1000).contains(latency) else {
                throw Arguments.UsageError(description: "--audio-latency expects 8…1000 ms")
            }
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
        options.speak = args.flag("speak")
        options.windowCapturePath = args.value("window-capture")
        options.progress = !args.flag("quiet") && !args.flag("json")
        return options
    }

    /// `--script [LAYER:]FILE` with `--compat LAYER` as the default layer (`lua/compat/LAYER.lua`).
    private static func scripts(_ args: Arguments) throws -> [ScriptSpec] {
        let layers = CompatLayers.names(luaFolder: HostPaths.luaFolder())
        let fallback = args.value("compat")
        if let fallback, !layers.contains(CompatLayers.name(of: fallback)) {
            throw Arguments.UsageError(
                description:
                    "--compat: no layer named '\(CompatLayers.name(of: fallback))' (layers: "
                    + "\(layers.joined(separator: ", ")))")
        }
        return args.all("script").map { CompatLayers.split($0, layers: layers, fallback: fallback) }
    }
}
