import Foundation
import XCTest

/// The host side of the compatibility layers: `--script LAYER:FILE` and `--compat LAYER` run
/// lua/compat/LAYER.lua in the script's own state first, relative paths start at the script's folder,
/// `auto` picks a layer from the script's globals and says so, and unknown layers are refused. A Lua
/// folder of the test's own (RETROLUA_LUA_DIR) holds a layer made for the test, so these checks do not
/// depend on what the real layers provide (their own tests: CompatFCEUXTests, CompatBizHawkTests).
final class CompatLayerTests: XCTestCase {
    private var luaFolder = "", scriptFolder = ""

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        luaFolder = Fixtures.temporaryFolder() + "/lua"
        try FileManager.default.copyItem(atPath: Fixtures.root + "/lua", toPath: luaFolder)
        // A layer of the test's own: a global only it defines, and `...` as the host passes it.
        try """
        local path, folder, source, options = ...
        testlayer = { path = path, folder = folder, lines = select(2, source:gsub("\\n", "")), options = options }
        local compat = require("compat.common")
        compat.define("emu.testlayer_frames", function() return emu.framecount() end)
        """.write(toFile: luaFolder + "/compat/testlayer.lua", atomically: true, encoding: .utf8)
        // auto must find it among the layers it knows: give it a mark of its own (compat.marks, in common.lua).
        let common = luaFolder + "/compat/common.lua"
        let text = try String(contentsOfFile: common, encoding: .utf8)
            .replacingOccurrences(
                of: "local strong = {", with: "local strong = {\n  { \"testlayer\", { \"testlayer%.\" } },")
        try text.write(toFile: common, atomically: true, encoding: .utf8)
        scriptFolder = Fixtures.temporaryFolder()
        try FileManager.default.createDirectory(atPath: scriptFolder + "/lib", withIntermediateDirectories: true)
        try "return 'from lib'\n".write(toFile: scriptFolder + "/lib/helper.lua", atomically: true, encoding: .utf8)
        try "data line\n".write(toFile: scriptFolder + "/lib/data.txt", atomically: true, encoding: .utf8)
        try """
        assert(testlayer, "the layer ran first")
        print("path", testlayer.path == arg_path, "lines", testlayer.lines)
        print("dofile", dofile("lib/helper.lua"))
        print("io", io.open("lib/data.txt"):read("l"))
        emu.frameadvance()
        print("frames", emu.testlayer_frames())
        emu.exit(0)
        """.replacingOccurrences(of: "arg_path", with: "'\(scriptFolder)/bot.lua'")
            .write(toFile: scriptFolder + "/bot.lua", atomically: true, encoding: .utf8)
    }

    private func run(_ arguments: [String]) throws -> Fixtures.Result {
        try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "30"] + arguments,
            environment: ["RETROLUA_LUA_DIR": luaFolder])
    }

    func testALayerPrefixRunsTheLayerFirstWithPathsFromTheScriptsFolder() throws {
        let result = try run(["--script", "testlayer:" + scriptFolder + "/bot.lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in ["path\ttrue\tlines\t6", "dofile\tfrom lib", "io\tdata line", "frames\t1"] {
            XCTAssertTrue(result.stdout.contains(line), "\(line) in: " + result.stdout + result.stderr)
        }
    }

    func testCompatIsTheDefaultForScriptsWithoutAPrefix() throws {
        let result = try run(["--compat", "testlayer", "--script", scriptFolder + "/bot.lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("dofile\tfrom lib"), result.stdout + result.stderr)
    }

    func testAutoChoosesFromTheScriptsGlobalsAndSaysSo() throws {
        let result = try run(["--script", "auto:" + scriptFolder + "/bot.lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("with the testlayer layer (it uses testlayer.)"), result.stderr)
        XCTAssertTrue(result.stdout.contains("frames\t1"), result.stdout)
        // A script with no other emulator's names runs with ours, and auto says that too.
        try "emu.exit(0)\n".write(toFile: scriptFolder + "/plain.lua", atomically: true, encoding: .utf8)
        let plain = try run(["--compat", "auto", "--script", scriptFolder + "/plain.lua"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stderr.contains("uses no other emulator's names"), plain.stderr)
    }

    func testAutoKnowsTheNamesPublishedScriptsUseMost() throws {
        // Scripts in the styles auto used to miss (written for this test): FCEUX-style ones with only names the
        // emulators share, mGBA ones with only emu: methods, Mesen 1 ones with only emu.read, BizHawk drawing.
        let cases: [(script: String, rom: String, says: String)] = [
            (
                "while true do\n  local hp = memory.readbyte(0x0010)\n  gui.box(0, 0, 10, 10, 'red')\n"
                    + "  emu.frameadvance()\nend\n", Fixtures.nesROM,
                "with the fceux layer (it uses memory.readbyte, gui.box)"
            ),
            (
                "local v = emu:read32(0x03000000)\nlocal k = emu:getKey(0)\n",
                Fixtures.root + "/build/roms/demo.gba", "with the mgba layer (it uses emu:read32, emu:getKey)"
            ),
            (
                "local v = emu.read(0x10, type)\nemu.log(v)\n", Fixtures.nesROM,
                "with the mesen layer (it uses emu.read, emu.log)"
            ),
            (
                "local id = emu.getsystemid()\ngui.drawRectangle(1, 1, 5, 5)\n", Fixtures.nesROM,
                "with the bizhawk layer (it uses gui.drawRectangle, emu.getsystemid)"
            ),
            (
                "while true do\n  if movie.isloaded() then gui.text(0, 0, movie.getfps()) end\n"
                    + "  emu.frameadvance()\nend\n", Fixtures.nesROM,
                "with the bizhawk layer (it uses movie.isloaded, movie.getfps)"
            ),
        ]
        for (index, item) in cases.enumerated() {
            let path = scriptFolder + "/style\(index).lua"
            try item.script.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try Fixtures.cli(
                ["run", item.rom, "--headless", "--frames", "10", "--strict", "--script", "auto:" + path],
                environment: ["RETROLUA_LUA_DIR": luaFolder])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stderr.contains(item.says), "\(item.says) in: " + result.stderr)
        }
    }

    /// `--compat LAYER:OPTIONS` hands the layer its options (the text after the colon); a `--script LAYER:FILE` of
    /// the same layer gets them too, another layer's does not.
    func testALayersOptionsReachIt() throws {
        try "print('options', testlayer.options) emu.exit(0)\n".write(
            toFile: scriptFolder + "/opts.lua", atomically: true, encoding: .utf8)
        for (arguments, expected) in [
            (["--compat", "testlayer:version=2.9.1,socket=127.0.0.1:9"], "options\tversion=2.9.1,socket=127.0.0.1:9"),
            (["--compat", "testlayer:x", "--script", "testlayer:" + scriptFolder + "/opts.lua"], "options\tx"),
            (["--compat", "auto:y"], "options\ty"),
            (["--script", "testlayer:" + scriptFolder + "/opts.lua"], "options\tnil"),
        ] {
            let script =
                arguments.contains { $0.hasPrefix("testlayer:/") } ? [] : ["--script", scriptFolder + "/opts.lua"]
            let result = try run(arguments + script)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stdout.contains(expected + "\n"), "\(arguments): " + result.stdout + result.stderr)
        }
        let unknown = try run(["--compat", "nope:version=1", "--script", scriptFolder + "/opts.lua"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no layer named 'nope' (layers: auto, "), unknown.stderr)
    }

    /// A script loaded by scripts.load (the menu's Scripts page) runs through the layer its names point to, as
    /// `--compat auto` would: a connector written for another emulator, loaded from the menu, runs.
    func testAScriptLoadedFromTheMenuGetsItsLayer() throws {
        try """
        print("load", scripts.load("\(scriptFolder)/bot.lua"))
        for _ = 1, 10 do emu.frameadvance() end
        """.write(toFile: scriptFolder + "/loader.lua", atomically: true, encoding: .utf8)
        let result = try run(["--script", scriptFolder + "/loader.lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("with the testlayer layer (it uses testlayer.)"), result.stderr)
        XCTAssertTrue(result.stdout.contains("frames\t1"), result.stdout + result.stderr)
    }

    func testUnknownLayersAreRefusedAndAPathWithAColonIsAPath() throws {
        let unknown = try run(["--compat", "nope", "--script", scriptFolder + "/bot.lua"])
        XCTAssertEqual(unknown.status, 2)
        // The real layers (bizhawk, mesen…) are listed too: the test copies the whole lua/ folder.
        XCTAssertTrue(unknown.stderr.contains("no layer named 'nope' (layers: auto, "), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("testlayer"), unknown.stderr)
        // "odd:name.lua" is not a layer prefix: the whole argument is the script's path.
        try "print('plain script ran') emu.exit(0)\n".write(
            toFile: scriptFolder + "/odd:name.lua", atomically: true, encoding: .utf8)
        let colon = try run(["--script", scriptFolder + "/odd:name.lua"])
        XCTAssertEqual(colon.status, 0, colon.stderr)
        XCTAssertTrue(colon.stdout.contains("plain script ran"), colon.stdout + colon.stderr)
    }

    func testTheDocsSupportPagesAreTheLayersOwn() throws {
        // scripts/compat-table --check: docs/compat/*.md equal what the layers record (compat.record).
        let result = try Fixtures.cli(
            [], executable: "/bin/bash",
            arguments: [Fixtures.root + "/scripts/compat-table", "--check", Fixtures.binary])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }
}
