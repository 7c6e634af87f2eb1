import CLua
import CLuaShim
import Emulation
import Foundation
import LuaRuntime

/// The tools scripts offer agents (`mcp.tool`), host-wide: the control socket lists them (`tools`) and calls
/// them (`call_tool`) for an MCP server. A tool is its script's: it goes when the script fails, is reloaded
/// or unloaded, and it runs in that script's state, between frames, under the script's limits.
public final class AgentTools {
    /// A parameter's JSON type, as the schema names it.
    public enum ParameterType: String, CaseIterable, Sendable {
        case integer, number, string, boolean, array, object
    }

    public struct Parameter: Sendable {
        public let name: String
        public let type: ParameterType
        public let description: String?
        public let required: Bool
    }

    /// One registered tool; `reference` is its `run` function in the owner's registry.
    final class Tool {
        let name: String
        let description: String
        let parameters: [Parameter]
        weak var owner: Script?
        let ownerName: String
        let reference: Int32

        init(name: String, description: String, parameters: [Parameter], owner: Script, reference: Int32) {
            self.name = name
            self.description = description
            self.parameters = parameters
            self.owner = owner
            ownerName = owner.name
            self.reference = reference
        }
    }

    /// A tool as the doors list it.
    public struct Listing: Sendable {
        public let name: String
        public let description: String
        public let script: String
        public let parameters: [Parameter]
    }

    static let maxTools = 256
    static let maxParameters = 32
    static let maxDescription = 2000

    unowned let host: ScriptHost
    private(set) var tools: [Tool] = []
    /// Grows at every change (a tool registered, replaced or removed, a script's tools unloaded), so a client
    /// notices changes by reading `info`.
    public private(set) var version = 0
    /// A tool running now: a call never starts inside another.
    private var calling = false

    init(host: ScriptHost) { self.host = host }

    /// `^[A-Za-z][A-Za-z0-9_]{0,63}$`: a tool's or a parameter's name.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 64, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == 95 }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }

    // MARK: Registering

    /// Registers (or, for the same script, replaces) a tool whose `run` is at `reference` in `owner`'s
    /// registry; the reason it is refused otherwise (the reference is then the caller's to release).
    func register(
        name: String, description: String, parameters: [Parameter], owner: Script, reference: Int32
    ) -> String? {
        purge()
        if let index = tools.firstIndex(where: { $0.name == name }) {
            guard tools[index].owner === owner else {
                return "a tool named '\(name)' is registered by \(tools[index].ownerName)"
            }
            release(tools[index])
            tools[index] = Tool(
                name: name, description: description, parameters: parameters, owner: owner, reference: reference)
        } else {
            guard tools.count < Self.maxTools else { return "\(Self.maxTools) tools are registered already" }
            tools.append(
                Tool(name: name, description: description, parameters: parameters, owner: owner, reference: reference))
        }
        version &+= 1
        return nil
    }

    /// Removes `owner`'s tool `name`; false when it has none of that name.
    func remove(_ name: String, by owner: Script) -> Bool {
        guard let index = tools.firstIndex(where: { $0.name == name && $0.owner === owner }) else { return false }
        release(tools.remove(at: index))
        version &+= 1
        return true
    }

    /// Every tool of `owner` goes (it failed, was reloaded or unloaded).
    func removeAll(ownedBy owner: Script) {
        guard tools.contains(where: { $0.owner === owner }) else { return }
        for tool in tools where tool.owner === owner { release(tool) }
        tools.removeAll { $0.owner === owner }
        version &+= 1
    }

    /// Tools whose script is gone without saying (a state closed outright) go too.
    private func purge() {
        guard tools.contains(where: { $0.owner == nil }) else { return }
        tools.removeAll { $0.owner == nil }
        version &+= 1
    }

    private func release(_ tool: Tool) {
        guard let owner = tool.owner else { return }
        luaL_unref(owner.lua.L, lh_registryindex(), tool.reference)
    }

    /// The tools in the order they were registered.
    public var listing: [Listing] {
        purge()
        return tools.map {
            Listing(name: $0.name, description: $0.description, script: $0.ownerName, parameters: $0.parameters)
        }
    }

    /// The registry's version (the doors' `tools_version`).
    public var currentVersion: Int {
        purge()
        return version
    }

    // MARK: Calling

