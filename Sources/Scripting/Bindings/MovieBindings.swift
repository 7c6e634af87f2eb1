import CLua
import Emulation
import Libretro
import LuaRuntime

extension Bindings {
    /// A movie frame argument: 0 is the movie's first frame.
    static func movieFrame(_ call: LuaCall, _ index: Int32) throws(LuaCallError) -> Int {
        let frame = try call.integer(index, "frame")
        guard frame >= 0 else { throw call.badArgument(index, "frame", "must be 0 or more") }
        return frame
    }

    /// `movie.frame` and `movie.length`, which `tastudio` has too.
    static let movieFrameFunction = LuaFunction(
        "frame", returns: "integer",
        doc: "The movie frame about to run (frames played or recorded so far); 0 without a movie."
    ) { run($0, $1, movieCurrentFrame) }

    static let movieLengthFunction = LuaFunction(
        "length", returns: "integer", doc: "Frames in the movie; 0 without one."
    ) { run($0, $1, movieLength) }

    static let movie = LuaModule(
        "movie",
        doc: """
            TAS movies: frame-exact input recording and playback, rerecords, read-only/read-write, named branches \
            and verification (see docs/guides/tas.md). Movie frames count from 0 (the movie's first frame); \
            `movie.frame()` is the frame about to run. While a movie plays, its input replaces the player's and \
            `joypad.set` overrides. A savestate made during a movie carries the movie's input: loading it in \
            read-write mode replaces the input from that frame on and counts a rerecord; in read-only mode it must \
            be on the movie's timeline. Files: `.rlm` (Retrolua's text format), `.bk2` (BizHawk), `.fm2` (FCEUX), \
            chosen by extension. Events: `movie_start(mode)`, `movie_end()`, `movie_desync(frame)`.
            """,
        functions: movieFiles + movieTimeline + movieBranches)

    /// Recording, playing, stopping and saving a movie file.
    private static let movieFiles: [LuaFunction] = [
        LuaFunction(
            "record", "path: string, options?: table", returns: "boolean?, string?",
            doc:
                """
                Starts recording to `path` (a new file: existing files are never overwritten unless \
                `overwrite = true`). Options: `from` = `\"power\"` (default: power-cycle, with the game's \
                save RAM as the core creates it; a core that cannot save its power-on state starts as it is \
                when nothing has run yet, else from the first state it gave, stored in the movie and noted \
                as `anchor` in its header) or `\"now\"` (also `\"state\"`: start from the current \
                state, stored in the movie); `author`; `verify` (log a hash every frame for `retrolua movie \
                verify` of the core's system RAM, else its RAM-like memory, else the picture: recording says \
                which, and the header's `verify-covers`); `ports` (1…8, default 2). The movie is written when \
                stopped and at exit.
                """
        ) { run($0, $1, movieRecord) },
        LuaFunction(
            "play", "path: string, options?: table", returns: "boolean?, string?",
            doc:
                """
                Plays a movie file from its start (power-on or its start state). Options: `readonly` (default \
                true), `force` (play against another core or content, with a warning). A movie made with \
                other content or another core is refused with `nil, message`; core options are set to the \
                movie's. Warnings are shown as messages.
                """
        ) { run($0, $1, moviePlay) },
        LuaFunction(
            "stop", returns: "boolean?, string?",
            doc:
                """
                Ends the movie (a recording is saved first; `nil, message` if that fails, and the movie stays \
                active). The game runs on.
                """
        ) { run($0, $1, movieStop) },
        LuaFunction(
            "save", "path?: string", returns: "boolean?, string?",
            doc:
                """
                Writes the movie now (durably), to `path` or its own file; a played movie is only ever \
                written by this call.
                """
        ) { run($0, $1, movieSave) },
    ]

    /// The movie's mode, frames, input and rerecords.
    private static let movieTimeline: [LuaFunction] = [
        LuaFunction(
            "mode", returns: "string",
            doc:
                """
                `\"idle\"`, `\"record\"`, `\"play\"` or `\"finished\"` (played to the end in read-only mode; \
                the player has control).
                """
        ) { run($0, $1, movieMode) },
        movieFrameFunction, movieLengthFunction,
        LuaFunction(
            "input", "frame: integer, port?: integer", returns: "table?, string?",
            doc:
                """
                The buttons logged for `frame` on `port` (default 1) as `{a=true, …}`, plus the frame's \
                command (`\"reset\"`, `\"power\"` or nil) as a second value; `nil, message` outside the movie.
                """
        ) { run($0, $1, movieInput) },
        LuaFunction(
            "set_input", "frame: integer, port: integer, buttons: table, command?: string",
            doc:
                """
                Rewrites the input of `frame` on `port` (`buttons` as `{a=true, …}`: absent = released; \
                `frame` = `movie.length()` appends). `command` `\"reset\"` or `\"power\"` puts that command \
                on the frame. Verification hashes from `frame` on are dropped. Returns `true`, or `nil, \
                message`.
                """
        ) { run($0, $1, movieSetInput) },
        LuaFunction(
            "rerecords", "count?: integer", returns: "integer",
            doc: "The movie's rerecord count; with `count`, sets it. 0 without a movie."
        ) { run($0, $1, movieRerecords) },
        LuaFunction(
            "set_rerecord_counting", "on: boolean",
            doc:
                """
                Whether state loads in read-write mode count as rerecords (on by default; bots that load \
                states thousands of times turn it off).
                """
        ) { run($0, $1, movieSetRerecordCounting) },
        LuaFunction(
            "readonly", "on?: boolean", returns: "boolean",
            doc:
                """
                Read-only mode: with an argument, sets it (turning it on while recording switches to \
                playback; off at the end of a played movie resumes recording). Returns the mode.
                """
        ) { run($0, $1, movieReadonly) },
    ]

