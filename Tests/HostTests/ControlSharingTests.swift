@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Run
@testable import Scripting

/// What an agent sharing a running game with a person asks of the control socket: a step that waits for
/// the game (`until`, `watch`, `until_lua`) and its `activity`, which the scripts (the OSD) hear.
/// On the Dodge demo: $06 is the player's x, which holding right moves 2 px a frame. The bad requests
/// are in ControlAbuseTests.
final class ControlSharingTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        guard FileManager.default.fileExists(atPath: BotTests.dodge) else { throw XCTSkip("dodge.nes not built") }
    }

    /// Dodge behind the JSON door, run in for a few frames while holding right (so x moves from the first frame on).
    private func door() throws -> (ScriptHarness, ControlSession) {
        let harness = try ScriptHarness(rom: BotTests.dodge)
        let control = ControlSession(
            emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        _ = try ask(control, ["cmd": "step", "frames": 5, "input": ["right": true]])
        return (harness, control)
    }

    private func ask(_ control: ControlSession, _ request: [String: Any]) throws -> [String: Any] {
        let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(control.handle(line).utf8)) as? [String: Any])
    }

    private func x(_ control: ControlSession) throws -> Int {
        try XCTUnwrap(
            (try ask(control, ["cmd": "read", "address": 6, "encoding": "integers"])["values"] as? [Int])?.first)
    }

    func testUntilStopsOnTheFrameItHoldsAndOtherwiseRunsAllFrames() throws {
        let (harness, control) = try door()
        defer { harness.close() }
        let state = try XCTUnwrap(try ask(control, ["cmd": "save_state"])["state"] as? String)
        let start = try x(control)
        let target = start + 15
        // The frame to expect, found one frame at a time.
        var expected = 0
        while try x(control) < target {
            _ = try ask(control, ["cmd": "step", "input": ["right": true]])
            expected += 1
            XCTAssertLessThan(expected, 60)
        }
        _ = try ask(control, ["cmd": "load_state", "state": state])
        let until = try ask(
            control,
            [
                "cmd": "step", "frames": 600, "input": ["right": true],
                "until": [["address": 7, "op": "eq", "value": 255], ["address": 6, "op": "ge", "value": target]],
            ])
        XCTAssertEqual(until["ok"] as? Bool, true, "\(until)")
        XCTAssertEqual(until["stopped"] as? String, "until")
        XCTAssertEqual(until["until_index"] as? Int, 1)
        XCTAssertEqual(until["frames"] as? Int, expected)
        XCTAssertGreaterThanOrEqual(try x(control), target)

        // The same frame through until_lua, with a global the console defined.
        _ = try ask(control, ["cmd": "load_state", "state": state])
        XCTAssertEqual(try ask(control, ["cmd": "console", "lua": "target = \(target)"])["status"] as? String, "done")
        let lua = try ask(
            control,
            [
                "cmd": "step", "frames": 600, "input": ["right": true],
                "until_lua": "memory.read_u8(6) >= target",
            ])
        XCTAssertEqual(lua["stopped"] as? String, "lua", "\(lua)")
        XCTAssertEqual(lua["frames"] as? Int, expected)
        XCTAssertNil(lua["until_index"])

        // A condition that never holds: the step runs its frames.
        let never = try ask(
            control,
            ["cmd": "step", "frames": 30, "until": [["address": 5, "op": "eq", "value": 200]]])
        XCTAssertEqual(never["stopped"] as? String, "frames")
        XCTAssertEqual(never["frames"] as? Int, 30)
        // Without conditions a step says the same, with nothing else new.
        let plain = try ask(control, ["cmd": "step", "frames": 2])
        XCTAssertEqual(plain["stopped"] as? String, "frames")
        XCTAssertEqual(Set(plain.keys), ["ok", "frame", "frames", "lag", "stopped"])
    }

    func testAWatchStopsAfterTheFrameThatChangedItsBytes() throws {
        let (harness, control) = try door()
        defer { harness.close() }
        let before = try x(control)
        let reply = try ask(
            control,
            [
                "cmd": "step", "frames": 100, "input": ["right": true],
                "watch": [["address": 0x0A, "length": 1], ["domain": "system_ram", "address": 6, "length": 2]],
            ])
        XCTAssertEqual(reply["stopped"] as? String, "watch", "\(reply)")
        XCTAssertEqual(reply["frames"] as? Int, 1)
        let hit = try XCTUnwrap(reply["watch_hit"] as? [String: Any])
        XCTAssertEqual(hit["index"] as? Int, 1)
        XCTAssertEqual(hit["domain"] as? String, "system_ram")
        XCTAssertEqual(hit["address"] as? Int, 6)
        XCTAssertEqual(hit["old"] as? Int, before)
        XCTAssertEqual(hit["new"] as? Int, before + 2)
        // increased/decreased compare with the value before each frame, as a watch does.
        let decreased = try ask(
            control,
            ["cmd": "step", "frames": 100, "input": ["left": true], "until": [["address": 6, "op": "decreased"]]])
        XCTAssertEqual(decreased["stopped"] as? String, "until", "\(decreased)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(decreased["frames"] as? Int), 2)
        let increased = try ask(
            control,
            ["cmd": "step", "frames": 100, "input": ["left": true], "until": [["address": 6, "op": "increased"]]])
        XCTAssertEqual(increased["stopped"] as? String, "frames", "moving left, x never increases: \(increased)")
        // The frame counter ($00, u16 little-endian) has bit 0 set every other frame.
        let odd = try ask(
            control, ["cmd": "step", "frames": 3, "until": [["address": 0, "size": 2, "op": "bits_set", "value": 1]]])
        XCTAssertEqual(odd["stopped"] as? String, "until", "\(odd)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(odd["frames"] as? Int), 2)
    }

    /// A request's `activity` reaches the scripts as `agent(text)`, and `agent(nil)` when its connection closes;
    /// over a real socket, with the listener defined in the console's state.
    func testActivityReachesTheScriptsAndEndsWithTheConnection() throws {
        let home = Fixtures.temporaryFolder(), path = home + "/agent.sock"
        let run = try ChildProcess(["run", BotTests.dodge, "--headless", "--control", "unix:" + path], home: home)
        XCTAssertTrue(run.waitUntil { FileManager.default.fileExists(atPath: path) })
        let person = try UnixLineClient(path: path)
        func console(_ lua: String) throws -> [String] {
            let reply = try person.request(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: ["cmd": "console", "lua": lua]), as: UTF8.self)
            )
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
            return json["values"] as? [String] ?? ["error: \(json)"]
        }
        _ = try console("seen = {}; event.on('agent', function(text) seen[#seen + 1] = tostring(text) end)")
        var agent: UnixLineClient? = try UnixLineClient(path: path)
        XCTAssertTrue(try agent!.request(#"{"cmd": "info", "activity": "looking\nfor coins"}"#).contains("\"ok\":true"))
        _ = try agent!.request(#"{"cmd": "info", "activity": "looking\nfor coins"}"#)  // unchanged: not told again
        XCTAssertEqual(try console("table.concat(seen, '|')"), ["looking for coins"])
        let wrong = try agent!.request(#"{"cmd": "info", "activity": 5}"#)
        XCTAssertTrue(wrong.contains(#""activity\" must be a string, got 5"#), wrong)
        let long = String(repeating: "é", count: 300)
        _ = try agent!.request(#"{"cmd": "info", "activity": "\#(long)"}"#)
        XCTAssertEqual(try console("#seen, utf8.len(seen[2])"), ["2", "200"])
        agent = nil  // the agent leaves
        XCTAssertTrue(run.waitUntil { (try? console("seen[#seen]")) == ["nil"] })
        _ = try person.request(#"{"cmd": "quit"}"#)
        XCTAssertEqual(run.finish().status, 0)
    }
}
