import Foundation
import Support
import XCTest

final class DurableFileTests: XCTestCase {
    func testWriteReplacesAtomicallyAndLeavesNoTemporaryFiles() throws {
        let folder = NSTemporaryDirectory() + "durable-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/sub/file.bin"
        try DurableFile.write([1, 2, 3], to: path)
        try DurableFile.write([4, 5], to: path)
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data([4, 5]))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/sub"), ["file.bin"])
    }

    func testFailedWriteKeepsTheOldFile() throws {
        let folder = NSTemporaryDirectory() + "durable-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try DurableFile.write([9, 9], to: folder + "/keep.bin")
        // A folder squatting on the temporary file's name makes the write fail, even for root.
        try FileManager.default.createDirectory(
            atPath: folder + "/keep.bin.tmp\(getpid())", withIntermediateDirectories: true)
        XCTAssertThrowsError(try DurableFile.write([1], to: folder + "/keep.bin"))
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/keep.bin"), Data([9, 9]))
    }
}
