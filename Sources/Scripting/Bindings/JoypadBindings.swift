import CLua
import Emulation
import Libretro
import LuaRuntime

extension Bindings {
    /// `{a=false, b=true, …}`: every button of `port` in `input`.
    static func pushButtons(_ call: LuaCall, _ input: InputState, port: Int) {
        call.newTable(fields: RetroPadButton.allCases.count)
        for button in RetroPadButton.allCases { call.set(button.name, input.isPressed(button, port: port)) }
    }

    /// The buttons table at `index` into `input` on `port`: an absent button is released.
    static func readButtons(
        _ call: LuaCall, _ index: Int32, into input: inout InputState, port: Int
    ) throws(LuaCallError) {
        for button in RetroPadButton.allCases {
            input.set(button, try call.booleanField(index, button.name, argument: index) ?? false, port: port)
        }
    }

    private static let buttonNames = RetroPadButton.allCases.map(\.name).joined(separator: ", ")

    static let joypad = LuaModule(
        "joypad",
        doc: """
            The emulated controllers (RetroPads). Buttons: `up`, `down`, `left`, `right`, `a`, `b`, `x`, `y`, `l`, \
            `r`, `l2`, `r2`, `l3`, `r3`, `select`, `start`. Overrides set with `joypad.set` apply to the next frame \
            only (or to the current one when set in an `input` callback), on top of the player's input.
            """,
        functions: [
            LuaFunction(
                "get", "port?: integer", returns: "table",
                doc: "The buttons as the core saw them at its last input poll: `{a=false, b=true, …}`."
            ) { run($0, $1, joypadGet) },
            LuaFunction(
                "set", "port: integer, buttons: table",
                doc:
                    """
                    Forces buttons for the next frame: `true` presses, `false` releases, absent or `nil` leaves \
                    the player's input. Several calls in one frame combine.
                    """
            ) { run($0, $1, joypadSet) },
            LuaFunction(
                "set_player", "port: integer, state: table",
                doc:
                    """
                    Sets the player's own input on a port — the layer under `joypad.set` overrides, kept until \
                    changed. The input default (lua/defaults/input.lua) maps the host's devices here every frame. \
                    `state` holds every button as a boolean (absent = released) and optionally `left_x`, \
                    `left_y`, `right_x`, `right_y` (−32768…32767).
                    """
            ) { run($0, $1, joypadSetPlayer) },
            LuaFunction(
                "get_player", "port?: integer", returns: "table",
                doc:
                    """
                    The player's own input on a port (default 1), as `joypad.set_player` takes it: every button as \
                    a boolean and `left_x`, `left_y`, `right_x`, `right_y` — what the devices hold, before \
                    `joypad.set` overrides (netplay reads the local player here).
                    """
            ) { run($0, $1, joypadGetPlayer) },
            LuaFunction(
                "set_analog", "port: integer, stick: string, x: integer, y: integer",
                doc: "Forces an analog stick (`\"left\"` or `\"right\"`) for the next frame; axes run −32768…32767."
            ) { run($0, $1, joypadSetAnalog) },
            LuaFunction(
                "get_analog", "port?: integer", returns: "table",
                doc: "The analog axes the core saw: `{left_x=, left_y=, right_x=, right_y=}`."
            ) { run($0, $1, joypadGetAnalog) },
            LuaFunction(
                "buttons", "port?: integer", returns: "table?",
                doc:
                    """
                    The buttons the core says the pad on `port` (default 1) has, from its input descriptors: a \
                    list of names in RetroPad id order (`{"b", "select", "start", "up", …}`), or nil when the \
                    core describes none for the port (then any button may matter).
                    """
            ) { run($0, $1, joypadButtons) },
        ])

    // MARK: - The functions

    private static func joypadGet(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        let input = script.emulator.seenInput
        pushButtons(call, input, port: port)
        return 1
    }

    private static func joypadSet(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        try call.table(2, "buttons")
        let emulator = script.emulator
        var changes = emulator.overrides
        lua_settop(call.L, 2)  // Extra arguments are ignored; the walk below keeps its key at 3.
        try call.forEachNamedEntry(2, argument: 2, "buttons", keysProblem: "keys must be button names") {
            (name) throws(LuaCallError) in
            guard let button = RetroPadButton.named(name) else {
                throw call.badArgument(2, "buttons", "unknown button '\(name)'; buttons are \(buttonNames)")
            }
            guard lua_type(call.L, -1) == LUA_TBOOLEAN else {
                throw call.badArgument(
                    2, "buttons", "'\(name)' must be a boolean, got \(call.typeName(-1))")
            }
            changes.set(button, lua_toboolean(call.L, -1) != 0, port: port)
        }
        try emulator.setOverrides(changes)  // All or nothing: a bad entry changes no button.
        return 0
    }

    private static func joypadSetPlayer(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        try call.table(2, "state")
        let emulator = script.emulator
        var input = emulator.playerInput
        try readButtons(call, 2, into: &input, port: port)
        for (axis, name) in ["left_x", "left_y", "right_x", "right_y"].enumerated() {
            let value = try call.integerField(2, name, argument: 2) ?? 0
            guard (-32768...32767).contains(value) else {
                throw call.badField(2, name, "must be −32768…32767")
            }
            input.setAnalog(port: port, axis: axis, Int16(value))
        }
        emulator.playerInput = input
        return 0
    }

    private static func joypadGetPlayer(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        let input = script.emulator.playerInput
        pushButtons(call, input, port: port)
        for (axis, name) in ["left_x", "left_y", "right_x", "right_y"].enumerated() {
            call.set(name, Int(input.analog(port: port, axis: axis)))
        }
        return 1
    }

    private static func joypadSetAnalog(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        let stick = try call.string(2, "stick")
        guard stick == "left" || stick == "right" else {
            throw call.badArgument(2, "stick", "\"left\" or \"right\" expected, got \"\(stick)\"")
        }
        let x = try call.integer(3, "x"), y = try call.integer(4, "y")
        for (index, value) in [(3, x), (4, y)] where !(-32768...32767).contains(value) {
            throw call.badArgument(Int32(index), index == 3 ? "x" : "y", "must be −32768…32767")
        }
        let emulator = script.emulator
        let base = stick == "left" ? 0 : 2
        var changes = emulator.overrides
        changes.setAxis(base, Int16(x), port: port)
        changes.setAxis(base + 1, Int16(y), port: port)
        try emulator.setOverrides(changes)
        return 0
    }

    private static func joypadButtons(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        let buttons = script.emulator.declaredButtons(port: port)
        guard !buttons.isEmpty else {
            lua_pushnil(call.L)
            return 1
        }
        call.newTable(array: buttons.count)
        for (index, button) in buttons.enumerated() {
            lua_pushstring(call.L, button.name)
            lua_rawseti(call.L, -2, lua_Integer(index + 1))
        }
        return 1
    }

    private static func joypadGetAnalog(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let port = try portArgument(call, 1, fallback: 1)
        let input = script.emulator.seenInput
        call.newTable(fields: 4)
        for (axis, name) in ["left_x", "left_y", "right_x", "right_y"].enumerated() {
            call.set(name, Int(input.analog(port: port, axis: axis)))
        }
        return 1
    }
}
