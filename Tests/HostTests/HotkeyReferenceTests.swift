import Foundation
import XCTest

/// The default hotkeys where a person looks for them: `retrolua help run`, the man page and the CLI reference
/// list them from the Lua that answers them, and the first run in a window names the tools' keys once.
final class HotkeyReferenceTests: XCTestCase {
    /// The lines of `help run` after its hotkeys heading.
    private func hotkeyLines(_ help: String) -> [String] {
        guard let heading = help.range(of: "\nhotkeys in a window:\n") else { return [] }
        return help[heading.upperBound...].split(separator: "\n").map(String.init)
    }

    func testHelpRunAndTheManPageListTheDefaultHotkeys() throws {
        let help = try Fixtures.cli(["help", "run"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let lines = hotkeyLines(help.stdout)
        for (key, action) in [
            ("f1", "the menu"), ("f12", "the RAM tools"), ("f3", "TAS editor shown/hidden"), ("escape", "quit"),
            ("f2", "save the state in the slot"), ("\\", "slow motion while held"), ("backspace", "rewind while held"),
        ] {
            XCTAssertTrue(
                lines.contains { $0.hasPrefix("  \(key) ") && $0.contains(action) }, "\(key) \(action) in \(lines)")
        }
        let man = try Fixtures.cli(["man"])
        XCTAssertTrue(man.stdout.contains(".SH HOTKEYS\n"), man.stdout)
        XCTAssertTrue(man.stdout.contains(".TP\n.B f3\nTAS editor shown/hidden\n"), man.stdout)
        XCTAssertTrue(man.stdout.contains(".TP\n.B \\e\nslow motion while held\n"), "a backslash key, escaped for roff")
        let reference = try String(contentsOfFile: Fixtures.root + "/docs/reference/cli.md", encoding: .utf8)
        XCTAssertTrue(reference.contains("\n- `f3`: TAS editor shown/hidden\n"), reference)
    }

    /// The listing comes from lua/retrolua/hotkeys.lua itself: a changed default key shows in the help.
    func testTheListingIsReadFromTheLuaTable() throws {
        let copy = Fixtures.temporaryFolder() + "/lua"
        try FileManager.default.copyItem(atPath: Fixtures.root + "/lua", toPath: copy)
        let path = copy + "/retrolua/hotkeys.lua"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let changed = original.replacingOccurrences(
            of: "{ \"tastudio\", \"f3\", \"TAS editor shown/hidden\" }",
            with: "{ \"tastudio\", \"f5\", \"TAS editor shown/hidden\" }")
        XCTAssertNotEqual(changed, original, "the tastudio line of hotkeys.lua")
        try changed.write(toFile: path, atomically: true, encoding: .utf8)
        let help = try Fixtures.cli(["help", "run"], environment: ["RETROLUA_LUA_DIR": copy])
        let lines = hotkeyLines(help.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  f5 ") && $0.hasSuffix("TAS editor shown/hidden") }, "\(lines)")
        XCTAssertFalse(lines.contains { $0.hasPrefix("  f3 ") }, "\(lines)")
        // A broken file: the help still prints, and says why the keys are missing.
        try "return nil +".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try Fixtures.cli(["help", "run"], environment: ["RETROLUA_LUA_DIR": copy])
        XCTAssertEqual(broken.status, 0, broken.stderr)
        XCTAssertTrue(broken.stdout.contains("the hotkeys could not be read"), broken.stdout)
        XCTAssertTrue(broken.stdout.contains("hotkeys.lua"), broken.stdout)
    }

    /// The first run in a window names the keys of the menu, the RAM tools and the TAS editor once; the
    /// second run (the same home, so the same data folder) does not.
    func testTheFirstWindowedRunShowsTheKeysHintAndTheSecondDoesNot() throws {
        let home = Fixtures.temporaryFolder()
        let hint = "keys: f1 menu, f12 RAM tools, f3 TAS editor"
        let first = try WindowSession(["--no-audio"], home: home)
        XCTAssertTrue(first.waitUntil { first.stderr.contains(hint) }, "the first run's hint: " + first.stderr)
        let remembered = home + "/.local/share/retrolua/data/remembered/menu.lua"
        XCTAssertTrue(first.waitUntil { FileManager.default.fileExists(atPath: remembered) }, first.stderr)
        XCTAssertEqual(first.stop(), 143, first.stderr)
        // The second run: a script says when 30 frames have run, long after the first frame's hint.
        let probe = home + "/probe.lua"
        try "event.on('frame_end', function() if emu.framecount() == 30 then print('frame 30') end end)"
            .write(toFile: probe, atomically: true, encoding: .utf8)
        let second = try WindowSession(["--no-audio", "--script", probe], home: home)
        XCTAssertTrue(second.waitUntil { second.stdout.contains("frame 30") }, second.stdout + second.stderr)
        XCTAssertFalse(second.stderr.contains(hint), second.stderr)
        XCTAssertEqual(second.stop(), 143, second.stderr)
    }
}
