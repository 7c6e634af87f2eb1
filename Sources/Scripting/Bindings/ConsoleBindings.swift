import Emulation
import CLua
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
        ])

    // MARK: - The functions

    private static func consoleWrite(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        let stream = try call.optionalString(2, "stream") ?? "out"
        switch stream {
        case "out": script.host.write(text + "\n", error: false)
        case "err": script.host.write("[\(script.name)] \(text)\n", error: true)
        default: throw call.badArgument(2, "stream", "\"out\" or \"err\" expected, got \"\(stream)\"")
        }
        return 0
    }
}
