import Emulation
import CLua
import LuaRuntime
import Media

extension Bindings {
    static let input = LuaModule(
        "input",
        doc: """
            The host's devices: keyboard, mouse and gamepads (not the emulated controllers: see `joypad`). Key names \
            are SDL's, lower-case (`"a"`, `"left"`, `"return"`, `"space"`, `"f1"`); gamepad buttons and axes use SDL \
            GameController names. The `set_*` functions simulate devices for headless runs and tests; in a window, \
            real events overwrite them each frame.
            """,
        functions: [
            LuaFunction(
                "keys", returns: "table",
                doc: """
                    The keys held now: `{left=true, a=true}`. The modifiers of a key press are its event's \
                    (`key_down`'s `mods`): a chord typed within one frame has let go of its ctrl by now.
                    """
            ) { run($0, $1, inputKeys) },
            LuaFunction(
                "mouse", returns: "table",
                doc: """
                    `{x=, y=, left=, middle=, right=, x1=, x2=, wheel=}` in window coordinates: the buttons held \
                    now (a click within one frame shows only as `mouse_down` and `mouse_up` events).
                    """
            ) { run($0, $1, inputMouse) },
            LuaFunction(
                "gamepads", returns: "table",
                doc: "Connected gamepads: a list of `{name=, buttons={a=true, …}, axes={leftx=0, …}}`."
            ) { run($0, $1, inputGamepads) },
            LuaFunction(
                "capture", "on?: boolean", returns: "boolean?, string?",
                doc:
                    """
                    Takes (`true`) or releases (`false`) the host's input for this script, for menus and panels \
                    that must not move the game: while held, key presses reach only this script and the others read \
                    no keys, mouse buttons or gamepads (so the input default sends the game nothing and hotkeys \
                    stay quiet; releases reach every script, so a hold begun before ends). Without an argument, \
                    tells whether this script holds it. One script holds it at a time: `nil, message` naming the \
                    holder; a script that fails or is unloaded releases it.
                    """
            ) { run($0, $1, inputCapture) },
            LuaFunction("set_key", "key: string, pressed: boolean", doc: "Simulates a key being held or released.") {
                run($0, $1, inputSetKey)
            },
            LuaFunction(
                "set_mouse", "state: table",
                doc:
                    """
                    Simulates the mouse: any of `x`, `y`, `wheel` (integers) and `left`, `middle`, `right`, `x1`, \
                    `x2` (booleans).
                    """
            ) { run($0, $1, inputSetMouse) },
            LuaFunction(
                "set_gamepad", "index: integer, state: table|nil",
                doc:
                    """
                    Simulates gamepad `index` (1-based; created if needed): `{name=, buttons={a=true}, \
                    axes={leftx=1000}}`; `nil` unplugs it.
                    """
            ) { run($0, $1, inputSetGamepad) },
        ])

    // MARK: - The functions

    private static func inputKeys(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let keys = script.host.devices(for: script).keys
        call.newTable(fields: keys.count)
        for key in keys.sorted() { call.set(key, true) }
        return 1
    }

    private static func inputMouse(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let mouse = script.host.devices(for: script).mouse
        call.newTable(fields: 8)
        call.set("x", mouse.x)
        call.set("y", mouse.y)
        call.set("wheel", mouse.wheel)
        for button in ["left", "middle", "right", "x1", "x2"] {
            call.set(button, mouse.buttons.contains(button))
        }
        return 1
    }

    private static func inputGamepads(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let pads = script.host.devices(for: script).gamepads
        call.pushList(pads) { pad in
            call.newTable(fields: 3)
            call.set("name", pad.name)
            call.newTable(fields: pad.buttons.count)
            for button in pad.buttons.sorted() { call.set(button, true) }
            lua_setfield(call.L, -2, "buttons")
            call.newTable(fields: pad.axes.count)
            for (axis, value) in pad.axes.sorted(by: { $0.key < $1.key }) { call.set(axis, value) }
            lua_setfield(call.L, -2, "axes")
        }
        return 1
    }

    private static func inputCapture(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let on = try call.optionalBoolean(1, "on") else {
            return call.returning(script.host.capturingScript === script)
        }
        if let holder = script.host.capture(on, by: script) {
            return call.failure("the input is held by \(holder.name)")
        }
        return call.returning(on)
    }

    private static func inputSetKey(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let key = try call.string(1, "key").lowercased()
        let pressed = try call.boolean(2, "pressed")
        let host = script.host
        if pressed { host.screen.devices.keys.insert(key) } else { host.screen.devices.keys.remove(key) }
        return 0
    }

    private static func inputSetMouse(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "state")
        let host = script.host
        var mouse = host.screen.devices.mouse
        if let x = try call.integerField(1, "x", argument: 1) { mouse.x = x }
        if let y = try call.integerField(1, "y", argument: 1) { mouse.y = y }
        if let wheel = try call.integerField(1, "wheel", argument: 1) { mouse.wheel = wheel }
        for button in ["left", "middle", "right", "x1", "x2"] {
            if let pressed = try call.booleanField(1, button, argument: 1) {
                if pressed { mouse.buttons.insert(button) } else { mouse.buttons.remove(button) }
            }
        }
        host.screen.devices.mouse = mouse
        return 0
    }

    private static func inputSetGamepad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let index = try call.integer(1, "index")
        guard (1...16).contains(index) else { throw call.badArgument(1, "index", "must be 1…16") }
        let host = script.host
        if call.isNoneOrNil(2) {
            if index <= host.screen.devices.gamepads.count { host.screen.devices.gamepads.remove(at: index - 1) }
            return 0
        }
        try call.table(2, "state")
        lua_settop(call.L, 2)  // Extra arguments are ignored; the walks below keep their tables at 3.
        while host.screen.devices.gamepads.count < index {
            host.screen.devices.gamepads.append(.init(name: "Simulated gamepad"))
        }
        var pad = host.screen.devices.gamepads[index - 1]
        if let name = try call.stringField(2, "name", argument: 2) { pad.name = name }
        for (field, isButtons) in [("buttons", true), ("axes", false)] {
            guard call.pushField(2, field) == LUA_TTABLE else { lua_settop(call.L, 2); continue }
            try call.forEachNamedEntry(3, argument: 2, "state", keysProblem: "\(field) keys must be names") {
                (key) throws(LuaCallError) in
                if isButtons {
                    guard lua_type(call.L, -1) == LUA_TBOOLEAN else {
                        throw call.badArgument(2, "state", "buttons.\(key) must be a boolean")
                    }
                    if lua_toboolean(call.L, -1) != 0 {
                        pad.buttons.insert(key)
                    } else {
                        pad.buttons.remove(key)
                    }
                } else {
                    var isInteger: Int32 = 0
                    let value = lua_tointegerx(call.L, -1, &isInteger)
                    guard isInteger != 0, lua_type(call.L, -1) == LUA_TNUMBER else {
                        throw call.badArgument(2, "state", "axes.\(key) must be an integer")
                    }
                    pad.axes[key] = Int(max(-32768, min(32767, value)))
                }
            }
            lua_settop(call.L, 2)
        }
        host.screen.devices.gamepads[index - 1] = pad
        return 0
    }
}
