import Support
import XCTest

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

    /// A 4 KB state in which a frame changes a few counters, as a game's RAM does.
    private func frameState(_ frame: Int) -> [UInt8] {
        var bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for (slot, offset) in [16, 300, 1200, 3000].enumerated() {
            bytes[offset] = UInt8(truncatingIfNeeded: frame * (slot + 1))
        }
        return bytes
    }

    func testSmallChangesCostLittleAndTheBudgetDropsTheOldest() {
        let buffer = RewindBuffer(memoryLimit: 8192)
        for frame in 0..<1000 { frameState(frame).withUnsafeBytes { buffer.push($0) } }
        XCTAssertLessThanOrEqual(buffer.memoryUsed, 8192)
        XCTAssertGreaterThan(buffer.count, 50, "four changed bytes of 4096 compress to a few dozen bytes")
        XCTAssertLessThan(buffer.count, 1000, "the oldest were dropped")
        var newest: [UInt8] = []
        XCTAssertTrue(buffer.step { newest = Array($0) })
        XCTAssertEqual(newest, frameState(999))
        XCTAssertTrue(buffer.step { newest = Array($0) })
        XCTAssertEqual(newest, frameState(998))
    }

    func testASizeChangeStartsAFreshHistory() {
        let buffer = RewindBuffer(memoryLimit: 1 << 20)
        state(1).withUnsafeBytes { buffer.push($0) }
        state(2, size: 100).withUnsafeBytes { buffer.push($0) }
        XCTAssertEqual(buffer.count, 1)
    }
}
