import Foundation
@testable import Libretro
import Support
import XCTest

/// Which core takes which content with Debian's cores and build/cores (fbneo among them) in the path,
/// and `retrolua cores` printing names `--core` accepts.
final class CoreChoiceTests: XCTestCase {
    let folder = Fixtures.temporaryFolder()

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        guard FileManager.default.fileExists(atPath: ContentTests.bundled + "/fbneo_libretro.so") else {
            throw XCTSkip("build/cores missing: run scripts/setup")
        }
    }

    func locator(preferences: String? = nil) throws -> CoreLocator {
        let config = folder + "/config"
        try FileManager.default.createDirectory(atPath: config + "/retrolua", withIntermediateDirectories: true)
        if let preferences {
            try preferences.write(toFile: config + "/retrolua/cores.cfg", atomically: true, encoding: .utf8)
        }
        return CoreLocator(environment: [
            "RETROLUA_CORE_PATH": ContentTests.bundled, "HOME": folder, "XDG_CONFIG_HOME": config,
            "XDG_CACHE_HOME": folder + "/cache",
        ])
    }

    func zip(_ name: String, _ members: [(String, [UInt8])]) throws -> String {
        let path = folder + "/" + name
        try Data(ZipArchive.write(members.map { (name: $0.0, bytes: $0.1) })).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testZipsGoByTheirMembersAndOnlyRomsetsToArcadeCores() throws {
        let locator = try locator()
        let nes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)))
        let gb = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.gbROM)))
        let nesZip = try locator.choose(for: Content(path: zip("game.zip", [("notes.txt", [1]), ("game.nes", nes)])))
        XCTAssertEqual(nesZip.core.name, "nestopia", nesZip.note)
        XCTAssertEqual(nesZip.alternatives, ["fceumm"])
        XCTAssertTrue(nesZip.note.contains("game.zip (member game.nes)"), nesZip.note)
        XCTAssertTrue(nesZip.rule.contains("system-wide"), nesZip.rule)
        let gbZip = try locator.choose(for: Content(path: zip("gb.zip", [("demo.gb", gb)])))
        XCTAssertEqual(gbZip.core.name, "gambatte", gbZip.note)
        XCTAssertTrue(gbZip.alternatives.contains("mgba"))
        // Chip dumps (several .bin) are a romset; a single .bin is console content.
        let romset = try locator.choose(
            for: Content(path: zip("sf2.zip", [("sf2.01", [1]), ("sf2_02.bin", [2]), ("sf2_03.bin", [3])])))
        XCTAssertEqual(romset.core.name, "fbneo", romset.note)
        XCTAssertTrue(romset.subject.contains("arcade romset"), romset.subject)
        let single = try locator.choose(
            for: Content(path: zip("pitfall.zip", [("pitfall.bin", [UInt8](repeating: 0xEA, count: 4096))])))
        XCTAssertEqual(single.core.name, "stella", "a small headerless .bin is an Atari 2600 game: \(single.note)")
        XCTAssertThrowsError(try locator.choose(for: Content(path: zip("docs.zip", [("readme.txt", [1])])))) {
            XCTAssertTrue(
                "\($0)".contains("docs.zip") && "\($0)".contains("looked for") && "\($0)".contains(".nes"), "\($0)")
        }
    }

    func testAmbiguousExtensionsFollowTheRule() throws {
        let airstriker = Fixtures.root + "/build/roms/airstriker.md"
        let plain = try locator()
        let md = try plain.choose(for: Content(path: airstriker))
        XCTAssertEqual(md.core.name, "genesis_plus_gx", md.note)
        XCTAssertEqual(md.alternatives, ["picodrive"])
        XCTAssertTrue(md.rule.contains("built-in default"), md.rule)
        let nes = try plain.choose(for: Content(path: Fixtures.nesROM))
        XCTAssertEqual(nes.core.name, "nestopia")
        let preferring = try locator(preferences: "# mine\nnes = fceumm\n.md = \"picodrive\"\n")
        let chosen = try preferring.choose(for: Content(path: Fixtures.nesROM))
        XCTAssertEqual(chosen.core.name, "fceumm")
        XCTAssertTrue(chosen.rule.contains("cores.cfg"), chosen.rule)
        XCTAssertEqual(try preferring.choose(for: Content(path: airstriker)).core.name, "picodrive")
    }

    /// The run says which core it chose and what else could take the file, unless --quiet.
    func testTheRunNamesTheChoiceAndTheAlternatives() throws {
        let environment = ["RETROLUA_CORE_PATH": ContentTests.bundled]
        let said = try Fixtures.cli(["run", Fixtures.nesROM, "--frames", "2", "--headless"], environment: environment)
        XCTAssertEqual(said.status, 0, said.stderr)
        XCTAssertTrue(said.stderr.contains("core nestopia chosen for demo.nes"), said.stderr)
        XCTAssertTrue(said.stderr.contains("also takes it: fceumm"), said.stderr)
        let quiet = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--frames", "2", "--headless", "--quiet"], environment: environment)
        XCTAssertFalse(quiet.stderr.contains("chosen"), quiet.stderr)
        let named = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--frames", "2", "--headless", "--core", "fceumm"], environment: environment)
        XCTAssertFalse(named.stderr.contains("chosen"), "--core decides alone: \(named.stderr)")
    }

    /// Names are printed whole (bsnes_mercury_performance is 25 characters) and each works with --core.
    func testCoresPrintsFullNamesThatCoreAccepts() throws {
        let listed = try Fixtures.cli(["cores"], environment: ["RETROLUA_CORE_PATH": ContentTests.bundled])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let names = listed.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        XCTAssertTrue(names.contains("fbneo") && names.contains("nestopia"), "\(names)")
        if FileManager.default.fileExists(
            atPath: "/usr/lib/x86_64-linux-gnu/libretro/bsnes_mercury_performance_libretro.so")
        {
            XCTAssertTrue(names.contains("bsnes_mercury_performance"), "\(names)")
        }
        let locator = try locator()
        for name in names { XCTAssertNoThrow(try locator.resolve(name), name) }
    }
}
