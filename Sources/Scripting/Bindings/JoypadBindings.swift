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
            only (or to the current one when set in an `input` callback), on top of the player's input. A pad's \
            buttons as one integer (a mask) have bit `joypad.BUTTONS[name]` set for each held button, as libretro \
            numbers them; `joypad.mask` and `joypad.names` convert.
            """,
        constants: [
            LuaConstant(
                "BUTTONS", type: "table<string, integer>",
                doc: """
                    Each RetroPad button's bit in a mask, by name (libretro's RETRO_DEVICE_ID_JOYPAD_* ids): \
                    `b = 0`, `y = 1`, `select = 2`, `start = 3`, `up = 4`, `down = 5`, `left = 6`, `right = 7`, \
                    `a = 8`, `x = 9`, `l = 10`, `r = 11`, `l2 = 12`, `r2 = 13`, `l3 = 14`, `r3 = 15`. A mask holds \
                    `1 << joypad.BUTTONS.a` when `a` is held.
                    """
            ) { L in
                lua_createtable(L, 0, Int32(RetroPadButton.allCases.count))
                for button in RetroPadButton.allCases {
                    lua_pushinteger(L, lua_Integer(button.rawValue))
                    lua_setfield(L, -2, button.name)
                }
            }
        ],
        functions: [
            LuaFunction(
                "get", "port?: integer", returns: "table",
                doc: "The buttons as the core saw them at its last input poll: `{a=false, b=true, …}`."
            ) { run($0, $1, joypadGet) },
            LuaFunction(
                "set", "port: integer, buttons: table|integer",
                doc:
                    """
                    Forces buttons for the next frame: `true` presses, `false` releases, absent or `nil` leaves \
                    the player's input. Several calls in one frame combine. `buttons` may be a mask (an integer \
                    0…0xFFFF, bits as in `joypad.BUTTONS`): it sets every button, pressing those whose bit is \
                    set and releasing the others.
                    """
            ) { run($0, $1, joypadSet) },
            LuaFunction(
                "mask", "buttons: table", returns: "integer",
                doc:
                    """
                    The mask of the buttons in `buttons`: a list of names (`{"a", "start"}`) or a buttons table \
                    as `joypad.get` returns (`{a=true, b=false, …}`: `true` counts), or both in one table. \
                    `joypad.mask({"a"}) == 1 << joypad.BUTTONS.a`.
                    """
            ) { run($0, $1, joypadMask) },
            LuaFunction(
                "names", "mask: integer", returns: "string[]",
                doc:
                    """
                    The names of the buttons whose bits `mask` (0…0xFFFF) sets, in RetroPad id order (as \
                    `joypad.buttons` lists them): `joypad.names(0x109) == {"b", "start", "a"}`; `{}` for 0.
                    """
            ) { run($0, $1, joypadNames) },
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
        let emulator = script.emulator
        var changes = emulator.overrides
        if lua_type(call.L, 2) == LUA_TNUMBER {
            let mask = try maskArgument(call, 2, "buttons")
            for button in RetroPadButton.allCases {
                changes.set(button, mask & (1 << button.rawValue) != 0, port: port)
            }
            try emulator.setOverrides(changes)
            return 0
        }
        try call.table(2, "buttons")
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

    /// A button mask argument: an integer 0…0xFFFF.
    private static func maskArgument(_ call: LuaCall, _ index: Int32, _ name: String) throws(LuaCallError) -> Int {
        let mask = try call.integer(index, name)
        guard (0...0xFFFF).contains(mask) else {
            throw call.badArgument(index, name, "a mask must be 0…0xFFFF, got \(mask)")
        }
        return mask
    }

    private static func joypadMask(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "buttons")
        lua_settop(call.L, 1)
        var mask = 0
        let problem = "a list of button names or name = boolean entries expected"
        lua_pushnil(call.L)
        while lua_next(call.L, 1) != 0 {
            defer { lua_settop(call.L, 2) }
            let keyType = lua_type(call.L, -2), valueType = lua_type(call.L, -1)
            let named: String
            if keyType == LUA_TSTRING, valueType == LUA_TBOOLEAN {
                guard lua_toboolean(call.L, -1) != 0 else { continue }
                named = String(cString: lua_tolstring(call.L, -2, nil))
            } else if keyType == LUA_TNUMBER, valueType == LUA_TSTRING {
                named = String(cString: lua_tolstring(call.L, -1, nil))
            } else {
                throw call.badArgument(1, "buttons", "\(problem), got a \(call.typeName(-1)) entry")
            }
            guard let button = RetroPadButton.named(named) else {
                throw call.badArgument(1, "buttons", "unknown button '\(named)'; buttons are \(buttonNames)")
            }
            mask |= 1 << button.rawValue
        }
        return call.returning(mask)
    }

    private static func joypadNames(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let mask = try maskArgument(call, 1, "mask")
        let held = RetroPadButton.allCases.filter { mask & (1 << $0.rawValue) != 0 }
        call.pushList(held) { button in
            lua_pushstring(call.L, button.name)
        }
        return 1
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
        call.pushList(buttons) { button in
            lua_pushstring(call.L, button.name)
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
