import CLua
import CLuaShim
import LuaRuntime

/// A condition a control client waits for (`step`'s `until_lua`): an expression compiled once in the
/// console's state, so the globals a person or an agent defined there are its globals, then called
/// between frames. Each call runs under the host's runaway clock, like any entry into Lua.
extension ScriptConsole {
    /// Compiles `return (expression)`; the function it gives calls it: whether its value is truthy.
    /// Errors are the compiler's or the call's message (first line).
    public func predicate(_ expression: String) -> Result<() -> Result<Bool, ScriptError>, ScriptError> {
        if host.emulator.phase == .inputPoll {
            return .failure(ScriptError(script: "until_lua", message: "runs between frames"))
        }
        let script: Script
        do { (script, _) = try consoleScript() } catch { return .failure(error) }
        let lua = script.lua
        do {
            // Parenthesized: one value, and a statement (`x = 1`) does not compile.
            try lua.load("return (" + expression + ")", name: "until_lua")
        } catch {
            // An expression that ends in a `--` comment compiles with the parenthesis on a line of its own.
            guard (try? lua.load("return (" + expression + "\n)", name: "until_lua")) != nil else {
                return .failure(ScriptError(script: "until_lua", message: Self.firstUsefulLines(error.message)))
            }
        }
        let compiled = CompiledPredicate(script: script, reference: luaL_ref(lua.L, lh_registryindex()))
        return .success { compiled.call() }
    }
}

/// The compiled expression, held in the console state's registry until the step that asked for it ends.
private final class CompiledPredicate {
    let script: Script
    let reference: Int32

    init(script: Script, reference: Int32) {
        self.script = script
        self.reference = reference
    }

    deinit { luaL_unref(script.lua.L, lh_registryindex(), reference) }

    func call() -> Result<Bool, ScriptError> {
        // The console's state ended mid-step (its failing callback, scripts.unload): this one is gone with it.
        guard !script.failed else {
            return .failure(ScriptError(script: "until_lua", message: "the console's state ended"))
        }
        let L = script.lua.L
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        lua_rawgeti(L, lh_registryindex(), lua_Integer(reference))
        do {
            try script.lua.call(nargs: 0, nresults: 1)
        } catch {
            if error.kind == .memory { lh_gc_collect(L) }
            return .failure(
                ScriptError(script: "until_lua", message: ScriptConsole.firstUsefulLines(error.message)))
        }
        return .success(lua_toboolean(L, -1) != 0)
    }
}
