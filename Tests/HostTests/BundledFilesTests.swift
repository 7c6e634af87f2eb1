import Emulation
import Foundation
import XCTest

/// Bundled ROMs and examples by name from any folder (`BundledFiles`): `retrolua run dodge.nes`,
/// `--script examples/…`, `movie info examples/…`, `info demo.gb` and `retrolua paths` from an empty working
/// folder — the source build's tree, then an installed copy's share/retrolua first; a name found nowhere lists
/// the places looked at; a bundled script keeps the default profile.
final class BundledFilesTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func run(
        _ arguments: [String], in folder: String, executable: String = Fixtures.binary,
        environment extra: [String: String] = [:]
    ) throws -> Fixtures.Result {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "RETROLUA_LUA_DIR", "RETROLUA_DEFAULT_ROM", "XDG_DATA_HOME"] {
            environment[name] = nil
        }
        environment["HOME"] = Fixtures.temporaryFolder()
        environment.merge(extra) { _, new in new }
        return try Fixtures.run(executable, arguments, in: folder, environment: environment)
    }

    private func json(_ result: Fixtures.Result) throws -> [String: Any] {
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], result.stdout)
    }

    private static let dodgeSHA1 = "47f74ac1facd554ccc818d117faad0adc5c93e57"

    func testTheSourceBuildFindsItsROMsAndExamplesFromAnEmptyFolder() throws {
        let empty = Fixtures.temporaryFolder()
        let played = try run(
            [
                "run", "dodge.nes", "--core", "nestopia", "--headless", "--frames", "5", "--json", "--script",
                "examples/overlays/ram_watch.lua",
            ], in: empty)
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertEqual(try json(played)["content_sha1"] as? String, Self.dodgeSHA1)
        // `build/roms/…` (the source tree's own spelling) and `roms/…` name the same files.
        for name in ["build/roms/dodge.nes", "roms/dodge.nes"] {
            let listed = try run(["paths", name], in: empty)
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertEqual(listed.stdout, Fixtures.root + "/build/roms/dodge.nes\n")
        }
        let folders = try run(["paths"], in: empty)
        XCTAssertEqual(folders.status, 0, folders.stderr)
        for line in ["roms        \(Fixtures.root)/build/roms", "examples    \(Fixtures.root)/examples"] {
            XCTAssertTrue(folders.stdout.contains(line + "\n"), folders.stdout)
        }
        let asJSON = try json(try run(["paths", "--json"], in: empty))
        XCTAssertEqual(asJSON["lua"] as? String, Fixtures.root + "/lua")
        let movie = try run(["movie", "info", "examples/tas/demo.rlm"], in: empty)
        XCTAssertEqual(movie.status, 0, movie.stderr)
        XCTAssertTrue(movie.stdout.contains("movie      \(Fixtures.root)/examples/tas/demo.rlm"), movie.stdout)
        let info = try run(["info", "demo.gb"], in: empty)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("content  \(Fixtures.root)/build/roms/demo.gb"), info.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty), [], "nothing written here")
    }

    func testANameFoundNowhereListsWhereItLooked() throws {
        let empty = Fixtures.temporaryFolder()
        let content = try run(["run", "nothing.nes", "--headless", "--frames", "1"], in: empty)
        XCTAssertEqual(content.status, 1)
        XCTAssertTrue(
            content.stderr.contains(
                "run: nothing.nes: no such content (looked at: \(empty)/nothing.nes, "
                    + "\(Fixtures.root)/build/roms/nothing.nes)"), content.stderr)
        let script = try run(["run", "--headless", "--frames", "1", "--script", "examples/none.lua"], in: empty)
        XCTAssertEqual(script.status, 1)
        XCTAssertTrue(
            script.stderr.contains(
                "examples/none.lua: no such script (looked at: \(empty)/examples/none.lua, "
                    + "\(Fixtures.root)/examples/none.lua)"), script.stderr)
        let listed = try run(["paths", "dodge.nes", "nothing.nes"], in: empty)
        XCTAssertEqual(listed.status, 1)
        XCTAssertTrue(listed.stderr.contains("paths: nothing.nes: no such file (looked at:"), listed.stderr)
        // Paths that can only be the person's own are never looked up elsewhere.
        for name in ["../dodge.nes", "./dodge.nes", "examples/../build/roms/dodge.nes", "/dodge.nes"] {
            let own = try run(["paths", name], in: empty)
            XCTAssertEqual(own.status, 1, name)
            XCTAssertTrue(own.stderr.contains("\(name): no such file"), own.stderr)
            XCTAssertFalse(own.stderr.contains("looked at"), own.stderr)
        }
    }

    func testAFileInTheWorkingFolderWinsOverTheBundledOne() throws {
        let folder = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.nesROM, toPath: folder + "/dodge.nes")
        let played = try run(
            ["run", "dodge.nes", "--core", "nestopia", "--headless", "--frames", "2", "--json"], in: folder)
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertNotEqual(try json(played)["content_sha1"] as? String, Self.dodgeSHA1, "the demo copied here")
        XCTAssertEqual(try run(["paths", "dodge.nes"], in: folder).stdout, folder + "/dodge.nes\n")
    }

    func testTheRuleTriesEachPlaceInOrder() throws {
        let base = Fixtures.temporaryFolder(), manager = FileManager.default
        for folder in ["a/roms", "a/examples/bots", "b/roms", "b/examples/bots"] {
            try manager.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
        }
        for file in ["a/roms/one.nes", "b/roms/one.nes", "b/roms/two.nes", "b/examples/bots/bot.lua"] {
            XCTAssertTrue(manager.createFile(atPath: base + "/" + file, contents: Data()))
        }
        let places = [
            BundledFiles.Place(name: "installed", roms: base + "/a/roms", examples: base + "/a/examples"),
            BundledFiles.Place(name: "source tree", roms: base + "/b/roms", examples: base + "/b/examples"),
        ]
        let empty = Fixtures.temporaryFolder()
        func resolve(_ name: String) throws -> String {
            try BundledFiles.resolve(name, workingFolder: empty, places: places)
        }
        XCTAssertEqual(try resolve("one.nes"), base + "/a/roms/one.nes")
        XCTAssertEqual(try resolve("two.nes"), base + "/b/roms/two.nes")
        XCTAssertEqual(try resolve("build/roms/two.nes"), base + "/b/roms/two.nes")
        XCTAssertEqual(try resolve("examples/bots/bot.lua"), base + "/b/examples/bots/bot.lua")
        XCTAssertThrowsError(try resolve("three.nes")) { error in
            XCTAssertEqual(
                (error as? BundledFiles.NotFound)?.looked,
                [empty + "/three.nes", base + "/a/roms/three.nes", base + "/b/roms/three.nes"])
        }
        for name in ["examples/../roms/one.nes", "a//b", "lua/host/prelude.lua", "~/one.nes", ""] {
            XCTAssertNil(BundledFiles.bundledPart(of: name), name)
        }
    }

    /// An installed copy's share/retrolua comes before the source tree, and a script found there by name is an
    /// ordinary script: it reads its own folder, but writes only the data folder and reads nothing else.
    func testAnInstalledCopyIsFoundFirstAndItsScriptsKeepTheDefaultProfile() throws {
        let base = Fixtures.temporaryFolder()
        let prefix = base + "/prefix", share = prefix + "/share/retrolua"
        let installed = try run(
            ["/bin/bash", Fixtures.root + "/scripts/install", "--binary", Fixtures.binary, prefix], in: base,
            executable: "/usr/bin/env")
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let probe = """
            local folder = "\(share)/examples/"
            local readable = io.open(folder .. "overlays/ram_watch.lua", "r")
            print("own folder", readable ~= nil)
            if readable then readable:close() end
            print("write own folder", io.open(folder .. "written.txt", "w") ~= nil)
            print("read elsewhere", io.open("\(Fixtures.root)/README.md", "r") ~= nil)
            emu.exit()
            """
        try probe.write(toFile: share + "/examples/probe.lua", atomically: true, encoding: .utf8)
        let empty = Fixtures.temporaryFolder()
        let listed = try run(
            ["paths", "dodge.nes", "examples/probe.lua"], in: empty, executable: prefix + "/bin/retrolua")
        XCTAssertEqual(listed.stdout, "\(share)/roms/dodge.nes\n\(share)/examples/probe.lua\n", listed.stderr)
        let ran = try run(
            ["run", "dodge.nes", "--headless", "--frames", "30", "--script", "examples/probe.lua"], in: empty,
            executable: prefix + "/bin/retrolua")
        XCTAssertEqual(ran.status, 0, ran.stderr)
        for line in ["own folder\ttrue", "write own folder\tfalse", "read elsewhere\tfalse"] {
            XCTAssertTrue(ran.stdout.contains(line + "\n"), ran.stdout)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: share + "/examples/written.txt"))
    }
}
