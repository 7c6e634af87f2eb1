import Emulation
import CLua
import CLuaShim
import Foundation
import LuaRuntime

extension Bindings {
    static let console = LuaModule(
        "console",
        doc: """
            Output to the terminal (and the `--log` file). The global `print(...)` and `console.log(...)` write their \
            arguments, converted with `tostring` and separated by tabs, to stdout; `console.warn(...)` and \
            `console.error(...)` write to stderr prefixed with the script's name. All four are defined in Lua \
            (`lua/host/console.lua`) over `console.write`.
            """,
        functions: [
            LuaFunction(
                "write", "text: string, stream?: string",
                doc:
                    """
                    Writes `text` and a newline to `\"out\"` (stdout, the default) or `\"err\"` (stderr, prefixed \
                    with the script name).
                    """
            ) { run($0, $1, consoleWrite) },
            LuaFunction(
                lua: "log", "...: any",
                doc: "Same as `print`: the arguments through `tostring`, tab-separated, to stdout."),
            LuaFunction(
                lua: "warn", "...: any", doc: "Writes `warning: …` to stderr, prefixed with the script's name."),
            LuaFunction(
                lua: "error", "...: any",
                doc: "Writes `error: …` to stderr, prefixed with the script's name (it does not raise)."),
            LuaFunction(
                "evaluate", "chunk: string, on_reply: function", returns: "boolean",
                doc:
                    """
                    Runs `chunk` in the run's Lua console (one state shared with `retrolua attach` and \
                    `--console`, under the scripts' security profile) between frames, after the window's events, \
                    then calls `on_reply{status=, values=, output=, error=}`: `status` is `"done"`, \
                    `"incomplete"` (more lines would finish the chunk) or `"error"`; `values` the chunk's values \
                    as the console shows them (strings); `output` what it printed, a list of \
                    `{text=, stream="out"|"err"}`. An expression gives its value; `emu.frameadvance()` in the \
                    chunk runs one frame.
                    """
            ) { run($0, $1, consoleEvaluate) },
            LuaFunction(
                "complete", "text: string, on_reply: function", returns: "boolean",
                doc:
                    """
                    Calls `on_reply(matches)` between frames with the console's completions of the dotted name \
                    that ends `text` (`"x = emu.fr"` → `{"emu.frameadvance", "emu.framecount"}`), sorted.
                    """
            ) { run($0, $1, consoleComplete) },
        ])

    // MARK: - The functions

    private static func consoleWrite(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        let stream = try call.optionalString(2, "stream") ?? "out"
        guard stream == "out" || stream == "err" else {
            throw call.badArgument(2, "stream", "\"out\" or \"err\" expected, got \"\(stream)\"")
        }
        if let sink = script.outputSink {
            sink(text, stream == "err")
            return 0
        }
        if stream == "out" {
            script.host.write(text + "\n", error: false)
        } else {
            script.host.write("[\(script.name)] \(text)\n", error: true)
        }
        return 0
    }

    private static func consoleEvaluate(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let chunk = try call.string(1, "chunk")
        try call.function(2, "on_reply")
        script.host.console.submit(.evaluate(chunk), from: script, reply: reference(to: 2, in: call))
        return call.returning(true)
    }

    private static func consoleComplete(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        try call.function(2, "on_reply")
        script.host.console.submit(.complete(text), from: script, reply: reference(to: 2, in: call))
        return call.returning(true)
    }

    /// A reference to the function at `index`, kept until the console answers.
    private static func reference(to index: Int32, in call: LuaCall) -> Int32 {
        lua_pushvalue(call.L, index)
        return luaL_ref(call.L, lh_registryindex())
    }
}
