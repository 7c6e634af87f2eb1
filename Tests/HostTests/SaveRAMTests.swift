@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Support

/// Battery saves: the NES demo counts power-ons at $6000 (save RAM offset 0).
final class SaveRAMTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func bootCount(_ session: Session) -> UInt8 {
        session.core.memoryRegion(.saveRAM)!.pointer.load(as: UInt8.self)
    }

    func testSaveRAMSurvivesARestart() throws {
        let folder = Fixtures.temporaryFolder()
        for expected in UInt8(1)...3 {
            let session = try Fixtures.session(folder: folder)
            session.run(5)
            XCTAssertEqual(bootCount(session), expected)
            try session.close()
        }
        let file = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/saves/" + Fixtures.srm()))
        XCTAssertEqual(file.count, 8192)
        XCTAssertEqual(file.first, 3)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/saves"), [Fixtures.srm()],
            "no temporary files left")
    }

    func testWrongSizeSaveIsNotLoadedAndIsKept() throws {
        let home = Fixtures.temporaryFolder()
        let saves = home + "/.local/share/retrolua/saves"
        try FileManager.default.createDirectory(atPath: saves, withIntermediateDirectories: true)
        let precious = Data((0..<100).map { UInt8($0) })
        _ = FileManager.default.createFile(atPath: saves + "/" + Fixtures.srm(), contents: precious)

        let result = try Fixtures.cli(["run", "--frames", "5", "--quiet"], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(Fixtures.srm() + ": 100 bytes, but the core's save RAM is 8192 bytes; not loaded"),
            result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/" + Fixtures.srm() + ".rejected"), precious)
        XCTAssertEqual(
            FileManager.default.contents(atPath: saves + "/" + Fixtures.srm())?.first, 1,
            "the game started from blank save RAM")

        // A second bad file never overwrites the first one set aside.
        _ = FileManager.default.createFile(atPath: saves + "/" + Fixtures.srm(), contents: Data([7]))
        XCTAssertEqual(try Fixtures.cli(["run", "--frames", "5", "--quiet"], home: home).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/" + Fixtures.srm() + ".rejected"), precious)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/" + Fixtures.srm() + ".rejected2"), Data([7]))
    }

    // MARK: Keyed by the content

    /// demo.nes with one byte changed in its unused PRG fill (from $FF): another game to the key.
    private func otherGame(at path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM))
        bytes[8000] = 0x00
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    private func bootCount(rom: String, folder: String) throws -> UInt8 {
        let session = try Fixtures.session(rom: rom, folder: folder)
        session.run(5)
        let count = bootCount(session)
        try session.close()
        return count
    }

    func testTwoGamesWithTheSameFileNameKeepTheirOwnSaves() throws {
        let folder = Fixtures.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.nesROM, toPath: folder + "/a/game.nes")
        try otherGame(at: folder + "/b/game.nes")
        XCTAssertEqual(try bootCount(rom: folder + "/a/game.nes", folder: folder), 1)
        XCTAssertEqual(try bootCount(rom: folder + "/a/game.nes", folder: folder), 2)
        XCTAssertEqual(try bootCount(rom: folder + "/b/game.nes", folder: folder), 1, "not the other game's save")
        XCTAssertEqual(try bootCount(rom: folder + "/a/game.nes", folder: folder), 3)
        XCTAssertNotEqual(Fixtures.srm(folder + "/a/game.nes"), Fixtures.srm(folder + "/b/game.nes"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/saves").count, 2)
    }

    func testARenamedGameFindsItsSave() throws {
        let folder = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.nesROM, toPath: folder + "/first.nes")
        XCTAssertEqual(try bootCount(rom: folder + "/first.nes", folder: folder), 1)
        let saved = Fixtures.srm(folder + "/first.nes")
        try FileManager.default.moveItem(atPath: folder + "/first.nes", toPath: folder + "/Renamed (USA).nes")
        XCTAssertEqual(try bootCount(rom: folder + "/Renamed (USA).nes", folder: folder), 2)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/saves"),
            [saved])
    }

    func testTheIdentityLeavesTheINESHeaderOut() throws {
        let folder = Fixtures.temporaryFolder()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM))
        bytes[15] = 0x42  // header padding, as some dumping tools write it
        try bytes.write(to: URL(fileURLWithPath: folder + "/demo.nes"))
        XCTAssertEqual(try Content(path: folder + "/demo.nes").identity, try Content(path: Fixtures.nesROM).identity)
        XCTAssertNotEqual(try Content(path: folder + "/demo.nes").sha1, try Content(path: Fixtures.nesROM).sha1)
        XCTAssertEqual(
            try Content(path: Fixtures.nesROM).identity,
            Hashing.sha1(Data(try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)).dropFirst(16))))
    }

    func testAnOldNameKeyedSaveMovesToTheKeyOnceAndIsKept() throws {
        let folder = Fixtures.temporaryFolder()
        let saves = folder + "/saves"
        try FileManager.default.createDirectory(atPath: saves, withIntermediateDirectories: true)
        var old = Data(repeating: 0, count: 8192)
        old[0] = 5
        try old.write(to: URL(fileURLWithPath: saves + "/demo.srm"))
        var warnings: [String] = []
        let session = try Fixtures.session(folder: folder, warn: { warnings.append($0) })
        session.run(5)
        XCTAssertEqual(bootCount(session), 6, "the old save was loaded")
        try session.close()
        XCTAssertTrue(warnings.contains { $0.contains("now lives in") && $0.contains(Fixtures.srm()) }, "\(warnings)")
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/demo.srm.migrated"), old, "kept as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: saves + "/demo.srm"))
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/" + Fixtures.srm())?.first, 6)

        // Another game of the same name does not take it.
        try FileManager.default.createDirectory(atPath: folder + "/other", withIntermediateDirectories: true)
        try otherGame(at: folder + "/other/demo.nes")
        XCTAssertEqual(try bootCount(rom: folder + "/other/demo.nes", folder: folder), 1)
    }

    func testAnOldSaveNeverOverwritesAKeyedOne() throws {
        let folder = Fixtures.temporaryFolder()
        let saves = folder + "/saves"
        try FileManager.default.createDirectory(atPath: saves, withIntermediateDirectories: true)
        var old = Data(repeating: 0, count: 8192)
        old[0] = 40
        var keyed = Data(repeating: 0, count: 8192)
        keyed[0] = 9
        try old.write(to: URL(fileURLWithPath: saves + "/demo.srm"))
        try keyed.write(to: URL(fileURLWithPath: saves + "/" + Fixtures.srm()))
        XCTAssertEqual(try bootCount(rom: Fixtures.nesROM, folder: folder), 10, "the keyed save wins")
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/demo.srm"), old, "the old file untouched")
    }
}
