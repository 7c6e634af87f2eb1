import CLua
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// A movie frame argument (0 = the movie's first frame).
    /// Frames beyond this are no movie's (bounded so that `frame + count` cannot overflow).
    static let maxTASFrame = 1 << 40

    static func tasFrame(_ call: LuaCall, _ index: Int32, _ name: String = "frame") throws(LuaCallError) -> Int {
        let frame = try call.integer(index, name)
        guard frame >= 0 else { throw call.badArgument(index, name, "must be 0 or more") }
        guard frame <= maxTASFrame else { throw call.badArgument(index, name, "must be at most \(maxTASFrame)") }
        return frame
    }

    static func tasButton(_ call: LuaCall, _ index: Int32) throws(LuaCallError) -> RetroPadButton {
        let name = try call.string(index, "button")
        guard let button = RetroPadButton.named(name) else {
            throw call.badArgument(
                index, "button",
                "unknown button '\(name)' (one of \(RetroPadButton.standardOrder.map(\.name).joined(separator: ", ")))")
        }
        return button
    }

    /// Runs an edit; pushes its first changed frame, `false` when nothing changed, or `nil, message`.
    static func tasEdit(
        _ call: LuaCall, _ script: Script, _ body: (MovieEngine) throws(MovieError) -> Int?
    ) throws(Refusal) -> Int32 {
        let first = try call.nested(script) { () throws(Refusal) in try script.emulator.editMovie(body) }
        if let first { call.push(first) } else { call.push(false) }
        return 1
    }

    static let tastudioDoc = """
        The TAS editor's model of the current movie, shared by every script whether or not the editor \
        (`lua/defaults/tastudio.lua`) is shown; see docs/guides/tas.md, "The TAS editor". Frames count from 0; \
        ports from 1; buttons by RetroPad name (`a`, `b`, `up`, …). Seeking loads the greenzone's nearest state \
        at or before the frame and replays the movie's input to it unseen. Each edit is one undo step (or part \
        of a group between `begin` and `apply`), drops the greenzone after its first changed frame and fires \
        `movie_changed(frame)`; edits return that frame, `false` when nothing changed, or `nil, message`. \
        Markers are saved with the movie (`marker FRAME NOTE` in the `.rlm` header).
        """

    static let tastudio = LuaModule(
        "tastudio", doc: tastudioDoc,
        functions: tastudioQueries + tastudioEdits)

    static let tastudioQueries: [LuaFunction] = [
        LuaFunction(
            "engaged", returns: "boolean",
            doc: "Whether a script shows the editor (`tastudio.engage`) over an active movie."
        ) { run($0, $1, tastudioEngaged) },
        LuaFunction(
            "engage", "on: boolean",
            doc: "Says the editor is shown (or not); the editor calls it when it opens and closes."
        ) { run($0, $1, tastudioEngage) },
        LuaFunction(
            "save", returns: "string?, string?",
            doc:
                """
                Saves the movie to the file it was opened from (durably), as the editor's save key does. The file \
                as it was when the movie was opened is kept as `FILE.bak`. Returns the movie's path and \
                the backup's path when one was made this time (nil after later saves), or `nil, message`.
                """
        ) { run($0, $1, tastudioSave) },
        LuaFunction(
            "mode", returns: "string",
            doc: "The movie's mode: `\"idle\"` (no movie), `\"record\"`, `\"play\"` or `\"finished\"`."
        ) { run($0, $1, tastudioMode) },
        LuaFunction(
            "seek", "frame: integer", returns: "boolean?, string?",
            doc:
                """
                Moves the movie to `frame` (0…length): the greenzone's nearest state at or before it, then the \
                movie's frames to it, run without picture, sound or callbacks (frame and lag counters move as in \
                play). The movie then plays from there (and records past its end in read-write mode). Not \
                allowed during the input poll or in hardcore mode.
                """
        ) { run($0, $1, tastudioSeek) },
        LuaFunction(
            "get_mask", "frame: integer, port?: integer", returns: "integer?",
            doc:
                """
                The buttons of `frame` on `port` (default 1) as a RetroPad bit mask (bit `n` = button id `n`: \
                b=0, y=1, select=2, start=3, up=4, down=5, left=6, right=7, a=8, x=9, …); nil outside the movie.
                """
        ) { run($0, $1, tastudioGetMask) },
        LuaFunction(
            "get_button", "frame: integer, port: integer, button: string", returns: "boolean?",
            doc: "Whether `button` is held on `frame` and `port`; nil outside the movie."
        ) { run($0, $1, tastudioGetButton) },
        LuaFunction(
            "islag", "frame: integer", returns: "boolean?",
            doc:
                """
                Whether `frame` lagged (the core did not read input): as it last ran, else as the movie \
                recorded it; nil when unknown (edited and not run since).
                """
        ) { run($0, $1, tastudioIslag) },
        LuaFunction(
            "hasstate", "frame: integer", returns: "boolean",
            doc: "Whether the greenzone holds a state of `frame` (taken just before it runs)."
        ) { run($0, $1, tastudioHasstate) },
        LuaFunction(
            "greenzone", "frame: integer", returns: "boolean",
            doc:
                "Whether `frame` is in the greenzone: it ran on the movie's current input, and a state before it is kept."
        ) { run($0, $1, tastudioGreenzone) },
        LuaFunction(
            "greenzone_info", "settings?: table", returns: "table",
            doc:
                """
                The greenzone: `{states=, bytes=, last= (its last frame or nil), enabled=, near=, mid=, mid_step=, \
                far_step= (after thinning), memory_mb=}`. With `settings` (same keys: `enabled`, `near`, `mid`, \
                `mid_step`, `far_step`, `memory_mb`), changes them first: every state within `near` frames of the \
                current one is kept, every `mid_step`-th within `mid`, every `far_step`-th beyond; over \
                `memory_mb` the far ones thin out, then the oldest go.
                """
        ) { run($0, $1, tastudioGreenzoneInfo) },
        LuaFunction(
            "on_changed", "fn: function", returns: "integer",
            doc:
                "Calls `fn(frame)` after every edit of the movie (the `movie_changed` event); returns an id for `event.off`."
        ) { run($0, $1, tastudioOnChanged) },
    ]

    private static func applyGreenzoneSettings(_ call: LuaCall, _ engine: MovieEngine) throws(LuaCallError) {
        var settings = engine.greenzone.settings
        func count(_ key: String, _ range: ClosedRange<Int>) throws(LuaCallError) -> Int? {
            guard let value = try call.integerField(1, key, argument: 1) else { return nil }
            guard range.contains(value) else {
                throw call.badField(1, key, "must be \(range.lowerBound)…\(range.upperBound)")
            }
            return value
        }
        settings.nearFrames = try count("near", 0...1_000_000) ?? settings.nearFrames
        settings.midFrames = try count("mid", 0...10_000_000) ?? settings.midFrames
        settings.midStep = try count("mid_step", 1...1_000_000) ?? settings.midStep
        settings.farStep = try count("far_step", 1...1_000_000) ?? settings.farStep
        if let megabytes = try call.numberField(1, "memory_mb", argument: 1) {
            guard megabytes >= 1, megabytes <= 65536 else { throw call.badField(1, "memory_mb", "must be 1…65536") }
            settings.memoryLimit = Int(megabytes * 1_048_576)
        }
        engine.greenzone.update(settings)
        if let enabled = try call.booleanField(1, "enabled", argument: 1) {
            engine.greenzoneEnabled = enabled
            if !enabled { engine.greenzone.clear() }
        }
    }

    // MARK: - The functions

    private static func tastudioEngaged(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        return call.returning(engine.editorEngaged && engine.isActive)
    }

    private static func tastudioEngage(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.movie.editorEngaged = try call.boolean(1, "on")
        return 0
    }

    private static func tastudioSave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        var backup: String?
        try call.nested(script) { () throws(Refusal) in backup = try script.emulator.saveMovie(to: nil) }
        call.push(script.emulator.movie.path ?? "")
        if let backup { call.push(backup) } else { call.pushNil() }
        return 2
    }

    private static func tastudioMode(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.mode.rawValue)
    }

    private static func tastudioSeek(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1)
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.seekMovie(to: frame) }
    }

    private static func tastudioGetMask(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        let frame = try tasFrame(call, 1), port = try portArgument(call, 2, fallback: 1)
        guard let (input, _) = engine.input(at: frame), port < engine.movie?.log.ports ?? 0 else {
            call.pushNil()
            return 1
        }
        return call.returning(Int(input.buttons[port]))
    }

    private static func tastudioGetButton(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        let frame = try tasFrame(call, 1), port = try portArgument(call, 2), button = try tasButton(call, 3)
        guard let (input, _) = engine.input(at: frame) else {
            call.pushNil()
            return 1
        }
        return call.returning(input.isPressed(button, port: port))
    }

    private static func tastudioIslag(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let lag = script.emulator.movie.lagged(try tasFrame(call, 1))
        if let lag { call.push(lag) } else { call.pushNil() }
        return 1
    }

    private static func tastudioHasstate(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.greenzone.contains(try tasFrame(call, 1)))
    }

    private static func tastudioGreenzone(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.inGreenzone(try tasFrame(call, 1)))
    }

    private static func tastudioGreenzoneInfo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        if try call.optionalTable(1, "settings") { try applyGreenzoneSettings(call, engine) }
        let zone = engine.greenzone
        call.newTable(fields: 9)
        call.set("states", zone.count)
        call.set("bytes", zone.memoryUsed)
        if let last = zone.lastFrame { call.set("last", last) }
        call.set("enabled", engine.greenzoneEnabled)
        call.set("near", zone.settings.nearFrames)
        call.set("mid", zone.settings.midFrames)
        call.set("mid_step", zone.settings.midStep)
        call.set("far_step", zone.farStep)
        call.set("memory_mb", Double(zone.settings.memoryLimit) / 1_048_576)
        return 1
    }

    private static func tastudioOnChanged(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.function(1, "fn")
        return call.returning(script.addCallback(.movieChanged, functionAt: 1, in: call.L))
    }
}
