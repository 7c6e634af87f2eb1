@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// The host's own Lua (lua/host/prelude.lua, lua/host/console.lua): no script runs without it.
final class HostPreludeTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A lua/ folder holding only the given files of the shipped `lua/host/`.
    private func luaFolder(copying files: [String]) throws -> String {
        let folder = Fixtures.temporaryFolder() + "/lua"
        try FileManager.default.createDirectory(atPath: folder + "/host", withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(
                atPath: Fixtures.root + "/lua/host/" + file, toPath: folder + "/host/" + file)
        }
        return folder
    }

    /// Loads a script that would leave a marker file; returns the load error and whether it ran.
    private func attempt(luaFolder: String) throws -> (error: ScriptError?, ran: Bool) {
        let harness = try ScriptHarness { $0.luaFolder = luaFolder }
        defer { harness.close() }
        let marker = harness.folder + "/ran.txt"
        var failure: ScriptError?
        do {
            try harness.load("local f = io.open('\(marker)', 'w'); f:write('ran'); f:close()")
        } catch let error as ScriptError {
            failure = error
        }
        harness.run(2)
        if failure != nil { XCTAssertEqual(harness.host.scriptCount, 0, "a script that failed to load is not kept") }
        return (failure, FileManager.default.fileExists(atPath: marker))
    }

    func testAMissingSecurityPreludeNamesItsPathAndNoScriptRuns() throws {
        let folder = try luaFolder(copying: ["console.lua"])
        let result = try attempt(luaFolder: folder)
        let message = try XCTUnwrap(result.error?.message)
        XCTAssertTrue(message.contains(folder + "/host/prelude.lua") && message.contains("security prelude"), message)
        XCTAssertFalse(result.ran, "the script must not run without its security profile")
    }

    func testAMissingConsolePreludeAlsoStopsTheScript() throws {
        let folder = try luaFolder(copying: ["prelude.lua"])
        let result = try attempt(luaFolder: folder)
        let message = try XCTUnwrap(result.error?.message)
        XCTAssertTrue(message.contains(folder + "/host/console.lua"), message)
        XCTAssertFalse(result.ran)
    }

    func testABrokenPreludeFailsTheScriptWithItsChunkName() throws {
        let folder = try luaFolder(copying: ["console.lua"])
        try "local trust = \n if then".write(toFile: folder + "/host/prelude.lua", atomically: true, encoding: .utf8)
        let result = try attempt(luaFolder: folder)
        let message = try XCTUnwrap(result.error?.message)
        XCTAssertTrue(message.hasPrefix("retrolua/prelude:2:"), message)
        XCTAssertFalse(result.ran)
    }

    func testThePreludesAreReadOncePerFolder() throws {
        let folder = try luaFolder(copying: ["prelude.lua", "console.lua"])
        XCTAssertNil(try attempt(luaFolder: folder).error)
        try FileManager.default.removeItem(atPath: folder + "/host/prelude.lua")
        let second = try attempt(luaFolder: folder)
        XCTAssertNil(second.error, "the cached text serves later scripts")
        XCTAssertTrue(second.ran)
    }

    func testLoadAndLoadfileKeepTheGlobalsUnlessGivenAnEnvironment() throws {
        for allowFiles in [false, true] {
            let harness = try ScriptHarness { $0.allowFiles = allowFiles }
            try "return type(print)".write(toFile: harness.folder + "/chunk.lua", atomically: true, encoding: .utf8)
            try harness.load(
                """
                print(load("return type(print)")(), loadfile("\(harness.folder)/chunk.lua")(), load("return x", "c", \
                "bt", { x = 5 })())
                print(select(2, load(string.dump(function() end))))
                """)
            XCTAssertEqual(harness.lines.first, "function\tfunction\t5", "allow files \(allowFiles): \(harness.lines)")
            XCTAssertTrue(
                harness.lines.last?.contains("attempt to load a binary chunk") == true,
                "bytecode stays refused: \(harness.lines)")
            XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
            harness.close()
        }
    }

    func testRETROLUA_LUA_DIRPointsTheCLIAtAnotherLuaFolder() throws {
        let folder = try luaFolder(copying: [])
        let marker = Fixtures.temporaryFolder() + "/ran.txt"
        let script = Fixtures.temporaryFolder() + "/probe.lua"
        try "io.open('\(marker)', 'w'):close(); emu.exit(0)".write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            ["run", "--headless", "--script", script, "--frames", "5", "--strict", "--quiet"],
            environment: ["RETROLUA_LUA_DIR": folder])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "probe.lua failed: " + folder + "/host/prelude.lua: the security prelude is missing"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
    }
}
