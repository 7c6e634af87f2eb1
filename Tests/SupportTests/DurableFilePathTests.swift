import Foundation
import Support
import XCTest

/// A one-character relative path (the lua-api fuzzer's `cheats.save("a")`) is written, not a trap.
final class DurableFilePathTests: XCTestCase {
    func testOneCharacterRelativePathIsWrittenInTheCurrentFolder() throws {
        let folder = NSTemporaryDirectory() + "retrolua-durable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try DurableFile.write([1, 2, 3], to: "a")
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/a"), Data([1, 2, 3]))
    }
}
