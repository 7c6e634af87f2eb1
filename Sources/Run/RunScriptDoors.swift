import Control
import Frontend
import Media
import Scripting

/// The run's scripts as the control doors see them: the scenario, `eval` and the console, answered by the
/// script host.
public final class RunControlScripts: ControlScripts {
    private let host: ScriptHost

    public init(_ host: ScriptHost) { self.host = host }

    public func loadScenario(at path: String) throws -> any ControlScenario {
        RunScenario(script: try host.loadRequired(scriptAt: path))
    }

    public func evaluate(_ source: String) -> Result<[Any], ControlError> {
        host.evaluate(source).mapError { ControlError($0.description) }
    }

    public func console(_ chunk: String, json: Bool) -> ControlConsoleReply {
        let reply = host.console.evaluate(chunk, json: json)
        let status: ControlConsoleReply.Status
        switch reply.status {
        case .done: status = .done
        case .incomplete: status = .incomplete
        case .error: status = .error
        }
        return ControlConsoleReply(
            status: status, values: reply.values,
            output: reply.output.map { ControlConsoleReply.Line(text: $0.text, isError: $0.isError) },
            error: reply.error, json: reply.json?.map(\.foundation))
    }

    public func tools() -> (version: Int, tools: [[String: Any]]) {
        let listing = host.tools.listing
        return (host.tools.currentVersion, listing.map(AgentToolSchema.description))
    }

    public var toolsVersion: Int { host.tools.currentVersion }

    public func callTool(_ name: String, arguments: [String: Any]) -> Result<Any, ControlError> {
        host.tools.call(name, arguments: arguments).map(\.foundation).mapError { ControlError($0.message) }
    }

    public func complete(_ text: String) -> [String] { host.console.complete(text) }

    public func predicate(_ expression: String) -> Result<() -> Result<Bool, ControlError>, ControlError> {
        host.console.predicate(expression).map { call in { call().mapError { ControlError($0.message) } } }
            .mapError { ControlError($0.message) }
    }
}

/// A tool as the `tools` request lists it, with its parameters as a JSON Schema object.
enum AgentToolSchema {
    static func description(_ tool: AgentTools.Listing) -> [String: Any] {
        var properties: [String: Any] = [:]
        for parameter in tool.parameters {
            var property: [String: Any] = ["type": parameter.type.rawValue]
            if let description = parameter.description { property["description"] = description }
            properties[parameter.name] = property
        }
        let schema: [String: Any] = [
            "type": "object", "properties": properties, "additionalProperties": false,
            "required": tool.parameters.filter(\.required).map(\.name),
        ]
        return ["name": tool.name, "description": tool.description, "script": tool.script, "input_schema": schema]
    }
}

/// A scenario script's globals as the control doors call them.
final class RunScenario: ControlScenario {
    private let script: Script

    init(script: Script) { self.script = script }

    var failed: Bool { script.failed }
    var failure: String? { script.failure }

    func value(of global: String) -> Any? {
        guard !script.failed, case .success(let value) = script.callGlobal(global) else { return nil }
        return value
    }
}

/// The run's scripts as the frame loop sees them: events in, the paused redraw, whether work is left.
public final class RunFrontendScripts: FrontendScripts {
    private let host: ScriptHost

    public init(_ host: ScriptHost) { self.host = host }

    public func deliver(_ events: [HostEvent]) { host.deliver(events) }
    public var hasActiveScripts: Bool { host.hasActiveScripts }
    public func redrawPaused() { host.redrawPaused() }
    public var sidePanel: Int { host.sidePanel }
}
