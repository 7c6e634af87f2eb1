import Foundation
import XCTest

@testable import Control
@testable import Run
@testable import Scripting

/// Tools scripts offer agents (`mcp.tool`), listed and called through the control socket's `tools` and
/// `call_tool` requests, on the Dodge demo; and the console's `json` option.
final class AgentToolsTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A harness with the JSON door over its scripts.
    final class Door {
        let harness: ScriptHarness
        let session: ControlSession

        init(_ configure: (inout ScriptOptions) -> Void = { _ in }) throws {
            harness = try ScriptHarness(configure: configure)
            session = ControlSession(
                emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        }

        func ask(_ request: [String: Any]) throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try ask(line)
        }

        func ask(_ line: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(session.handle(line).utf8)) as? [String: Any])
        }

        func version() throws -> Int { try XCTUnwrap(try ask(["cmd": "info"])["tools_version"] as? Int) }

        func close() { harness.close() }
    }

    static let enemies = """
        mcp.tool{
          name = "enemies", description = "The enemies near the player.",
          params = {
            radius = {type = "integer", description = "How far to look, in pixels.", required = true},
            kinds = {type = "array"},
          },
          run = function(args)
            return {radius = args.radius, kinds = args.kinds or {}, list = {{x = 1, y = 2.5}, {x = 3, y = 4}},
                    frame = emu.framecount(), alive = true}
          end,
        }
        """

    func testAScriptsToolIsListedWithItsSchemaAndCalled() throws {
        let door = try Door()
        defer { door.close() }
        XCTAssertEqual(try door.version(), 0)
        try door.harness.load(Self.enemies, name: "tools.lua")
        door.harness.run(2)
        let listed = try door.ask(["cmd": "tools"])
        XCTAssertEqual(listed["ok"] as? Bool, true)
        XCTAssertEqual(listed["version"] as? Int, 1)
        let tools = try XCTUnwrap(listed["tools"] as? [[String: Any]])
        XCTAssertEqual(tools.count, 1)
        XCTAssertEqual(tools[0]["name"] as? String, "enemies")
        XCTAssertEqual(tools[0]["description"] as? String, "The enemies near the player.")
        XCTAssertEqual(tools[0]["script"] as? String, "tools.lua")
        let schema = try XCTUnwrap(tools[0]["input_schema"] as? [String: Any])
        XCTAssertEqual(schema["type"] as? String, "object")
        XCTAssertEqual(schema["required"] as? [String], ["radius"])
        XCTAssertEqual(schema["additionalProperties"] as? Bool, false)
        let properties = try XCTUnwrap(schema["properties"] as? [String: [String: String]])
        XCTAssertEqual(properties["radius"], ["type": "integer", "description": "How far to look, in pixels."])
        XCTAssertEqual(properties["kinds"], ["type": "array"])

        let called = try door.ask([
            "cmd": "call_tool", "name": "enemies", "arguments": ["radius": 16, "kinds": ["bat"]],
        ])
        XCTAssertEqual(called["ok"] as? Bool, true, "\(called)")
        let result = try XCTUnwrap(called["result"] as? [String: Any])
        XCTAssertEqual(result["radius"] as? Int, 16)
        XCTAssertEqual(result["kinds"] as? [String], ["bat"])
        XCTAssertEqual(result["frame"] as? Int, 2)
        XCTAssertEqual(result["alive"] as? Bool, true)
        let list = try XCTUnwrap(result["list"] as? [[String: Any]])
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list[0]["y"] as? Double, 2.5)
        // An empty table is an empty array; an integral float is an integer for an integer parameter.
        let empty = try door.ask(["cmd": "call_tool", "name": "enemies", "arguments": ["radius": 3.0]])
        XCTAssertEqual(((empty["result"] as? [String: Any])?["kinds"] as? [Any])?.count, 0)
        XCTAssertTrue(door.harness.failures.isEmpty, "\(door.harness.failures)")
        // Lua sees its tools too.
        let seen = door.harness.host.console.evaluate("local t = mcp.tools() return #t, t[1].name, t[1].script")
        XCTAssertEqual(seen.values, ["1", "enemies", "tools.lua"])
    }

    func testConsoleToolsAppearAndTheVersionGrows() throws {
        let door = try Door()
        defer { door.close() }
        let before = try door.version()
        let made = try door.ask([
            "cmd": "console",
            "lua": "return mcp.tool{name='hello', description='Says hello.', run=function() return 'hi' end}",
        ])
        XCTAssertEqual(made["values"] as? [String], ["true"], "\(made)")
        let after = try door.version()
        XCTAssertGreaterThan(after, before)
        let tools = try XCTUnwrap(try door.ask(["cmd": "tools"])["tools"] as? [[String: Any]])
        XCTAssertEqual(tools.map { $0["name"] as? String }, ["hello"])
        XCTAssertEqual(tools[0]["script"] as? String, "console")
        let schema = try XCTUnwrap(tools[0]["input_schema"] as? [String: Any])
        XCTAssertEqual(schema["required"] as? [String], [])
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "hello"])["result"] as? String, "hi")
        // Removed by its owner: gone, and the version grows again.
        XCTAssertEqual(
            door.harness.host.console.evaluate("return mcp.remove('hello'), mcp.remove('hello')").values,
            ["true", "false"])
        XCTAssertGreaterThan(try door.version(), after)
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 0)
    }

    func testANameClashIsRefusedAndTheSameScriptReplacesItsTool() throws {
        let door = try Door()
        defer { door.close() }
        try door.harness.load(
            """
            assert(mcp.tool{name='score', description='v1', run=function() return 1 end})
            event.on('frame_end', function()
              if emu.framecount() == 1 then
                print(mcp.tool{name='score', description='v2', run=function() return 'two' end})
              end
            end)
            """, name: "first.lua")
        try door.harness.load(
            """
            local ok, message = mcp.tool{name='score', description='mine', run=function() return 2 end}
            print(ok, message)
            """, name: "second.lua")
        XCTAssertEqual(door.harness.lines, ["nil\tmcp.tool: a tool named 'score' is registered by first.lua"])
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "score"])["result"] as? Int, 1)
        let version = try door.version()
        // The owner registering the name again replaces the tool (and the version grows).
        door.harness.run(1)
        XCTAssertEqual(door.harness.lines.last, "true")
        XCTAssertGreaterThan(try door.version(), version)
        let tools = try XCTUnwrap(try door.ask(["cmd": "tools"])["tools"] as? [[String: Any]])
        XCTAssertEqual(tools.map { $0["description"] as? String }, ["v2"])
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "score"])["result"] as? String, "two")
    }

    func testAScriptsToolsGoWhenItUnloadsOrFails() throws {
        let door = try Door()
        defer { door.close() }
        let path = try door.harness.load(
            """
            mcp.tool{name='a', description='a', run=function() return 1 end}
            mcp.tool{name='b', description='b', run=function() return 2 end}
            event.on('frame_end', function() end)
            """, name: "owner.lua")
        try door.harness.load(
            """
            mcp.tool{name='c', description='c', run=function() return 3 end}
            event.on('frame_end', function() if emu.framecount() == 3 then error('boom') end end)
            """, name: "failing.lua")
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 3)
        let version = try door.version()
        door.harness.run(3)
        let names = (try door.ask(["cmd": "tools"])["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        XCTAssertEqual(names, ["a", "b"], "the failed script's tool went with it")
        XCTAssertGreaterThan(try door.version(), version)
        _ = door.harness.host.console.evaluate("scripts.unload('\(path)')")
        door.harness.run(1)
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 0)
        let gone = try door.ask(["cmd": "call_tool", "name": "a"])
        XCTAssertEqual(gone["ok"] as? Bool, false)
        XCTAssertEqual(gone["error"] as? String, "call_tool: no tool named 'a' (tools: none)")
    }

    func testTheConsolesJSONOptionReturnsANestedTable() throws {
        let door = try Door()
        defer { door.close() }
        let reply = try door.ask([
            "cmd": "console", "json": true,
            "lua": "return {player = {x = 10, y = 20.5, name = 'dodge'}, enemies = {{hp = 1}, {hp = 2}}}, nil, 7",
        ])
        XCTAssertEqual(reply["status"] as? String, "done", "\(reply)")
        let values = try XCTUnwrap(reply["json"] as? [Any])
        XCTAssertEqual(values.count, 3)
        let state = try XCTUnwrap(values[0] as? [String: Any])
        XCTAssertEqual((state["player"] as? [String: Any])?["name"] as? String, "dodge")
        XCTAssertEqual((state["player"] as? [String: Any])?["y"] as? Double, 20.5)
        XCTAssertEqual((state["enemies"] as? [[String: Int]])?.map { $0["hp"] }, [1, 2])
        XCTAssertTrue(values[1] is NSNull)
        XCTAssertEqual(values[2] as? Int, 7)
        XCTAssertNil(try door.ask(["cmd": "console", "lua": "return 1"])["json"], "only when asked")
        let function = try door.ask(["cmd": "console", "json": true, "lua": "return {f = print}"])
        XCTAssertEqual(function["status"] as? String, "error")
        XCTAssertEqual(function["error"] as? String, "value 1 has no JSON form: a function (at .f)")
        let wrong = try door.ask(["cmd": "console", "json": 1, "lua": "return 1"])
        XCTAssertEqual(wrong["error"] as? String, "\"json\" must be true or false, got 1")
    }

    /// The real thing: a run with `--script` and `--control`, asked over its Unix socket.
    func testARunsScriptOffersItsToolOverTheSocket() throws {
        let home = Fixtures.temporaryFolder()
        let script = home + "/tools.lua"
        try Self.enemies.write(toFile: script, atomically: true, encoding: .utf8)
        let socketPath = home + "/control.sock"
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--script", script, "--control", "unix:" + socketPath], home: home)
        XCTAssertTrue(child.waitUntil { FileManager.default.fileExists(atPath: socketPath) })
        let client = try UnixLineClient(path: socketPath)
        XCTAssertTrue(try client.request(#"{"cmd": "info"}"#).contains("\"tools_version\":1"))
        XCTAssertTrue(try client.request(#"{"cmd": "tools"}"#).contains("\"name\":\"enemies\""))
        _ = try client.request(#"{"cmd": "step", "frames": 5}"#)
        let called = try client.request(#"{"cmd": "call_tool", "name": "enemies", "arguments": {"radius": 8}}"#)
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(called.utf8)) as? [String: Any])
        XCTAssertEqual((reply["result"] as? [String: Any])?["frame"] as? Int, 5, called)
        _ = try client.request(#"{"cmd": "quit"}"#)
        XCTAssertEqual(child.finish().status, 0)
    }
}
