import LuaRuntime

/// The editor and linter declarations of the API, generated from the registered modules like the reference:
/// LuaLS stubs (each module a class with exact fields, event names an alias), luacheck's globals with
/// their exact fields, and the documentation site's copy of the reference.
public enum LuaAPIStubs {
    /// The event names `event.on` accepts: every `ScriptEvent`, the host's one list of them.
    static let events = LuaDocs.Alias(
        "event_name", doc: "An event `event.on` accepts; any other name is an error.",
        values: ScriptEvent.allCases.map(\.rawValue), parameters: [("event.on", "name")])

    /// The globals scripts get (the modules; classes are only metatables).
    public static var globalNames: [String] { Bindings.api.filter { !$0.isClass }.map(\.name) }

    public static var luaLS: String {
        LuaDocs.luaLSStubs(Bindings.api, aliases: [events]) + """

            --- Writes its arguments (through tostring, tab-separated) to stdout.
            ---@param ... any
            function print(...) end

            """
    }

    public static var luacheck: String { LuaDocs.luacheckGlobals(Bindings.api) }

    /// docs/reference/lua-api.md: the reference under the site's page title.
    public static var sitePage: String {
        var lines = APIReference.markdown.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.first?.hasPrefix("# ") == true { lines[0] = "# Lua API reference" }
        return lines.joined(separator: "\n")
    }
}
