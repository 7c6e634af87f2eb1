import XCTest

@testable import Support

/// The greenzone's bookkeeping without a core: spacing by distance, invalidation, the memory cap.
final class GreenzoneTests: XCTestCase {
    private func state(_ frame: Int, size: Int = 4096) -> [UInt8] {
        // Mostly zeros with the frame number in it: compresses like a real state, differs per frame.
        var bytes = [UInt8](repeating: 0, count: size)
        withUnsafeBytes(of: UInt64(frame)) { raw in for (index, byte) in raw.enumerated() { bytes[index * 97] = byte } }
        return bytes
    }

    private func fill(_ zone: Greenzone, through last: Int) {
        for frame in 0...last {
            state(frame).withUnsafeBytes { zone.insert(frame: frame, frameCount: frame + 10, lagCount: 0, state: $0) }
        }
    }

    func testEveryStateNearTheCurrentFrameFewerFarAwayAndTheNearestIsFound() {
        let zone = Greenzone()
        fill(zone, through: 3000)
        zone.thin(around: 3000)
        let frames = Set(zone.frames)
        XCTAssertTrue((2936...3000).allSatisfy(frames.contains), "every frame within 64")
        XCTAssertTrue(stride(from: 1976, to: 2936, by: 2).allSatisfy(frames.contains), "every 2nd within 1024")
        XCTAssertFalse(frames.contains(1977))
        XCTAssertTrue(stride(from: 0, to: 1976, by: 8).allSatisfy(frames.contains), "every 8th beyond")
        XCTAssertFalse(frames.contains(1001))
        let found = zone.nearest(atOrBefore: 1005) { entry, bytes in (entry.frame, entry.frameCount, Array(bytes)) }
        XCTAssertEqual(found?.0, 1000)
        XCTAssertEqual(found?.1, 1010)
        XCTAssertEqual(found?.2, state(1000), "a state comes back byte for byte")
        zone.invalidate(after: 500)
        XCTAssertEqual(zone.lastFrame, 496)
        XCTAssertNil(Greenzone().nearest(atOrBefore: 10) { entry, _ in entry.frame })
    }

    func testOverTheMemoryCapTheFarStatesThinThenTheOldestGoButFrameZeroStays() {
        var settings = Greenzone.Settings()
        settings.memoryLimit = 40_000
        let zone = Greenzone(settings: settings)
        fill(zone, through: 5000)
        XCTAssertLessThanOrEqual(zone.memoryUsed, 40_000)
        XCTAssertGreaterThan(zone.farStep, 8, "the far spacing doubled")
        XCTAssertTrue(zone.contains(0))
        XCTAssertTrue(zone.contains(5000), "the newest is kept")
        settings.memoryLimit = 1
        zone.update(settings)
        XCTAssertLessThanOrEqual(zone.count, 1)
    }
}
