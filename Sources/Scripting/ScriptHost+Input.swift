import CLua
import Media

/// The host's device events (keys, mouse, gamepads) as script events.
extension ScriptHost {
    /// Delivers the host's device events of this frame to scripts (before the frame runs).
    public func deliver(_ events: [HostEvent]) {
        for event in events {
            // Decided per event: the script that takes or releases the input hears its own key.
            let only = capturingScript
            switch event {
            case .keyDown(let key, let isRepeat, let modifiers):
                dispatch(.keyDown, only: only) { L in
                    lua_pushstring(L, key); lua_pushboolean(L, isRepeat ? 1 : 0)
                    Self.push(modifiers, L)
                    return 3
                }
            case .keyUp(let key, let modifiers):
                // A release reaches every script: it ends what a press began before the input was taken (a
                // fast-forward held when a tool opened), and acts on nothing by itself.
                dispatch(.keyUp) { L in
                    lua_pushstring(L, key); Self.push(modifiers, L); return 2
                }
            case .mouseDown(let button, let x, let y), .mouseUp(let button, let x, let y):
                // As for keys: a press reaches the script holding the input, a release every script.
                let down = if case .mouseDown = event { true } else { false }
                dispatch(down ? .mouseDown : .mouseUp, only: down ? only : nil) { L in
                    lua_pushstring(L, button); lua_pushinteger(L, lua_Integer(x)); lua_pushinteger(L, lua_Integer(y))
                    return 3
                }
            case .gamepadAdded(let name), .gamepadRemoved(let name):
                let connected: Int32 = if case .gamepadAdded = event { 1 } else { 0 }
                // A connection is news, not input: every script hears it.
                dispatch(.gamepad) { L in
                    lua_pushstring(L, name); lua_pushboolean(L, connected); return 2
                }
            default:
                break
            }
        }
        // Chunks the window's console typed run now: between frames, with no script's Lua on the stack.
        console.runQueued()
        reap()
    }

    /// A key event's modifiers as a table: `{ctrl=, shift=, alt=, gui=}`, each a boolean.
    fileprivate static func push(_ modifiers: KeyModifiers, _ L: OpaquePointer) {
        lua_createtable(L, 0, Int32(KeyModifiers.named.count))
        for (name, modifier) in KeyModifiers.named {
            lua_pushboolean(L, modifiers.contains(modifier) ? 1 : 0)
            lua_setfield(L, -2, name)
        }
    }
}
