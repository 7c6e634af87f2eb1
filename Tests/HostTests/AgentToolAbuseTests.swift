import Foundation
import XCTest

@testable import Control
@testable import Run
@testable import Scripting

/// Hostile scripts and requests against `mcp.tool` and `call_tool`: floods of registrations, runaways, values
/// with no JSON form, wrong, unknown, huge and deep arguments. Each ends in a clear error; the game and the
/// socket go on.
final class AgentToolAbuseTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func door(_ configure: (inout ScriptOptions) -> Void = { _ in }) throws -> AgentToolsTests.Door {
        try AgentToolsTests.Door(configure)
    }

    private func error(_ reply: [String: Any]) -> String {
        XCTAssertEqual(reply["ok"] as? Bool, false, "\(reply)")
        return reply["error"] as? String ?? ""
    }

    func testTenThousandRegistrationsStopAt256AndTheGameGoesOn() throws {
        let door = try door()
        defer { door.close() }
        try door.harness.load(
            """
            local ok, refused, last = 0, 0, nil
            for i = 1, 10000 do
              local done, message = mcp.tool{name = 't' .. i, description = 'n', run = function() return i end}
              if done then ok = ok + 1 else refused = refused + 1; last = message end
            end
            print(ok, refused, last)
            """)
        XCTAssertEqual(door.harness.lines, ["256\t9744\tmcp.tool: 256 tools are registered already"])
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 256)
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "t256"])["result"] as? Int, 256)
        door.harness.run(3)
        XCTAssertEqual(door.harness.host.emulator.session.frameCount, 3)
        XCTAssertTrue(door.harness.failures.isEmpty)
    }

    func testBadSpecsAreRefusedAndBadTypesRaise() throws {
        let door = try door()
        defer { door.close() }
        let console = door.harness.host.console
        func refused(_ spec: String) -> String {
            let reply = console.evaluate("return mcp.tool\(spec)")
            XCTAssertEqual(reply.values.first, "nil", "\(spec): \(reply)")
            return reply.values.last ?? ""
        }
        let run = "run=function() end"
        XCTAssertEqual(
            refused("{name='1x', description='d', \(run)}"),
            "mcp.tool: '1x' is not a tool name (^[A-Za-z][A-Za-z0-9_]{0,63}$)")
        XCTAssertTrue(refused("{name=string.rep('a', 65), description='d', \(run)}").contains("is not a tool name"))
        XCTAssertEqual(
            refused("{name='x', description=string.rep('d', 2001), \(run)}"),
            "mcp.tool: the description is longer than 2000 bytes")
        XCTAssertEqual(
            refused("{name='x', description='d', params={a={type='date'}}, \(run)}"),
            "mcp.tool: parameter 'a' has type 'date' (one of: integer, number, string, boolean, array, object)")
        XCTAssertEqual(
            refused("{name='x', description='d', params={['a b']={type='string'}}, \(run)}"),
            "mcp.tool: 'a b' is not a parameter name (^[A-Za-z][A-Za-z0-9_]{0,63}$)")
        XCTAssertEqual(
            refused(
                "{name='x', description='d', params=(function() local p = {} for i = 1, 33 do p['p' .. i] = "
                    + "{type='string'} end return p end)(), \(run)}"),
            "mcp.tool: a tool takes at most 32 parameters")
        func raised(_ spec: String) -> String { console.evaluate("mcp.tool\(spec)").error ?? "" }
        XCTAssertEqual(raised("('x')"), "console:1: mcp.tool: bad argument #1 'spec' (table expected, got string)")
        XCTAssertEqual(
            raised("{name=5, description='d', \(run)}"),
            "console:1: mcp.tool: bad field 'name' in argument #1 (string expected, got number)")
        XCTAssertEqual(
            raised("{name='x', description='d', run=5}"),
            "console:1: mcp.tool: bad field 'run' in argument #1 (function expected, got number)")
        XCTAssertEqual(
            raised("{name='x', description='d', params={a={type='string', required='yes'}}, \(run)}"),
            "console:1: mcp.tool: bad field 'params' in argument #1 ('a'.required: boolean expected, got string)")
        XCTAssertEqual(
            raised("{name='x', description='d', params={5}, \(run)}"),
            "console:1: mcp.tool: bad argument #1 'spec' (params: parameter names are strings)")
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 0)
        XCTAssertEqual(try door.version(), 0, "nothing refused changed the registry")
    }

    func testARunawayToolIsStoppedAndTheNextRequestWorks() throws {
        let door = try door { $0.instructionBudget = 5_000_000 }
        defer { door.close() }
        try door.harness.load(
            """
            mcp.tool{name='forever', description='never returns', run=function() while true do end end}
            mcp.tool{name='fails', description='raises', run=function() error('no luck') end}
            mcp.tool{name='ok', description='fine', run=function() return emu.framecount() end}
            """)
        let runaway = error(try door.ask(["cmd": "call_tool", "name": "forever"]))
        XCTAssertTrue(runaway.hasPrefix("call_tool: forever failed: "), runaway)
        XCTAssertTrue(runaway.contains("runaway loop"), runaway)
        let raised = error(try door.ask(["cmd": "call_tool", "name": "fails"]))
        XCTAssertTrue(raised.hasPrefix("call_tool: fails failed: ") && raised.hasSuffix("test.lua:2: no luck"), raised)
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "ok"])["result"] as? Int, 0)
        door.harness.run(2)
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "ok"])["result"] as? Int, 2)
        XCTAssertEqual((try door.ask(["cmd": "tools"])["tools"] as? [Any])?.count, 3, "the script keeps its tools")
    }

    func testResultsWithNoJSONFormAreErrors() throws {
        let door = try door()
        defer { door.close() }
        try door.harness.load(
            """
            local cases = {
              cycle = function() local t = {} t.me = t return t end,
              fn = function() return {list = {1, print}} end,
              nan = function() return {speed = 0/0} end,
              inf = function() return math.huge end,
              mixed = function() return {1, 2, x = 3} end,
              sparse = function() return {[1] = 1, [3] = 3} end,
              boolkey = function() return {[true] = 1} end,
              deep = function() local t = {} for _ = 1, 40 do t = {t} end return t end,
              huge = function() local t = {} for i = 1, 2000 do t[i] = string.rep('x', 1000) end return t end,
              wide = function() local t = {} for _ = 1, 30 do t = {t, t} end return t end,
              bytes = function() return '\\255ok' end,
              shared = function() local s = {1} return {a = s, b = s} end,
            }
            for name, run in pairs(cases) do mcp.tool{name = name, description = name, run = run} end
            """)
        func failure(_ name: String) throws -> String { error(try door.ask(["cmd": "call_tool", "name": name])) }
        XCTAssertEqual(try failure("cycle"), "call_tool: cycle returned a table that contains itself (at .me)")
        XCTAssertEqual(try failure("fn"), "call_tool: fn returned a function (at .list[2])")
        XCTAssertEqual(try failure("nan"), "call_tool: nan returned NaN (at .speed)")
        XCTAssertEqual(try failure("inf"), "call_tool: inf returned an infinite number")
        XCTAssertEqual(try failure("mixed"), "call_tool: mixed returned a table that mixes string and number keys")
        XCTAssertEqual(
            try failure("sparse"), "call_tool: sparse returned a table whose number keys are not a sequence 1…n")
        XCTAssertEqual(try failure("boolkey"), "call_tool: boolkey returned a table with a boolean key")
        XCTAssertTrue(try failure("deep").contains("returned tables nested deeper than 32"))
        XCTAssertTrue(try failure("huge").hasPrefix("call_tool: huge returned more than 1 MB of JSON"))
        XCTAssertTrue(try failure("wide").hasPrefix("call_tool: wide returned more than 1 MB of JSON"))
        // Invalid UTF-8 is replaced; a table met twice (not a cycle) is written twice.
        XCTAssertEqual(try door.ask(["cmd": "call_tool", "name": "bytes"])["result"] as? String, "\u{FFFD}ok")
        let shared = try door.ask(["cmd": "call_tool", "name": "shared"])["result"] as? [String: [Int]]
        XCTAssertEqual(shared, ["a": [1], "b": [1]])
        XCTAssertTrue(door.harness.failures.isEmpty)
    }

    func testWrongUnknownHugeAndDeepArgumentsAreRefused() throws {
        let door = try door()
        defer { door.close() }
        try door.harness.load(
            """
            mcp.tool{name='echo', description='echo', params={
              n = {type='integer', required=true}, f = {type='number'}, s = {type='string'}, b = {type='boolean'},
              a = {type='array'}, o = {type='object'},
            }, run=function(args) return args end}
            """)
        func call(_ arguments: Any) throws -> [String: Any] {
            try door.ask(["cmd": "call_tool", "name": "echo", "arguments": arguments])
        }
        XCTAssertEqual(error(try call([:])), "call_tool: echo needs 'n' (an integer)")
        XCTAssertEqual(error(try call(["n": NSNull()])), "call_tool: echo needs 'n' (an integer)")
        XCTAssertEqual(error(try call(["n": "1"])), "call_tool: echo: 'n' must be an integer, got the string \"1\"")
        XCTAssertEqual(error(try call(["n": 1.5])), "call_tool: echo: 'n' must be an integer, got 1.5")
        XCTAssertEqual(error(try call(["n": true])), "call_tool: echo: 'n' must be an integer, got true")
        XCTAssertEqual(error(try call(["n": 1, "b": 0])), "call_tool: echo: 'b' must be a boolean, got 0")
        XCTAssertEqual(error(try call(["n": 1, "a": [:]])), "call_tool: echo: 'a' must be an array, got an object")
        XCTAssertEqual(error(try call(["n": 1, "o": []])), "call_tool: echo: 'o' must be an object, got an array")
        XCTAssertEqual(
            error(try call(["n": 1, "zz": 1])),
            "call_tool: echo has no parameter 'zz' (its parameters: a, b, f, n, o, s)")
        XCTAssertEqual(error(try call([1, 2])), "\"arguments\" must be an object, got a list")
        XCTAssertEqual(
            error(try door.ask(["cmd": "call_tool", "name": "nope"])), "call_tool: no tool named 'nope' (tools: echo)")
        XCTAssertEqual(error(try door.ask(["cmd": "call_tool"])), "call_tool needs \"name\": a tool's name")
        // Deep and huge arguments are refused before any Lua runs.
        var deep: Any = [1]
        for _ in 0..<40 { deep = ["x": deep] }
        XCTAssertEqual(error(try call(["n": 1, "o": deep])), "call_tool: arguments nested deeper than 32")
        let huge = [String](repeating: String(repeating: "x", count: 1000), count: 5000)
        XCTAssertEqual(error(try call(["n": 1, "a": huge])), "call_tool: arguments larger than 4 MB")
        // What passes comes back as it went.
        let echoed = try call([
            "n": 2, "f": 0.5, "s": "é", "b": false, "a": [1, "two", ["three": 3]], "o": ["k": [true]],
        ])
        let result = try XCTUnwrap(echoed["result"] as? [String: Any], "\(echoed)")
        XCTAssertEqual(result["n"] as? Int, 2)
        XCTAssertEqual(result["f"] as? Double, 0.5)
        XCTAssertEqual(result["s"] as? String, "é")
        XCTAssertEqual(result["b"] as? Bool, false)
        XCTAssertEqual((result["a"] as? [Any])?.count, 3)
        XCTAssertEqual((result["o"] as? [String: [Bool]])?["k"], [true])
        door.harness.run(1)
        XCTAssertTrue(door.harness.failures.isEmpty)
    }

    /// Arguments for a script near its memory cap: building them fails in a protected call, not the host.
    func testArgumentsPastTheScriptsMemoryCapAreAnErrorNotACrash() throws {
        let door = try door { $0.memoryLimit = 16 << 20 }
        defer { door.close() }
        try door.harness.load(
            """
            hog = {}
            local i = 0
            while collectgarbage('count') < 14 * 1024 do i = i + 1; hog[i] = string.rep('y', 1000) .. i end
            mcp.tool{name='take', description='t', params={a={type='array'}}, run=function(args) return #args.a end}
            """)
        let strings = [String](repeating: String(repeating: "z", count: 700), count: 5000)
        let reply = try door.ask(["cmd": "call_tool", "name": "take", "arguments": ["a": strings]])
        XCTAssertTrue(error(reply).contains("memory limit"), "\(reply)")
        XCTAssertEqual(try door.ask(["cmd": "info"])["ok"] as? Bool, true)
    }
}
