import Foundation
import XCTest

/// `scripts/install PREFIX`: the binary, share/retrolua (lua, ROMs, examples), completions and man page;
/// the installed binary finds its files beside itself, from any folder, before the source tree's.
final class InstallTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func run(
        _ executable: String, _ arguments: [String], in folder: String, environment extra: [String: String] = [:]
    ) throws -> Fixtures.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["RETROLUA_LUA_DIR"] = nil
        environment["RETROLUA_DEFAULT_ROM"] = nil
        environment.merge(extra) { _, new in new }
        return try Fixtures.run(executable, arguments, in: folder, environment: environment)
    }

    func testAnInstalledRetroluaRunsFromAnyFolderWithItsOwnFiles() throws {
        let base = Fixtures.temporaryFolder()
        let prefix = base + "/prefix", share = prefix + "/share/retrolua", manager = FileManager.default
        let installed = try run(
            "/bin/bash", [Fixtures.root + "/scripts/install", "--binary", Fixtures.binary, prefix], in: base)
        XCTAssertEqual(installed.status, 0, installed.stderr)
        for file in [
            "bin/retrolua", "share/retrolua/lua/defaults/osd.lua", "share/retrolua/lua/API.md",
            "share/retrolua/roms/demo.nes", "share/retrolua/roms/dodge.nes", "share/retrolua/examples/bots/search.lua",
            "share/bash-completion/completions/retrolua", "share/zsh/site-functions/_retrolua",
            "share/man/man1/retrolua.1",
        ] {
            XCTAssertTrue(manager.fileExists(atPath: prefix + "/" + file), file)
        }
        XCTAssertTrue(
            try String(contentsOfFile: prefix + "/share/man/man1/retrolua.1", encoding: .utf8).hasPrefix(".TH"))
        // What only the installed copy has proves it is read before the source tree: its "demo" is Dodge,
        // and a compatibility layer the tree lacks.
        try manager.removeItem(atPath: share + "/roms/demo.nes")
        try manager.copyItem(atPath: Fixtures.root + "/build/roms/dodge.nes", toPath: share + "/roms/demo.nes")
        try manager.copyItem(atPath: share + "/lua/compat/fceux.lua", toPath: share + "/lua/compat/installedonly.lua")
        let elsewhere = base + "/elsewhere", home = base + "/home"
        try manager.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try "emu.frameadvance()\n".write(toFile: elsewhere + "/one.lua", atomically: true, encoding: .utf8)
        // Found on PATH by its bare name (argv[0] = "retrolua"), from a folder holding nothing of ours.
        let result = try run(
            "/usr/bin/env",
            [
                "retrolua", "run", "--headless", "--frames", "5", "--json", "--compat", "installedonly", "--script",
                "one.lua",
            ],
            in: elsewhere, environment: ["PATH": prefix + "/bin:/usr/bin:/bin", "HOME": home])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(
            json["content_sha1"] as? String, "47f74ac1facd554ccc818d117faad0adc5c93e57", "the installed demo")
        // Through a symbolic link elsewhere, the real path still leads to share/retrolua.
        try manager.createSymbolicLink(atPath: base + "/rl", withDestinationPath: prefix + "/bin/retrolua")
        let linked = try run(
            base + "/rl", ["run", "--headless", "--frames", "2", "--json"], in: "/", environment: ["HOME": home])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertTrue(linked.stdout.contains("47f74ac1facd554ccc818d117faad0adc5c93e57"), linked.stdout)
        let bad = try run("/bin/bash", [Fixtures.root + "/scripts/install", "--bogus"], in: base)
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }
}
