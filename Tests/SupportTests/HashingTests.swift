import Support
import XCTest

final class HashingTests: XCTestCase {
    func testHashesMatchKnownVectors() {
        XCTAssertEqual(Hashing.crc32(Array("123456789".utf8)), "cbf43926")
        XCTAssertEqual(Hashing.sha1(Array("abc".utf8)), "a9993e364706816aba3e25717850c26c9cd0d89d")
    }
}