    /// Calls tool `name` with JSON `arguments` (checked against its parameters first): the first value its
    /// `run` returns, as JSON; or why not, in words for the caller to put after its command's name.
    public func call(_ name: String, arguments: [String: Any]) -> Result<JSONValue, ScriptError> {
        func refuse(_ message: String) -> Result<JSONValue, ScriptError> {
            .failure(ScriptError(script: name, message: message))
        }
        purge()
        guard let tool = tools.first(where: { $0.name == name }), let owner = tool.owner, !owner.failed else {
            let names = tools.prefix(20).map(\.name).joined(separator: ", ")
            return refuse("no tool named '\(name.prefix(64))' (tools: \(names.isEmpty ? "none" : names))")
        }
        guard host.emulator.phase != .inputPoll else {
            return refuse("tools run between frames, not during the core's part of one")
        }
        guard !calling else { return refuse("a tool is already running") }
        let checked: [String: Any]
        do { checked = try Self.check(arguments, against: tool) } catch { return refuse(error.message) }
        calling = true
        defer { calling = false }
        let L = owner.lua.L
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        let box = ArgumentsBox(checked)
        do {
            lua_rawgeti(L, lh_registryindex(), lua_Integer(tool.reference))
            // The table is built inside a binding: an allocation past the script's cap is raised there, in a
            // protected call, never as a longjmp over Swift.
            lh_push_binding(L, Self.pushArguments, Unmanaged.passUnretained(box).toOpaque(), "call_tool")
            try owner.lua.call(nargs: 0, nresults: 1)
            let previous = owner.activeThread
            owner.activeThread = L
            defer { owner.activeThread = previous }
            try owner.lua.call(nargs: 1, nresults: 1)
        } catch {
            let first = error.message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init)
            if error.kind == .memory { lh_gc_collect(L) }
            return refuse("\(name) failed: \(first ?? error.message)")
        }
        do {
            return .success(try LuaJSON.value(L, at: -1))
        } catch {
            return refuse("\(name) returned \(error.message)")
        }
    }

    /// The arguments a binding turns into a table.
    private final class ArgumentsBox {
        let value: [String: Any]
        init(_ value: [String: Any]) { self.value = value }
    }

    private static let pushArguments: lh_binding = { L, context in
        let box = Unmanaged<ArgumentsBox>.fromOpaque(context!).takeUnretainedValue()
        LuaJSON.push(box.value, L!)
        return 1
    }

    /// The arguments as the tool declared them: no unknown names, every required one, each of its type
    /// (null counts as absent; an integral float is an integer); bounded in depth and size.
    static func check(_ arguments: [String: Any], against tool: Tool) throws(LuaJSON.Problem) -> [String: Any] {
        var bytes = 0
        try LuaJSON.measure(arguments, bytes: &bytes)
        var checked: [String: Any] = [:]
        for (key, value) in arguments.sorted(by: { $0.key < $1.key }) where !(value is NSNull) {
            guard let parameter = tool.parameters.first(where: { $0.name == key }) else {
                let names = tool.parameters.map(\.name).joined(separator: ", ")
                throw LuaJSON.Problem(
                    message: "\(tool.name) has no parameter '\(key.prefix(64))' (its parameters: "
                        + "\(names.isEmpty ? "none" : names))")
            }
            guard let accepted = accept(value, as: parameter.type) else {
                throw LuaJSON.Problem(
                    message: "\(tool.name): '\(key)' must be \(article(parameter.type)), got \(describe(value))")
            }
            checked[key] = accepted
        }
        for parameter in tool.parameters where parameter.required && checked[parameter.name] == nil {
            throw LuaJSON.Problem(
                message: "\(tool.name) needs '\(parameter.name)' (\(article(parameter.type)))")
        }
        return checked
    }

    /// `value` when it is of `type` (an integral float becomes an integer), else nil.
    private static func accept(_ value: Any, as type: ParameterType) -> Any? {
        let scalar = LuaJSON.scalar(value)
        switch (type, scalar) {
        case (.boolean, .bool?), (.number, .integer?), (.number, .number?), (.integer, .integer?): return value
        case (.integer, .number(let number)?):
            guard number.rounded() == number, let integer = Int(exactly: number) else { return nil }
            return integer
        case (.string, nil): return value is String ? value : nil
        case (.array, nil): return value is [Any] ? value : nil
        case (.object, nil): return value is [String: Any] ? value : nil
        default: return nil
        }
    }

    private static func article(_ type: ParameterType) -> String {
        type == .integer || type == .array || type == .object ? "an \(type.rawValue)" : "a \(type.rawValue)"
    }

    /// What came, shortly: `the string "abc"`, `an object`.
    private static func describe(_ value: Any) -> String {
        switch LuaJSON.scalar(value) {
        case .bool(let flag)?: return flag ? "true" : "false"
        case .integer(let integer)?: return "\(integer)"
        case .number(let number)?: return String("\(number)".prefix(40))
        case nil: break
        }
        if let text = value as? String { return "the string \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\"" }
        if value is [String: Any] { return "an object" }
        if value is [Any] { return "an array" }
        return "null"
    }
}