    // MARK: - The functions

    private static func movieCurrentFrame(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.frame)
    }

    private static func movieLength(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.movie?.length ?? 0)
    }

    private static func movieRecord(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        try script.checkFileAccess(path, write: true)
        var options = MovieEngine.RecordOptions()
        if try call.optionalTable(2, "options") {
            switch try call.stringField(2, "from", argument: 2) ?? "power" {
            case "power": options.start = .power
            case "now", "state": options.start = .now
            case let other:
                throw call.badField(2, "from", "\"power\" or \"now\" expected, got \"\(other)\"")
            }
            options.author = try call.stringField(2, "author", argument: 2) ?? ""
            options.verify = try call.booleanField(2, "verify", argument: 2) ?? false
            options.overwrite = try call.booleanField(2, "overwrite", argument: 2) ?? false
            options.ports = try call.integerField(2, "ports", argument: 2) ?? 2
            guard (1...InputState.maxPorts).contains(options.ports) else {
                throw call.badField(2, "ports", "must be 1…\(InputState.maxPorts)")
            }
        }
        return try emulatorCall(call, script) { emulator throws(Refusal) in
            do throws(Refusal) { try emulator.recordMovie(to: path, options: options) } catch {
                // Lua's spelling of the option that allows recording over a file.
                throw Refusal(
                    error.kind,
                    error.reason.replacingOccurrences(
                        of: MovieEngine.overwriteHint, with: "choose another name, or pass overwrite = true"
                    ))
            }
        }
    }

    private static func moviePlay(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        var options = MovieEngine.PlayOptions()
        if try call.optionalTable(2, "options") {
            options.readOnly = try call.booleanField(2, "readonly", argument: 2) ?? true
            options.force = try call.booleanField(2, "force", argument: 2) ?? false
        }
        // A movie played read-write is saved back to its file.
        try script.checkFileAccess(path, write: !options.readOnly)
        var warnings: [String] = []
        let result = try emulatorCall(call, script) { emulator throws(Refusal) in
            warnings = try emulator.playMovie(at: path, options: options)
        }
        call.nested(script) {
            for warning in warnings { script.emulator.show(message: "movie: \(warning)", from: "movie") }
        }
        return result
    }

    private static func movieStop(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.stopMovie() }
    }

    private static func movieSave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.optionalString(1, "path")
        if let path { try script.checkFileAccess(path, write: true) }
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.saveMovie(to: path) }
    }

    private static func movieMode(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.movie.mode.rawValue)
    }

    private static func movieInput(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        let frame = try movieFrame(call, 1)
        let port = try portArgument(call, 2, fallback: 1)
        guard let (input, flags) = engine.input(at: frame) else {
            guard engine.isActive else { return call.failure("no movie is active", kind: Refusal.Kind.movie.name) }
            return call.failure(
                "frame \(frame) is past the movie's end (\(engine.movie?.length ?? 0) frames)",
                kind: Refusal.Kind.outOfRange.name)
        }
        pushButtons(call, input, port: port)
        if flags.contains(.power) {
            call.push("power")
        } else if flags.contains(.reset) {
            call.push("reset")
        } else {
            call.pushNil()
        }
        return 2
    }

    private static func movieSetInput(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        let frame = try movieFrame(call, 1)
        let port = try portArgument(call, 2)
        try call.table(3, "buttons")
        var flags: MovieFrameFlags = []
        switch try call.optionalString(4, "command") {
        case nil: break
        case "reset": flags = .reset
        case "power": flags = .power
        case let other?:
            throw call.badArgument(4, "command", "\"reset\" or \"power\" expected, got \"\(other)\"")
        }
        guard let movie = engine.movie else { return call.failure("no movie is active", kind: Refusal.Kind.movie.name) }
        guard port < movie.log.ports else {
            return call.failure("the movie logs \(movie.log.ports) ports", kind: Refusal.Kind.outOfRange.name)
        }
        var input = engine.input(at: frame)?.0 ?? InputState()
        try readButtons(call, 3, into: &input, port: port)
        if flags.isEmpty, let old = engine.input(at: frame)?.1 { flags = old.intersection(.commands) }
        return try emulatorCall(call, script) { emulator throws(Refusal) in
            try emulator.setMovieInput(frame, input, flags: flags)
        }
    }

    private static func movieRerecords(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        if let count = try call.optionalInteger(1, "count") {
            guard count >= 0 else { throw call.badArgument(1, "count", "must be 0 or more") }
            engine.setRerecords(count)
        }
        return call.returning(engine.movie?.rerecords ?? 0)
    }

    private static func movieSetRerecordCounting(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.movie.countsRerecords = try call.boolean(1, "on")
        return 0
    }

    private static func movieReadonly(_ call: LuaCall, _ script: Script) throws -> Int32 {
        if let on = try call.optionalBoolean(1, "on") {
            call.nested(script) { script.emulator.setMovieReadOnly(on) }
        }
        return call.returning(script.emulator.movie.readOnly)
    }
}
