import Foundation
import XCTest

/// The menu's network grant, as a person gives it: a script refused the network under the default profile
/// is offered "allow loopback network" on the Scripts page; the grant reloads it with loopback, is
/// remembered for the next run, and is forgotten when the script's content changes.
final class NetGrantWindowTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requireROMs()
    }

    private let connector = """
        local server, message = net.tcp_listen{bind = "127.0.0.1:0"}
        if not server then error("connector: " .. message) end
        print("listening " .. server:address() .. " " .. net.allowed())
        """

    func testTheMenusGrantIsRememberedPerScriptAndContent() throws {
        let home = Fixtures.temporaryFolder()
        let path = Fixtures.temporaryFolder() + "/connector.lua"
        try connector.write(toFile: path, atomically: true, encoding: .utf8)
        let arguments = ["--no-audio", "--script", path]

        let first = try WindowSession(arguments, home: home)
        XCTAssertTrue(first.waitUntil { first.stderr.contains("network access needs --allow-net") }, first.stderr)
        XCTAssertFalse(first.stdout.contains("listening"), first.stdout)
        // The menu: Scripts is the seventh entry; up from the first item wraps to the last, the grant offered
        // under the only script of the person's.
        try first.press("F1")
        try first.press("Down", "Down", "Down", "Down", "Down", "Down", "Return", "Up", "Return")
        XCTAssertTrue(
            first.waitUntil { first.stderr.contains("connector.lua: loopback network allowed") }, first.stderr)
        // The script restarts with the grant once the game runs again (the menu pauses it).
        try first.press("Escape", "Escape")
        XCTAssertTrue(first.waitUntil { first.stdout.contains("listening 127.0.0.1:") }, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.contains(" loopback"), first.stdout)
        _ = first.stop()
        let grants = home + "/.config/retrolua/network-grants"
        let remembered = try String(contentsOfFile: grants, encoding: .utf8)
        XCTAssertTrue(
            remembered.hasSuffix(" " + URL(fileURLWithPath: path).standardizedFileURL.path + "\n"), remembered)

        let second = try WindowSession(arguments, home: home)
        XCTAssertTrue(second.waitUntil { second.stdout.contains("listening 127.0.0.1:") }, second.stderr)
        _ = second.stop()

        try (connector + "\n-- changed\n").write(toFile: path, atomically: true, encoding: .utf8)
        let third = try WindowSession(arguments, home: home)
        XCTAssertTrue(third.waitUntil { third.stderr.contains("network access needs --allow-net") }, third.stderr)
        XCTAssertFalse(third.stdout.contains("listening"), third.stdout)
        _ = third.stop()
    }

    /// Only Retrolua's own frontend scripts may give the grant: a user's script asking is an error.
    func testAScriptCannotGrantItself() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load("print(select(2, pcall(scripts.grant_network, 'test.lua')))")
        XCTAssertTrue(
            harness.output.contains("scripts.grant_network: only Retrolua's own frontend scripts"), harness.output)
    }
}
