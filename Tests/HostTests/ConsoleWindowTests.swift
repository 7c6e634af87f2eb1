import Foundation
import XCTest

/// The in-window Lua console (lua/defaults/console.lua): its model and the default under stock Lua, then in
/// a real window under the test X server with every default loaded and the default profile, keys typed by
/// xdotool. What the console shows is heard through --speak (each answer is read aloud, as the scrollback
/// shows it) with a stand-in espeak-ng that writes what it is given to a file.
final class ConsoleWindowTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testTheModelAndTheDefaultPassUnderStockLua() throws {
        let result = try Fixtures.cli(
            [], executable: "/usr/bin/lua5.4", arguments: [Fixtures.root + "/Tests/lua/console_test.lua"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("ok "), result.stdout)
    }

    /// A run with a stand-in espeak-ng and a probe printing the player's x (system RAM 3), the buttons the
    /// game saw and the pause, as they change.
    private func session(_ home: String) throws -> WindowSession {
        let bin = home + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\ncat >> \(home)/said.txt\necho >> \(home)/said.txt\n".write(
            toFile: bin + "/espeak-ng", atomically: true, encoding: .utf8)
        chmod(bin + "/espeak-ng", 0o755)
        let probe = home + "/probe.lua"
        try """
        local last_x, last_paused
        event.on("frame_end", function()
          local x = memory.read_u8(3)
          if x ~= last_x then print("x " .. x); last_x = x end
          for name, down in pairs(joypad.get(1)) do
            if down then print("pad " .. name) end
          end
        end)
        event.on("draw", function()
          if emu.paused() ~= last_paused then
            last_paused = emu.paused()
            print("paused " .. tostring(last_paused))
          end
        end)
        """.write(toFile: probe, atomically: true, encoding: .utf8)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try WindowSession(
            ["--no-audio", "--speak", "--script", probe], home: home, environment: ["PATH": path])
    }

    func testInAWindowTheConsoleEvaluatesStepsAndHoldsTheKeyboard() throws {
        let home = Fixtures.temporaryFolder()
        let session = try session(home)
        func said() -> [String] {
            ((try? String(contentsOfFile: home + "/said.txt", encoding: .utf8)) ?? "").split(separator: "\n")
                .map(String.init)
        }
        func lines(_ prefix: String) -> [String] {
            session.stdout.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map(String.init)
        }
        /// Types `line` and Return, then waits until the console says something new that `answer` accepts.
        func enter(_ line: String, until answer: (String) -> Bool) throws -> String? {
            let before = said().count
            try run(line)
            var found: String?
            session.waitUntil {
                found = said().dropFirst(before).first(where: answer)
                return found != nil
            }
            return found
        }
        /// Types a statement, which answers nothing (the console keeps the lines typed meanwhile in order).
        func run(_ line: String) throws {
            try session.type(line)
            try session.press("Return")
        }
        func lastPaused() -> String { lines("paused ").last ?? "" }
        XCTAssertTrue(session.waitUntil { lastPaused() == "paused false" }, session.stdout + session.stderr)
        XCTAssertTrue(try session.press("F5") { said().contains("Lua console") }, "f5 opens it: \(said())")
        XCTAssertEqual(try enter("1+1") { $0 == "2" }, "2", "an expression shows its value: \(said())")
        try run("x = 5")
        XCTAssertEqual(try enter("x*2") { $0 == "10" }, "10", "the state is kept: \(said())")
        let error = try enter("nil + 1") { $0.contains("attempt to perform arithmetic") }
        XCTAssertNotNil(error, "the error shows: \(said())")
        // Over three lines: the first two are incomplete; the chunk then runs whole.
        for line in ["for i = 1, 3 do", "x = x + i", "end"] { try run(line) }
        XCTAssertEqual(try enter("x") { $0 == "11" }, "11", "a chunk gathered over three lines: \(said())")
        // Held by the console: arrows and the game's buttons move nothing, p does not pause, escape does not quit.
        let moves = lines("x ").count
        try session.press("Right", "Left", "Right", "Home", "End")
        XCTAssertEqual(try enter("zxp") { $0 == "nil" }, "nil", "typed, not played: \(said())")
        XCTAssertEqual(lines("pad ").count, 0, "the game got no button: \(session.stdout)")
        XCTAssertEqual(lines("x ").count, moves, "the square did not move")
        XCTAssertEqual(lastPaused(), "paused false", "p did not pause")
        try session.press("Escape")
        XCTAssertTrue(session.waitUntil { said().contains("console closed") }, "escape closes it: \(said())")
        // Closed: the game and the hotkeys get the keys again (and escape did not quit).
        try session.xdotool(["keydown", "Right"])
        XCTAssertTrue(session.waitUntil { lines("x ").count > moves }, "the square moves: \(session.stdout)")
        try session.xdotool(["keyup", "Right"])
        XCTAssertGreaterThan(lines("pad right").count, 0)
        XCTAssertTrue(try session.press("p") { lastPaused() == "paused true" }, "p pauses: \(session.stdout)")
        // Paused, emu.frameadvance() runs one frame.
        XCTAssertTrue(try session.press("F5") { said().filter { $0 == "Lua console" }.count == 2 }, "\(said())")
        let number = { (text: String) in Int(text) != nil }
        let before = try XCTUnwrap(try enter("emu.framecount()", until: number).flatMap { Int($0) }, "\(said())")
        try run("emu.frameadvance()")
        let after = try XCTUnwrap(try enter("emu.framecount()", until: number).flatMap { Int($0) }, "\(said())")
        XCTAssertEqual(after, before + 1, "one frame: \(said())")
        XCTAssertEqual(lastPaused(), "paused true", "still paused: \(session.stdout)")
        XCTAssertEqual(session.stop(), 143, session.stderr)
        // The lines typed are kept for the next run.
        let history = try String(
            contentsOfFile: home + "/.local/share/retrolua/data/console/history.txt", encoding: .utf8)
        XCTAssertTrue(history.hasPrefix("1+1\nx = 5\nx*2\nnil + 1\nfor i = 1, 3 do\n"), history)
        XCTAssertTrue(history.hasSuffix("emu.framecount()\nemu.frameadvance()\nemu.framecount()\n"), history)
        XCTAssertFalse(session.stderr.contains("outside the folders"), session.stderr)
        XCTAssertFalse(
            session.stderr.contains("[console.lua]"), "the console said nothing on stderr: \(session.stderr)")
    }
}
