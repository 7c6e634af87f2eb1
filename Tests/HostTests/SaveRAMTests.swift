@testable import Emulation
import Foundation
import XCTest
@testable import Host

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
        let file = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/saves/demo.srm"))
        XCTAssertEqual(file.count, 8192)
        XCTAssertEqual(file.first, 3)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/saves"), ["demo.srm"],
            "no temporary files left")
    }

    func testWrongSizeSaveIsNotLoadedAndIsKept() throws {
        let home = Fixtures.temporaryFolder()
        let saves = home + "/.local/share/retrolua/saves"
        try FileManager.default.createDirectory(atPath: saves, withIntermediateDirectories: true)
        let precious = Data((0..<100).map { UInt8($0) })
        _ = FileManager.default.createFile(atPath: saves + "/demo.srm", contents: precious)

        let result = try Fixtures.cli(["run", "--frames", "5", "--quiet"], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("demo.srm: 100 bytes, but the core's save RAM is 8192 bytes; not loaded"),
            result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/demo.srm.rejected"), precious)
        XCTAssertEqual(
            FileManager.default.contents(atPath: saves + "/demo.srm")?.first, 1, "the game started from blank save RAM")

        // A second bad file never overwrites the first one set aside.
        _ = FileManager.default.createFile(atPath: saves + "/demo.srm", contents: Data([7]))
        XCTAssertEqual(try Fixtures.cli(["run", "--frames", "5", "--quiet"], home: home).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/demo.srm.rejected"), precious)
        XCTAssertEqual(FileManager.default.contents(atPath: saves + "/demo.srm.rejected2"), Data([7]))
    }
}
