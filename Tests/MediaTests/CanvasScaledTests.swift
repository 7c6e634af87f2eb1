import Foundation
import XCTest
@testable import Media

/// Text at a scale and polylines (Canvas+Scaled.swift).
final class CanvasScaledTests: XCTestCase {
    private func alpha(_ canvas: Canvas, _ x: Int, _ y: Int) -> UInt8 { canvas.pixels[(y * canvas.width + x) * 4 + 3] }

    func testScaledTextIsTheFontWithEachPixelASquare() {
        let text = "Ag~%\n09"
        let small = Canvas(width: 40, height: 20), large = Canvas(width: 120, height: 60)
        XCTAssertEqual(
            small.text(x: 0, y: 0, text, color: 0xFFFF_FFFF).width * 3,
            large.text(x: 0, y: 0, text, color: 0xFFFF_FFFF, scale: 3).width)
        for y in 0..<60 {
            for x in 0..<120 { XCTAssertEqual(alpha(large, x, y), alpha(small, x / 3, y / 3), "(\(x), \(y))") }
        }
        XCTAssertEqual(Canvas.textSize(text, scale: 3).height, 48)
        XCTAssertEqual(Canvas.textSize(text, scale: 99).width, Canvas.textSize(text, scale: 16).width, "clamped to 16")
    }

    func testScaledTextClipsAtEveryEdgeAndFarAway() {
        let canvas = Canvas(width: 30, height: 30)
        canvas.text(x: -7, y: -5, "WW", color: 0xFFFF_FFFF, scale: 4)
        canvas.text(x: 25, y: 27, "M", color: 0xFFFF_FFFF, scale: 4)
        canvas.text(x: Int.max - 3, y: Int.min + 1, "far", color: 0xFFFF_FFFF, background: 0xFF00_0000, scale: 16)
        XCTAssertFalse(canvas.isEmpty)
        XCTAssertEqual(alpha(canvas, 26, 28), 255, "the M's top left, near the corner")
    }

    func testPolylineJoinsThePoints() {
        let canvas = Canvas(width: 20, height: 20)
        canvas.polyline([(0, 19), (10, 9), (19, 9)], color: 0xFF40_FF40)
        XCTAssertEqual(alpha(canvas, 0, 19), 255)
        XCTAssertEqual(alpha(canvas, 5, 14), 255)
        XCTAssertEqual(alpha(canvas, 15, 9), 255)
        XCTAssertEqual(alpha(canvas, 15, 10), 0)
        canvas.polyline([(3, 3)], color: 0xFFFF_FFFF)
        XCTAssertEqual(alpha(canvas, 3, 3), 255, "one point is a pixel")
        canvas.polyline([], color: 0xFFFF_FFFF)
    }

    func testASeeThroughPolylineCoversEachPixelOnce() {
        // Half-transparent white over nothing: a pixel drawn once has alpha 128, twice would be 192.
        let canvas = Canvas(width: 20, height: 20)
        canvas.polyline([(0, 0), (10, 0), (10, 10), (10, 10), (0, 10)], color: 0x80FF_FFFF)
        XCTAssertEqual(alpha(canvas, 10, 0), alpha(canvas, 5, 0), "the corner")
        XCTAssertEqual(alpha(canvas, 10, 10), alpha(canvas, 10, 5), "a repeated point")
        XCTAssertEqual(alpha(canvas, 0, 10), alpha(canvas, 5, 10), "the last point is drawn")
        XCTAssertEqual(alpha(canvas, 0, 0), alpha(canvas, 5, 0), "the first point")
        XCTAssertNotEqual(alpha(canvas, 5, 0), 0)
    }
}
