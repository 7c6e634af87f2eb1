@testable import Emulation
import Foundation
import XCTest
@testable import Host

/// Each door only translates the emulator's answers (the rules themselves: `EmulatorRulesTests`):
/// the same refusal reads the same from Lua (`nil, message`) and from the control socket (`error`).
final class DoorTranslationTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// One emulator behind both doors, with a script that answers `ask(lua)` and counts reset events.
    private func doors() throws -> (ScriptHarness, ControlSession) {
        let harness = try ScriptHarness()
        try harness.load(
            """
            resets = 0
            event.on("reset", function() resets = resets + 1 end)
            function ask(chunk)
              local value, message = load(chunk)()
              if value == nil and message ~= nil then return "refused: " .. tostring(message) end
              return "ok"
            end
            """)
        harness.run(5)
        return (harness, ControlSession(host: harness.host, allowEval: false))
    }

    private func lua(_ harness: ScriptHarness, _ chunk: String) throws -> String {
        let script = try XCTUnwrap(harness.host.scripts.first)
        guard case .success(let values) = script.evaluate("return ask([==[\(chunk)]==])") else {
            XCTFail("ask failed"); return ""
        }
        return values.first as? String ?? "?"
    }

    private func socket(_ control: ControlSession, _ request: String) throws -> String {
        let reply = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(control.handle(request).utf8)) as? [String: Any])
        return reply["ok"] as? Bool == true ? "ok" : "refused: " + (reply["error"] as? String ?? "?")
    }

    func testHardcoreRefusalsReadTheSameFromLuaAndTheSocket() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        XCTAssertEqual(try socket(control, #"{"cmd":"save_state","slot":1}"#), "ok")
        try harness.host.emulator.setHardcore(true)

        let write = (
            try lua(harness, "return memory.write_u8(0x10, 1)"),
            try socket(control, #"{"cmd":"write","address":16,"data":"AQ=="}"#)
        )
        XCTAssertEqual(write.0, "refused: memory writes are not allowed in hardcore mode")
        XCTAssertEqual(write.0, write.1)
        let load = (
            try lua(harness, "return savestate.load(1)"), try socket(control, #"{"cmd":"load_state","slot":1}"#)
        )
        XCTAssertEqual(load.0, "refused: state loads are not allowed in hardcore mode")
        XCTAssertEqual(load.0, load.1)
        // Resetting is allowed in hardcore from both doors, and both fire the scripts' reset event
        // (turning hardcore on reset the game once already).
        XCTAssertEqual(try lua(harness, "return emu.reset()"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"reset"}"#), "ok")
        harness.run(1)
        XCTAssertEqual(try lua(harness, "return resets == 3 or nil, resets"), "ok")
    }

    func testReadOnlyMovieRefusalsReadTheSameFromLuaAndTheSocket() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        let path = harness.folder + "/door.rlm"
        XCTAssertEqual(try socket(control, #"{"cmd":"save_state","slot":2}"#), "ok")  // outside the movie
        XCTAssertEqual(try lua(harness, "return movie.record('\(path)')"), "ok")
        harness.run(20)
        XCTAssertEqual(try lua(harness, "return movie.stop()"), "ok")
        XCTAssertEqual(try lua(harness, "return movie.play('\(path)', {readonly = true})"), "ok")
        harness.run(3)

        let reset = (try lua(harness, "return emu.reset()"), try socket(control, #"{"cmd":"reset"}"#))
        XCTAssertEqual(reset.0, "refused: a movie is playing: its resets are part of its input")
        XCTAssertEqual(reset.0, reset.1)
        let load = (
            try lua(harness, "return savestate.load(2)"), try socket(control, #"{"cmd":"load_state","slot":2}"#)
        )
        XCTAssertTrue(load.0.hasPrefix("refused: ") && load.0.contains("not made during this movie"), load.0)
        XCTAssertEqual(load.0, load.1)
        // Memory writes are not input: both doors allow them during playback.
        XCTAssertEqual(try lua(harness, "return memory.write_u8(0x10, 1)"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"write","address":16,"data":"AQ=="}"#), "ok")
        XCTAssertEqual(try lua(harness, "return resets == 0 or nil, resets"), "ok")
    }

    func testTheSocketWritesExactlyTheBytesItIsGiven() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        // A length that disagrees with the data is refused, and nothing is written.
        let big = Data(repeating: 0xAB, count: 4096).base64EncodedString()
        let reply = try socket(control, #"{"cmd":"write","address":2047,"length":1,"data":"\#(big)"}"#)
        XCTAssertTrue(reply.hasPrefix("refused: \"length\" (1) differs from the 4096 bytes"), reply)
        let past = try socket(control, #"{"cmd":"write","address":2047,"data":"\#(big)"}"#)
        XCTAssertEqual(past, "refused: address 0x7FF (4096 bytes) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(try lua(harness, "return memory.read_u8(0x7FF) ~= 0xAB or nil"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"write","address":2047,"data":"qw=="}"#), "ok")
        XCTAssertEqual(try lua(harness, "return memory.read_u8(0x7FF) == 0xAB or nil"), "ok")
    }
}
