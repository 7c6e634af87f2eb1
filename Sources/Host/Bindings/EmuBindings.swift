import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// A data-folder path from a script's relative name (no absolute paths, no `..`).
    private static func dataPath(_ call: LuaCall, _ host: ScriptHost) throws(LuaCallError) -> String {
        let name = try call.string(1, "name")
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !name.hasPrefix("/"), !parts.contains(".."), !parts.contains(""), !name.contains("\0")
        else {
            throw call.badArgument(1, "name", "a relative path inside the data folder expected, got '\(name)'")
        }
        return host.options.dataFolder + "/" + name
    }

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
            LuaFunction(
                "info", returns: "table",
                doc:
                    """
                    The running core and content: `{core=, core_version=, core_path=, system=, extensions=, fps=, \
                    sample_rate=, width=, height=, max_width=, max_height=, aspect=, pixel_format=, rom={path=, \
                    name=, size=, sha1=, crc32=}}`. `width`/`height` are the last frame's.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let session = Script.from(context).emulator.session
                    let core = session.core
                    call.newTable(fields: 16)
                    call.set("core", session.coreName)
                    call.set("core_name", core.systemInfo.libraryName)
                    call.set("core_version", core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces))
                    call.set("core_path", core.path)
                    call.set("extensions", core.systemInfo.validExtensions.joined(separator: "|"))
                    if let av = core.avInfo {
                        call.set("fps", av.fps)
                        call.set("sample_rate", av.sampleRate)
                        call.set("max_width", av.maxWidth)
                        call.set("max_height", av.maxHeight)
                        call.set("aspect", av.aspectRatio)
                        call.set("width", core.frameWidth > 0 ? core.frameWidth : av.baseWidth)
                        call.set("height", core.frameHeight > 0 ? core.frameHeight : av.baseHeight)
                    }
                    call.set("pixel_format", core.pixelFormat.description)
                    if let system = session.systemName { call.set("system", system) }
                    if let content = session.content {
                        call.newTable(fields: 5)
                        call.set("path", content.path)
                        call.set("name", content.baseName)
                        call.set("size", content.bytes.count)
                        call.set("sha1", content.sha1)
                        call.set("crc32", content.crc32)
                        lua_setfield(L, -2, "rom")
                    }
                    return 1
                }
            },
            LuaFunction(
                "option", "key: string, value?: string", returns: "string?, string?",
                doc:
                    """
                    Gets a core option's value, or sets it (the core sees the change at its next check). Returns \
                    the value in effect, or `nil, message` for an unknown key or a value the core does not offer.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let options = Script.from(context).emulator.session.core.options
                    let key = try call.string(1, "key")
                    guard options.definitions.contains(where: { $0.key == key }) else {
                        return call.failure("the core has no option '\(key)'")
                    }
                    if let value = try call.optionalString(2, "value"), let problem = options.set(key, value) {
                        return call.failure(problem)
                    }
                    call.push(options.value(key) ?? "")
                    return 1
                }
            },
            LuaFunction(
                "options", returns: "table",
                doc: "Every core option: a list of `{key=, description=, values={…}, default=, value=}`."
            ) { L, context in
                LuaCall.run(L) { call in
                    let options = Script.from(context).emulator.session.core.options
                    call.newTable(array: options.definitions.count)
                    for (index, definition) in options.definitions.enumerated() {
                        call.newTable(fields: 5)
                        call.set("key", definition.key)
                        call.set("description", definition.description)
                        call.set("default", definition.defaultValue)
                        call.set("value", options.value(definition.key) ?? definition.defaultValue)
                        call.newTable(array: definition.values.count)
                        for (position, value) in definition.values.enumerated() {
                            call.push(value)
                            lua_rawseti(L, -2, lua_Integer(position + 1))
                        }
                        lua_setfield(L, -2, "values")
                        lua_rawseti(L, -2, lua_Integer(index + 1))
                    }
                    return 1
                }
            },
            LuaFunction(
                "message", "text: string",
                doc:
                    """
                    Shows a short message to the player: fires the `message` event (the default OSD draws it); \
                    printed to stderr when no script listens.
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
            LuaFunction(
                "paths", returns: "table",
                doc: "The user's folders: `{config=, data=, saves=, states=, screenshots=, system=}`."
            ) { L, context in
                LuaCall.run(L) { call in
                    let paths = Script.from(context).emulator.session.paths
                    call.newTable(fields: 6)
                    call.set("config", paths.config)
                    call.set("data", paths.data)
                    call.set("saves", paths.saves)
                    call.set("states", paths.states)
                    call.set("screenshots", paths.screenshots)
                    call.set("system", paths.system)
                    return 1
                }
            },
            LuaFunction(
                "save_data", "name: string, contents: string", returns: "boolean?, string?",
                doc:
                    """
                    Writes `contents` durably (temporary file, fsync, rename: a crash never leaves half a file) \
                    as `name` in the data folder (`emu.paths().data`) — for a script's own saves, such as \
                    achievement progress. `name` is a relative path (folders are created) without `..`.
                    """
            ) { L, context in
                LuaCall.run(L) { call in
                    let host = Script.from(context).host
                    let path = try dataPath(call, host)
                    let contents = try call.bytes(2, "contents")
                    do { try DurableFile.write(contents, to: path) } catch { return call.failure("\(error)") }
                    call.push(true)
                    return 1
                }
            },
            LuaFunction(
                "load_data", "name: string", returns: "string?, string?",
                doc: "Reads a file of the data folder (written by `emu.save_data`); `nil, message` when there is none."
            ) { L, context in
                LuaCall.run(L) { call in
                    let path = try dataPath(call, Script.from(context).host)
                    guard let data = FileManager.default.contents(atPath: path) else {
                        return call.failure("\(path): no such file")
                    }
                    data.withUnsafeBytes { call.push(bytes: $0) }
                    return 1
                }
            },
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
                    let host = Script.from(context).host
                    let key = try call.string(1, "key")
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
