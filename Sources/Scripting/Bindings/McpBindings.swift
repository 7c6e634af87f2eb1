import CLua
import CLuaShim
import LuaRuntime

extension Bindings {
    static let mcp = LuaModule(
        "mcp",
        doc: """
            Tools for agents: a script offers functions an MCP client (an AI agent, through `retrolua mcp`) can \
            list and call. The control socket lists them (`tools`) and calls them (`call_tool`); a call runs \
            between frames in the script's own state, under its limits (a runaway is stopped, its error is the \
            reply, the game goes on). A script's tools go when it fails, is reloaded or unloaded; the console's \
            are the console's. At most 256 tools in all.
            """,
        functions: [
            LuaFunction(
                "tool", "spec: table", returns: "boolean?, string?",
                doc: """
                    Registers a tool: `spec` is `{name=, description=, params=, run=}` — `name` matches \
                    `^[A-Za-z][A-Za-z0-9_]{0,63}$`; `description` (up to 2000 bytes) tells the agent what it does; \
                    `params` (optional, up to 32) maps each parameter's name to `{type=, description=, \
                    required=}`, `type` one of `"integer"`, `"number"`, `"string"`, `"boolean"`, `"array"`, \
                    `"object"`; `run(args)` gets the checked arguments as a table (JSON objects → tables, arrays → \
                    sequences, null → nil) and returns the result: nil, a boolean, a number, a string or a table \
                    (1…n → a JSON array, string keys → an object, `{}` → `[]`). Registering a name again from the \
                    same script replaces the tool. `nil, message` for a bad name or spec, a name another script \
                    registered, or past 256 tools.
                    """
            ) { run($0, $1, mcpTool) },
            LuaFunction(
                "remove", "name: string", returns: "boolean",
                doc: "Removes this script's tool `name`; false when it has none of that name."
            ) { run($0, $1, mcpRemove) },
            LuaFunction(
                "tools", returns: "table",
                doc:
                    """
                    Every registered tool, in registration order: `{name=, description=, script=}` (`script`: the \
                    file name of the script that registered it, `console` for the console's).
                    """
            ) { run($0, $1, mcpTools) },
        ])

    // MARK: - The functions

    private static func mcpTool(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "spec")
        guard let name = try call.stringField(1, "name", argument: 1) else {
            throw call.badField(1, "name", "string expected, got nil")
        }
        guard let description = try call.stringField(1, "description", argument: 1) else {
            throw call.badField(1, "description", "string expected, got nil")
        }
        guard call.pushField(1, "run") == LUA_TFUNCTION else {
            let got = call.typeName(-1)
            lh_pop(call.L, 1)
            throw call.badField(1, "run", "function expected, got \(got)")
        }
        lh_pop(call.L, 1)
        guard AgentTools.isValidName(name) else {
            return call.failure("mcp.tool: '\(name.prefix(80))' is not a tool name (^[A-Za-z][A-Za-z0-9_]{0,63}$)")
        }
        guard description.utf8.count <= AgentTools.maxDescription else {
            return call.failure("mcp.tool: the description is longer than \(AgentTools.maxDescription) bytes")
        }
        let parameters: [AgentTools.Parameter]
        switch try toolParameters(call) {
        case .success(let read): parameters = read
        case .failure(let problem): return call.failure("mcp.tool: \(problem.message)")
        }
        _ = call.pushField(1, "run")
        let reference = luaL_ref(call.L, lh_registryindex())
        let host = script.host
        if let refused = host.tools.register(
            name: name, description: description, parameters: parameters, owner: script, reference: reference)
        {
            luaL_unref(call.L, lh_registryindex(), reference)
            return call.failure("mcp.tool: \(refused)")
        }
        return call.returning(true)
    }

    /// `spec.params`, by name: a wrong Lua type is the caller's error; a bad name, type word or count is a
    /// refusal (`nil, message`).
    private static func toolParameters(_ call: LuaCall) throws -> Result<[AgentTools.Parameter], LuaJSON.Problem> {
        let L = call.L
        let type = call.pushField(1, "params")
        let table = lua_gettop(L)
        defer { lua_settop(L, table - 1) }
        if type == LUA_TNIL { return .success([]) }
        guard type == LUA_TTABLE else { throw call.badField(1, "params", "table expected, got \(call.typeName(-1))") }
        var parameters: [AgentTools.Parameter] = []
        var refusal: String?
        try call.forEachNamedEntry(
            table, argument: 1, "spec", keysProblem: "params: parameter names are strings"
        ) { (key) throws(LuaCallError) in
            guard refusal == nil else { return }
            let entry = lua_gettop(L)
            func field(_ name: String, _ expected: Int32) throws(LuaCallError) -> Int32? {
                let kind = call.pushField(entry, name)
                guard kind == LUA_TNIL || kind == expected else {
                    let problem = "\(String(cString: lua_typename(L, expected))) expected, got \(call.typeName(-1))"
                    lh_pop(L, 1)
                    throw call.badField(1, "params", "'\(key.prefix(64))'.\(name): \(problem)")
                }
                if kind == LUA_TNIL {
                    lh_pop(L, 1)
                    return nil
                }
                return lua_gettop(L)
            }
            guard lua_type(L, -1) == LUA_TTABLE else {
                throw call.badField(1, "params", "'\(key.prefix(64))': table expected, got \(call.typeName(-1))")
            }
            let typeWord = try field("type", LUA_TSTRING).map { try? call.string($0, "type") } ?? nil
            let description = try field("description", LUA_TSTRING).map { try? call.string($0, "description") } ?? nil
            let required = try field("required", LUA_TBOOLEAN).map { lua_toboolean(L, $0) != 0 }
            let words = AgentTools.ParameterType.allCases.map(\.rawValue).joined(separator: ", ")
            if !AgentTools.isValidName(key) {
                refusal = "'\(key.prefix(80))' is not a parameter name (^[A-Za-z][A-Za-z0-9_]{0,63}$)"
            } else if parameters.count >= AgentTools.maxParameters {
                refusal = "a tool takes at most \(AgentTools.maxParameters) parameters"
            } else if let typeWord, let parameterType = AgentTools.ParameterType(rawValue: typeWord) {
                if let description, description.utf8.count > AgentTools.maxDescription {
                    refusal = "the description of '\(key)' is longer than \(AgentTools.maxDescription) bytes"
                } else {
                    parameters.append(
                        AgentTools.Parameter(
                            name: key, type: parameterType, description: description, required: required ?? false))
                }
            } else {
                refusal = "parameter '\(key)' has type '\((typeWord ?? "nil").prefix(40))' (one of: \(words))"
            }
        }
        if let refusal { return .failure(LuaJSON.Problem(message: refusal)) }
        return .success(parameters.sorted { $0.name < $1.name })
    }

    private static func mcpRemove(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.string(1, "name")
        return call.returning(script.host.tools.remove(name, by: script))
    }

    private static func mcpTools(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let listing = script.host.tools.listing
        call.pushList(listing) { tool in
            call.newTable(fields: 3)
            call.set("name", tool.name)
            call.set("description", tool.description)
            call.set("script", tool.script)
        }
        return 1
    }
}
