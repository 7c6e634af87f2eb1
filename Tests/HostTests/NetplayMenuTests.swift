import Foundation
import XCTest

/// The menu's Netplay page (lua/retrolua/menu_netplay.lua) in real windows, keys typed by xdotool: one
/// window hosts from the page, another joins by an address typed there; both play the two-player Dodge
/// to the end of the session, and the joiner's page remembers the address.
final class NetplayMenuTests: XCTestCase {
    private static let dodge2p = Fixtures.root + "/build/roms/dodge2p.nes"

    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: Self.dodge2p) else {
            throw XCTSkip("\(Self.dodge2p) is missing: run scripts/setup")
        }
    }

    /// A home whose ~/.config/retrolua holds `files` (name → text).
    private func home(_ files: [String: String]) -> String {
        let home = Fixtures.temporaryFolder()
        let config = home + "/.config/retrolua"
        try! FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        for (name, text) in files {
            XCTAssertTrue(FileManager.default.createFile(atPath: config + "/" + name, contents: Data(text.utf8)))
        }
        return home
    }

    /// A UDP port nothing listens on now.
    private func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A window of the two-player Dodge whose script says on stderr when frames run (keys reach the menu then).
    private func window(home: String) throws -> WindowSession {
        let probe = home + "/probe.lua"
        let text =
            "local n = 0\nevent.on(\"frame_end\", function() n = n + 1; "
            + "if n == 5 then io.stderr:write(\"FRAMES-RUN\\n\") end end)\n"
        XCTAssertTrue(FileManager.default.createFile(atPath: probe, contents: Data(text.utf8)))
        let session = try WindowSession(
            [Self.dodge2p, "--core", "nestopia", "--no-audio", "--script", probe], home: home)
        XCTAssertTrue(session.waitUntil(seconds: 30) { session.stderr.contains("FRAMES-RUN") }, session.stderr)
        return session
    }

    func testTheMenuHostsAndJoinsByATypedAddressAndTheAddressIsRemembered() throws {
        let port = freePort()
        let settings = "return { stop_after = 120 }"
        let hostHome = home(["netplay.lua": settings, "netplay_menu.lua": "return { port = \(port) }"])
        let joinerHome = home(["netplay.lua": settings])
        let host = try window(home: hostHome)
        // f1 opens the menu; up wraps to its last item, Netplay; return opens it; return on "Host a game".
        try host.press("F1", "Up", "Return", "Return", delay: 150)
        XCTAssertTrue(host.waitUntil { host.stderr.contains("hosting on port \(port)") }, host.stderr)

        let joiner = try window(home: joinerHome)
        // The page's second item, "Join an address...", takes the address typed.
        try joiner.press("F1", "Up", "Return", "Down", "Return", delay: 150)
        try joiner.type("127.0.0.1:\(port)")
        try joiner.press("Return")
        XCTAssertTrue(
            joiner.waitUntil(seconds: 60) { joiner.stderr.contains("netplay: finished 120 frames") }, joiner.stderr)
        XCTAssertTrue(host.waitUntil(seconds: 30) { host.stderr.contains("netplay: finished 120 frames") }, host.stderr)
        XCTAssertTrue(host.stderr.contains("you are player 1"), host.stderr)
        XCTAssertTrue(joiner.stderr.contains("you are player 2"), joiner.stderr)

        // The joined address is remembered for the page's list (the data folder's netplay_menu settings).
        let files = FileManager.default.enumerator(atPath: joinerHome)?.compactMap { $0 as? String } ?? []
        let remembered = files.filter { $0.contains("netplay_menu") && !$0.hasPrefix(".config") }
            .compactMap { try? String(contentsOfFile: joinerHome + "/" + $0, encoding: .utf8) }
        XCTAssertTrue(remembered.contains { $0.contains("last_addresses = \"127.0.0.1:\(port)\"") }, "\(files)")
        for session in [host, joiner] {
            try session.press("Escape", until: { !session.process.isRunning })
        }
    }
}
