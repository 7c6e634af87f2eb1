/// What the control doors need from scripts — the scenario that scores steps, `eval` and the console — answered by the
/// script host through the run, so the doors hold the emulator and this, never the script host itself.
public protocol ControlScripts: AnyObject {
    /// Loads the scenario script; a main chunk that fails throws its error (the run then refuses to start).
    func loadScenario(at path: String) throws -> any ControlScenario
    /// Runs a chunk of Lua in the socket's own script state (made on first use): its values, or its error.
    func evaluate(_ source: String) -> Result<[Any], ControlError>
    /// Runs a chunk in the run's Lua console; with `json`, the reply also carries the values as JSON.
    func console(_ chunk: String, json: Bool) -> ControlConsoleReply
    /// The tools scripts registered (`mcp.tool`): each `{"name", "description", "script", "input_schema"}`.
    func tools() -> (version: Int, tools: [[String: Any]])
    /// The tool registry's version: it grows at every change.
    var toolsVersion: Int { get }
    /// Calls a tool with JSON arguments: its result as a JSON object (NSNull for nil), or why not.
    func callTool(_ name: String, arguments: [String: Any]) -> Result<Any, ControlError>
    /// The console's completions of the dotted name that ends `text`.
    func complete(_ text: String) -> [String]
    /// Compiles `return (expression)` in the console's state (a step's `until_lua`): the function calls it between
    /// frames and says whether its value is truthy; either fails with the compiler's or the call's message.
    func predicate(_ expression: String) -> Result<() -> Result<Bool, ControlError>, ControlError>
}

/// The scenario script: its global functions `reward`, `done` and `info`, called after frames.
public protocol ControlScenario: AnyObject {
    /// True once it stopped: failed, or unloaded.
    var failed: Bool { get }
    /// Why it failed (its first error), once it has.
    var failure: String? { get }
    /// A global function's value; nil when the scenario has no such function, it failed, or it returned nothing.
    func value(of global: String) -> Any?
}
