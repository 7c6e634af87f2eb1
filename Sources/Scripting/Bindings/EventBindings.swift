import Emulation
import CLua
import CLuaShim
import LuaRuntime

extension Bindings {
    static let event = LuaModule(
        "event",
        doc: """
            Callbacks. Events: `frame_start`, `input` (inside the core's input poll: set the joypad here for this \
            frame), `frame_end`, `draw` (also while paused in a window, about once a display frame, to redraw the \
            `hud`: what it draws on `emu` then is set aside), `state_saved`, `state_loaded`, `reset`, `exit`; from \
            the host's devices in a \
            window, before `frame_start`: `key_down(key, is_repeat, mods)`, `key_up(key, mods)` — `mods` is \
            `{ctrl=, shift=, alt=, gui=}` (booleans), the modifiers held as that key went down or up, so a chord \
            typed within one frame is still ctrl+n though `input.keys()` no longer holds the ctrl —, \
            `mouse_down(button, x, y)`, `mouse_up(button, x, y)` (`"left"`, `"middle"`, `"right"`, `"x1"`, \
            `"x2"`, in window coordinates: a click within one frame is both, though `input.mouse()` never shows \
            it held), `gamepad(name, connected)`; and `message(text)` from `emu.message` (the OSD listens); \
            `movie_changed(frame)` after an edit of the movie (`tastudio`); `script_failed(name, message, \
            watched)` when another script failed and was unloaded (`message`'s first line is file:line: the \
            error; `watched`: `--watch` loads it again once its file is saved) and `script_loaded(name)` when \
            one was loaded or reloaded; `agent(text)` when a control client (an attached agent) says what it is \
            doing (a request's `activity`), `agent(nil)` when a client that said so leaves. Callbacks of one \
            event run in registration order; an error in one \
            unloads its script (the others go on).
            """,
        functions: [
            LuaFunction(
                "on", "name: string, fn: function", returns: "integer",
                doc: "Calls `fn` on every `name` event; returns an id for `event.off`."
            ) { run($0, $1, eventOn) },
            LuaFunction(
                "off", "id: integer", returns: "boolean",
                doc: "Removes a callback or watch; returns whether it existed."
            ) { run($0, $1, eventOff) },
            LuaFunction(
                "watch", "domain: string?, address: integer, size: integer, fn: function", returns: "integer",
                doc:
                    """
                    Calls `fn(new, old)` when `size` bytes at `address` changed during a frame. Checked natively \
                    after each frame, so idle watches cost almost nothing. Values of 1–4 bytes are integers in \
                    the domain's byte order; longer ones are strings. `domain` nil means the default domain. \
                    Returns an id for `event.off`.
                    """
            ) { run($0, $1, eventWatch) },
        ])

    // MARK: - The functions

    private static func eventOn(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.string(1, "name")
        guard let event = ScriptEvent(rawValue: name) else {
            throw call.badArgument(
                1, "name",
                """
                unknown event '\(name)'; one of \
                \(ScriptEvent.allCases.map(\.rawValue).joined(separator: ", "))
                """
            )
        }
        try call.function(2, "fn")
        return call.returning(script.addCallback(event, functionAt: 2, in: call.L))
    }

    private static func eventOff(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.remove(id: try call.integer(1, "id")))
    }

    private static func eventWatch(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let memory = script.emulator.memory
        let domain = try memory.domain(call, argument: 1)
        let address = try call.integer(2, "address")
        let size = try call.integer(3, "size")
        guard (1...4096).contains(size) else { throw call.badArgument(3, "size", "must be 1…4096") }
        try call.function(4, "fn")
        let pointer = try memory.pointer(domain, address: address, width: size)
        lua_pushvalue(call.L, 4)
        let reference = luaL_ref(call.L, lh_registryindex())
        let id = script.takeID()
        script.watches.append(
            MemoryWatch(
                id: id, reference: reference, pointer: pointer, size: size, bigEndian: domain.bigEndian))
        return call.returning(id)
    }
}
