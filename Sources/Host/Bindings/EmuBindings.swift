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
        functions: [
            LuaFunction(
                "frameadvance",
                doc:
                    """
                    Waits until the next frame has run (main chunk only: it yields the script's coroutine). \
                    Callbacks run every frame already and cannot wait.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let script = Script.from(context)
                    guard lh_isyieldable(L) != 0, L == script.thread else {
                        throw call.error(
                            "only the main chunk can wait for frames; callbacks already run once per frame")
                    }
                    if script.emulator.phase == .inputPoll { throw call.error(Refusal.inputPoll.reason) }
                    return LH_YIELD
                }
            },
            LuaFunction("framecount", returns: "integer", doc: "Frames run since the content was loaded.") {
                L, context in
                LuaCall.run(L) { call in
                    call.push(Script.from(context).emulator.session.frameCount)
                    return 1
                }
            },
            LuaFunction(
                "lagcount", returns: "integer", doc: "Frames in which the core never polled input (lag frames)."
            ) { L, context in
                LuaCall.run(L) { call in
                    call.push(Script.from(context).emulator.session.lagCount)
                    return 1
                }
            },
            LuaFunction("islagged", returns: "boolean", doc: "Whether the last frame was a lag frame.") { L, context in
                LuaCall.run(L) { call in
                    call.push(Script.from(context).emulator.session.lastFrameLagged)
                    return 1
                }
            },
            LuaFunction(
                "pause",
                doc:
                    """
                    Pauses emulation in a windowed run (frame advance still works). Headless runs are never paced \
                    or paused.
                    """
            ) { L, context in
                LuaCall.run(L) { _ in
                    Script.from(context).emulator.paused = true
                    return 0
                }
            },
            LuaFunction("unpause", doc: "Resumes emulation.") { L, context in
                LuaCall.run(L) { _ in
                    Script.from(context).emulator.paused = false
                    return 0
                }
            },
            LuaFunction("paused", returns: "boolean", doc: "Whether emulation is paused.") { L, context in
                LuaCall.run(L) { call in
                    call.push(Script.from(context).emulator.paused)
                    return 1
                }
            },
            LuaFunction(
                "speed", "factor?: number", returns: "number",
                doc:
                    """
                    Gets or sets the pacing: 1.0 is real time, 2.0 double speed, 0 unthrottled. Changes pacing \
                    only, never emulation. Returns the speed in effect.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let emulator = Script.from(context).emulator
                    if let factor = try call.optionalNumber(1, "factor") {
                        guard factor >= 0, factor.isFinite else {
                            throw call.badArgument(1, "factor", "must be 0 or more")
                        }
                        try emulator.setSpeed(factor)
                    }
                    call.push(emulator.speed)
                    return 1
                }
            },
            LuaFunction(
                "hardcore", "on?: boolean", returns: "boolean",
                doc:
                    """
                    RetroAchievements hardcore mode: with an argument, turns it on or off, and returns whether it \
                    is on. While on, state loads, rewind, slow motion, cheats, script memory writes, joypad \
                    overrides and movie playback are refused with `nil, message`. Turning it on disables every \
                    cheat, stops a playing movie, returns to normal speed and resets the game (as RetroArch does).
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let script = Script.from(context)
                    if let on = try call.optionalBoolean(1, "on") {
                        try call.nested(script) { () throws(Refusal) in try script.emulator.setHardcore(on) }
                    }
                    call.push(script.emulator.hardcore)
                    return 1
                }
            },
            LuaFunction(
                "reset", returns: "boolean?, string?",
                doc:
                    """
                    Soft-resets the core (like the console's reset button) and fires the reset event. While a \
                    movie records, the reset is logged; while one plays, resets come from the movie and this \
                    returns `nil, message`. Not allowed during the input poll.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let script = Script.from(context)
                    try call.nested(script) { () throws(Refusal) in try script.emulator.reset() }
                    call.push(true)
                    return 1
                }
            },
            LuaFunction(
                "power", returns: "boolean?, string?",
                doc:
                    """
                    Power-cycles the console: the game restarts from power-on (the state right after loading, \
                    battery save RAM kept). Fires the reset event; logged by a recording movie. `nil, message` \
                    while a movie plays or when the core could not save its power-on state. Not allowed during \
                    the input poll.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let script = Script.from(context)
                    try call.nested(script) { () throws(Refusal) in try script.emulator.power() }
                    call.push(true)
                    return 1
                }
            },
        ] + coreInfoFunctions + [
            LuaFunction(
                "message", "text: string",
                doc:
                    """
                    Shows a short message to the player: fires the `message` event (the default OSD draws it); \
                    printed to stderr when no script listens, and also when one does (not with `--quiet`); \
                    written to the `--log` file either way; read aloud with `--speak`.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let text = try call.string(1, "text")
                    let script = Script.from(context)
                    call.nested(script) { script.emulator.show(message: text, from: script.name) }
                    return 0
                }
            },
            LuaFunction(
                "speak", "text: string", returns: "boolean",
                doc:
                    """
                    Reads `text` aloud under `--speak` without showing it (the menu's focused item, a tool's \
                    prompt): a newer call replaces text not yet spoken, so moving through a list does not queue \
                    every item. Returns whether speech is on (false without `--speak`).
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let text = try call.string(1, "text")
                    let speak = Script.from(context).host.onSpeak
                    speak?(text)
                    call.push(speak != nil)
                    return 1
                }
            },
            LuaFunction(
                "step", doc: "While paused, runs exactly one more frame (frame advance); no effect when running."
            ) { L, context in
                LuaCall.run(L) { _ in
                    Script.from(context).emulator.stepRequested = true
                    return 0
                }
            },
            LuaFunction(
                "run_frame", "options?: table",
                doc:
                    """
                    Runs the core one frame right now, outside the frame loop — for run-ahead: no events, \
                    counters unchanged, the player's input as held; options `video`, `audio` (booleans, default \
                    true) tell the core whether its picture and sound are wanted (suppressed sound is discarded). \
                    Allowed between frames only (e.g. in `frame_end`); restore a state afterwards to undo it.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    var video = true, audio = true
                    if try call.optionalTable(1, "options") {
                        video = try call.booleanField(1, "video", argument: 1) ?? true
                        audio = try call.booleanField(1, "audio", argument: 1) ?? true
                    }
                    try Script.from(context).emulator.runExtraFrame(video: video, audio: audio)
                    return 0
                }
            },
        ] + dataFunctions + [
            LuaFunction(
                "stats", returns: "table",
                doc:
                    """
                    Where frame time goes: `{frames=, seconds= (wall time since the start), dropped=, \
                    duplicated=, underruns=, core_ms=, scripts_ms=, audio_ms=, present_ms=, last={core_ms=, …}}` \
                    — means per frame since the start, and the last frame's times.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let stats = Script.from(context).emulator.stats
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
                    lua_setfield(L, -2, "last")
                    return 1
                }
            },
            LuaFunction(
                "exit", "code?: integer",
                doc:
                    """
                    Ends the run at the end of the current frame; the process exits with `code` (default 0). \
                    `exit` callbacks run first.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let code = try call.optionalInteger(1, "code") ?? 0
                    guard (0...255).contains(code) else { throw call.badArgument(1, "code", "must be 0…255") }
                    Script.from(context).emulator.requestExit(Int32(code))
                    return 0
                }
            },
            LuaFunction(
                "result", "key: string, value: number|string|boolean|nil",
                doc:
                    """
                    Records a result of the run under `key` (nil removes it): `retrolua run --json` prints them \
                    under `results`, and `retrolua batch` collects them per job — a bot's score, a search's best \
                    frame.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let script = Script.from(context)
                    let host = script.host
                    let key = try call.string(1, "key")
                    // What the host keeps for the report counts against the script's cap.
                    let size = key.utf8.count + (call.type(2) == LUA_TSTRING ? Int(lua_rawlen(L, 2)) : 8)
                    try script.hold(call.isNoneOrNil(2) ? 0 : size, as: "result " + key, for: "emu.result: the value")
                    switch call.type(2) {
                    case LUA_TNIL, LUA_TNONE: host.results[key] = nil
                    case LUA_TBOOLEAN: host.results[key] = try call.boolean(2, "value")
                    case LUA_TSTRING: host.results[key] = try call.string(2, "value")
                    case LUA_TNUMBER:
                        host.results[key] =
                            lua_isinteger(L, 2) != 0 ? try call.integer(2, "value") : try call.number(2, "value")
                    default:
                        throw call.badArgument(
                            2, "value", "number, string, boolean or nil expected, got \(call.typeName(2))")
                    }
                    return 0
                }
            },
        ])
}
