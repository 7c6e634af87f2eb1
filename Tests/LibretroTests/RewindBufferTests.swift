import XCTest
@testable import Libretro

final class RewindBufferTests: XCTestCase {
    private func state(_ seed: Int, size: Int = 4096) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: ($0 * 7 + seed * ($0 % 13 == 0 ? 1 : 0)) & 0xFF) }
    }

    func testStepsBackThroughEveryStateExactly() {
        let buffer = RewindBuffer(memoryLimit: 1 << 20)
        let states = (0..<50).map { state($0) }
        for s in states { s.withUnsafeBytes { buffer.push($0) } }
        XCTAssertEqual(buffer.count, 50)
        for expected in states.reversed() {
            var got: [UInt8] = []
            XCTAssertTrue(buffer.step { got = Array($0) })
            XCTAssertEqual(got, expected)
        }
        XCTAssertFalse(buffer.step { _ in XCTFail("empty") })
        XCTAssertEqual(buffer.memoryUsed, 0)
    }

    func testSmallChangesCostLittleAndTheBudgetDropsTheOldest() {
        let buffer = RewindBuffer(memoryLimit: 8192)
        for index in 0..<500 { state(index).withUnsafeBytes { buffer.push($0) } }
        XCTAssertLessThanOrEqual(buffer.memoryUsed, 8192)
        XCTAssertGreaterThan(buffer.count, 30, "315 changed bytes of 4096 compress to about 100 bytes a state")
        XCTAssertLessThan(buffer.count, 500)
        var newest: [UInt8] = []
        XCTAssertTrue(buffer.step { newest = Array($0) })
        XCTAssertEqual(newest, state(499))
    }

    func testASizeChangeStartsAFreshHistory() {
        let buffer = RewindBuffer(memoryLimit: 1 << 20)
        state(1).withUnsafeBytes { buffer.push($0) }
        state(2, size: 100).withUnsafeBytes { buffer.push($0) }
        XCTAssertEqual(buffer.count, 1)
    }
}
