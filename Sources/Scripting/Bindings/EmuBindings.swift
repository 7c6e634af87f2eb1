import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    static let emu = LuaModule(
        "emu", doc: "The emulator: frames, pacing, reset, the running core and content, core options, ending the run.",
        functions: emuFrames + emuControl + coreInfoFunctions + emuOutput + dataFunctions + emuRun)

    /// Advancing frames, lag, pausing and speed.
    private static let emuFrames: [LuaFunction] = [
        LuaFunction(
            "frameadvance",
            doc:
                """
                Waits until the next frame has run (main chunk only: it yields the script's coroutine). \
                Callbacks run every frame already and cannot wait.
                """
        ) { run($0, $1, emuFrameadvance) },
        LuaFunction("framecount", returns: "integer", doc: "Frames run since the content was loaded.") {
            run($0, $1, emuFramecount)
        },
        LuaFunction(
            "lagcount", returns: "integer", doc: "Frames in which the core never polled input (lag frames)."
        ) { run($0, $1, emuLagcount) },
        LuaFunction("islagged", returns: "boolean", doc: "Whether the last frame was a lag frame.") {
            run($0, $1, emuIslagged)
        },
        LuaFunction(
            "pause",
            doc:
                """
                Pauses emulation in a windowed run (frame advance still works). Headless runs are never paced \
                or paused.
                """
        ) { run($0, $1, emuPause) },
        LuaFunction("unpause", doc: "Resumes emulation.") { run($0, $1, emuUnpause) },
        LuaFunction("paused", returns: "boolean", doc: "Whether emulation is paused.") { run($0, $1, emuPaused) },
        LuaFunction(
            "speed", "factor?: number", returns: "number",
            doc:
                """
                Gets or sets the pacing: 1.0 is real time, 2.0 double speed, 0 unthrottled. Changes pacing \
                only, never emulation. Returns the speed in effect.
                """
        ) { run($0, $1, emuSpeed) },
    ]

    /// Hardcore mode, reset and power.
    private static let emuControl: [LuaFunction] = [
        LuaFunction(
            "hardcore", "on?: boolean", returns: "boolean",
            doc:
                """
                RetroAchievements hardcore mode: with an argument, turns it on or off, and returns whether it \
                is on. While on, state loads, rewind, slow motion, cheats, script memory writes, joypad \
                overrides and movie playback are refused with `nil, message`. Turning it on disables every \
                cheat, stops a playing movie, returns to normal speed and resets the game (as RetroArch does).
                """
        ) { run($0, $1, emuHardcore) },
        LuaFunction(
            "reset", returns: "boolean?, string?",
            doc:
                """
                Soft-resets the core (like the console's reset button) and fires the reset event. While a \
                movie records, the reset is logged; while one plays, resets come from the movie and this \
                returns `nil, message`. Not allowed during the input poll.
                """
        ) { run($0, $1, emuReset) },
        LuaFunction(
            "power", returns: "boolean?, string?",
            doc:
                """
                Power-cycles the console: the game restarts from power-on (the state right after loading, \
                battery save RAM kept). Fires the reset event; logged by a recording movie. `nil, message` \
                while a movie plays or when the core could not save its power-on state. Not allowed during \
                the input poll.
                """
        ) { run($0, $1, emuPower) },
    ]

    /// Messages, speech, stepping and extra frames.
    private static let emuOutput: [LuaFunction] = [
        LuaFunction(
            "message", "text: string",
            doc:
                """
                Shows a short message to the player: fires the `message` event (the default OSD draws it); \
                printed to stderr when no script listens, and also when one does (not with `--quiet`); \
                written to the `--log` file either way; read aloud with `--speak`.
                """
        ) { run($0, $1, emuMessage) },
        LuaFunction(
            "speak", "text: string", returns: "boolean",
            doc:
                """
                Reads `text` aloud under `--speak` without showing it (the menu's focused item, a tool's \
                prompt): a newer call replaces text not yet spoken, so moving through a list does not queue \
                every item. Returns whether speech is on (false without `--speak`).
                """
        ) { run($0, $1, emuSpeak) },
        LuaFunction(
            "step", doc: "While paused, runs exactly one more frame (frame advance); no effect when running."
        ) { run($0, $1, emuStep) },
        LuaFunction(
            "run_frame", "options?: table",
            doc:
                """
                Runs the core one frame right now, outside the frame loop — for run-ahead: no events, \
                counters unchanged, the player's input as held; options `video`, `audio` (booleans, default \
                true) tell the core whether its picture and sound are wanted (suppressed sound is discarded). \
                Allowed between frames only (e.g. in `frame_end`); restore a state afterwards to undo it.
                """
        ) { run($0, $1, emuRunFrame) },
        LuaFunction(
            "replay_frame", "input: table, options?: table",
            doc:
                """
                Runs one frame unseen on `input`, a list of RetroPad bit masks by port (`{mask1, mask2}`; bit \
                `n` = button id `n`, as `tastudio.get_mask`; absent ports released, sticks centred) — the TAS \
                editor's hidden-frame path, for rolling back and replaying (netplay): frame and lag counters and \
                cheats move as in a shown frame; no callbacks, no sound, events dropped; option `video` (default \
                false) asks for the picture, so the last replayed frame can be the one shown. Between frames \
                only, and not while a movie plays or records.
                """
        ) { run($0, $1, emuReplayFrame) },
    ]

    /// Statistics, exit and results of the run.
    private static let emuRun: [LuaFunction] = [
        LuaFunction(
            "stats", returns: "table",
            doc:
                """
                Where frame time goes: `{frames=, seconds= (wall time since the start), dropped=, \
                duplicated=, underruns=, core_ms=, scripts_ms=, audio_ms=, present_ms=, last={core_ms=, …}}` \
                — means per frame since the start, and the last frame's times.
                """
        ) { run($0, $1, emuStats) },
        LuaFunction(
            "exit", "code?: integer",
            doc:
                """
                Ends the run at the end of the current frame; the process exits with `code` (default 0). \
                `exit` callbacks run first.
                """
        ) { run($0, $1, emuExit) },
        LuaFunction(
            "result", "key: string, value: number|string|boolean|nil",
            doc:
                """
                Records a result of the run under `key` (nil removes it): `retrolua run --json` prints them \
                under `results`, and `retrolua batch` collects them per job — a bot's score, a search's best \
                frame.
                """
        ) { run($0, $1, emuResult) },
    ]

    // MARK: - The functions

    private static func emuFrameadvance(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard lh_isyieldable(call.L) != 0, call.L == script.thread || call.L == script.evaluatingThread else {
            throw call.error(
                "only the main chunk can wait for frames; callbacks already run once per frame")
        }
        if script.emulator.phase == .inputPoll { throw call.error(Refusal.inputPoll.reason) }
        return LH_YIELD
    }

    private static func emuFramecount(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.frameCount)
    }

    private static func emuLagcount(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.lagCount)
    }

    private static func emuIslagged(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.lastFrameLagged)
    }

    private static func emuPause(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.paused = true
        return 0
    }

    private static func emuUnpause(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.paused = false
        return 0
    }

    private static func emuPaused(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.paused)
    }

    private static func emuSpeed(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        if let factor = try call.optionalNumber(1, "factor") {
            guard factor >= 0, factor.isFinite else {
                throw call.badArgument(1, "factor", "must be 0 or more")
            }
            try emulator.setSpeed(factor)
        }
        return call.returning(emulator.speed)
    }

    private static func emuHardcore(_ call: LuaCall, _ script: Script) throws -> Int32 {
        if let on = try call.optionalBoolean(1, "on") {
            try call.nested(script) { () throws(Refusal) in try script.emulator.setHardcore(on) }
        }
        return call.returning(script.emulator.hardcore)
    }

    private static func emuReset(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.reset() }
    }

    private static func emuPower(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.power() }
    }

    private static func emuMessage(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        call.nested(script) { script.emulator.show(message: text, from: script.name) }
        return 0
    }

    private static func emuSpeak(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        let speak = script.host.onSpeak
        speak?(text)
        return call.returning(speak != nil)
    }

    private static func emuStep(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.stepRequested = true
        return 0
    }

    private static func emuRunFrame(_ call: LuaCall, _ script: Script) throws -> Int32 {
        var video = true, audio = true
        if try call.optionalTable(1, "options") {
            video = try call.booleanField(1, "video", argument: 1) ?? true
            audio = try call.booleanField(1, "audio", argument: 1) ?? true
        }
        try script.emulator.runExtraFrame(video: video, audio: audio)
        return 0
    }

    private static func emuReplayFrame(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "input")
        var input = InputState()
        for port in 0..<InputState.maxPorts {
            lua_rawgeti(call.L, 1, lua_Integer(port + 1))
            defer { lua_settop(call.L, -2) }
            if lua_type(call.L, -1) == LUA_TNIL { continue }
            var isInteger: Int32 = 0
            let mask = lua_tointegerx(call.L, -1, &isInteger)
            guard isInteger != 0, (0...0xFFFF).contains(mask) else {
                throw call.badArgument(1, "input", "port \(port + 1) must be a button mask 0…65535")
            }
            input.buttons[port] = UInt16(mask)
        }
        var video = false
        if try call.optionalTable(2, "options") { video = try call.booleanField(2, "video", argument: 2) ?? false }
        try call.nested(script) { () throws(Refusal) in
            try script.emulator.runReplayFrame(input: input, picture: video)
        }
        return 0
    }

    private static func emuStats(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let stats = script.emulator.stats
        call.newTable(fields: 10)
        call.set("frames", stats.frames)
        call.set("seconds", stats.wallSeconds)
        call.set("dropped", stats.dropped)
        call.set("duplicated", stats.duplicated)
        call.set("underruns", stats.underruns)
        for phase in FrameStats.Phase.allCases { call.set(phase.name + "_ms", stats.average(phase)) }
        call.newTable(fields: 4)
        for phase in FrameStats.Phase.allCases {
            call.set(phase.name + "_ms", stats.last[phase.rawValue] * 1000)
        }
        lua_setfield(call.L, -2, "last")
        return 1
    }

    private static func emuExit(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let code = try call.optionalInteger(1, "code") ?? 0
        guard (0...255).contains(code) else { throw call.badArgument(1, "code", "must be 0…255") }
        script.emulator.requestExit(Int32(code))
        return 0
    }

    private static func emuResult(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        let key = try call.string(1, "key")
        // What the host keeps for the report counts against the script's cap.
        let size = key.utf8.count + (call.type(2) == LUA_TSTRING ? Int(lua_rawlen(call.L, 2)) : 8)
        try script.hold(call.isNoneOrNil(2) ? 0 : size, as: "result " + key, for: "emu.result: the value")
        switch call.type(2) {
        case LUA_TNIL, LUA_TNONE: host.results[key] = nil
        case LUA_TBOOLEAN: host.results[key] = try call.boolean(2, "value")
        case LUA_TSTRING: host.results[key] = try call.string(2, "value")
        case LUA_TNUMBER:
            host.results[key] =
                lua_isinteger(call.L, 2) != 0 ? try call.integer(2, "value") : try call.number(2, "value")
        default:
            throw call.badArgument(
                2, "value", "number, string, boolean or nil expected, got \(call.typeName(2))")
        }
        return 0
    }
}
