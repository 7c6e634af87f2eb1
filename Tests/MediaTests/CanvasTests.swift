import Foundation
import XCTest
@testable import Media

final class CanvasTests: XCTestCase {
    // MARK: helpers

    /// The pixel at (x, y) as 0xAARRGGBB.
    private func argb(_ canvas: Canvas, _ x: Int, _ y: Int) -> UInt32 {
        let i = (y * canvas.width + x) * 4
        let p = canvas.pixels
        return UInt32(p[i + 3]) << 24 | UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2])
    }

    private func rgba(_ canvas: Canvas, _ x: Int, _ y: Int) -> [Int] {
        let i = (y * canvas.width + x) * 4
        return canvas.pixels[i..<i + 4].map(Int.init)
    }

    /// Coordinates of every pixel with non-zero alpha.
    private func inked(_ canvas: Canvas) -> Set<[Int]> {
        var set = Set<[Int]>()
        let p = canvas.pixels
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where p[(y * canvas.width + x) * 4 + 3] != 0 {
                set.insert([x, y])
            }
        }
        return set
    }

    private func assertClose(
        _ actual: [Int], _ expected: [Int], tolerance: Int = 1,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(actual.count, expected.count, file: file, line: line)
        for (a, e) in zip(actual, expected) where abs(a - e) > tolerance {
            XCTFail("\(actual) is not within \(tolerance) of \(expected)", file: file, line: line)
            return
        }
    }

    // MARK: blending

    func testHalfRedOverOpaqueBlue() {
        let canvas = Canvas(width: 4, height: 4)
        canvas.pixel(x: 1, y: 1, color: 0xFF00_00FF)
        canvas.pixel(x: 1, y: 1, color: 0x80FF_0000)
        assertClose(rgba(canvas, 1, 1), [128, 0, 127, 255])

        // The same through compositing a transparent canvas over an opaque frame.
        let overlay = Canvas(width: 4, height: 4)
        overlay.pixel(x: 2, y: 3, color: 0x80FF_0000)
        var frame = [UInt8](repeating: 0, count: 4 * 4 * 4)
        for i in stride(from: 0, to: frame.count, by: 4) { frame[i + 2] = 255; frame[i + 3] = 255 }
        overlay.composite(onto: &frame, width: 4, height: 4)
        let i = (3 * 4 + 2) * 4
        assertClose(frame[i..<i + 4].map(Int.init), [128, 0, 127, 255])
        XCTAssertEqual(Array(frame[0..<4]), [0, 0, 255, 255], "untouched pixels stay as they were")
    }

    func testStraightAlphaOnTransparent() {
        let canvas = Canvas(width: 2, height: 2)
        canvas.pixel(x: 0, y: 0, color: 0x80FF_0000)
        XCTAssertEqual(rgba(canvas, 0, 0), [255, 0, 0, 128], "straight alpha: colour is not darkened")
        canvas.pixel(x: 0, y: 0, color: 0x80FF_0000)
        assertClose(rgba(canvas, 0, 0), [255, 0, 0, 192])
        // General case: 50% blue over 75% red. outA = .502 + .753·.498 ≈ .877;
        // red = 255·.753·.498 / .877 ≈ 109, blue = 255·.502 / .877 ≈ 146.
        canvas.pixel(x: 0, y: 0, color: 0x8000_00FF)
        assertClose(rgba(canvas, 0, 0), [109, 0, 146, 224])

        // Compositing the canvas over an opaque frame equals drawing the same things onto it directly.
        let direct = Canvas(width: 2, height: 2)
        direct.pixel(x: 0, y: 0, color: 0xFF20_6040)
        direct.pixel(x: 0, y: 0, color: 0x80FF_0000)
        direct.pixel(x: 0, y: 0, color: 0x80FF_0000)
        direct.pixel(x: 0, y: 0, color: 0x8000_00FF)
        var frame: [UInt8] = [0x20, 0x60, 0x40, 255] + [UInt8](repeating: 0, count: 12)
        canvas.composite(onto: &frame, width: 2, height: 2)
        assertClose(frame[0..<4].map(Int.init), rgba(direct, 0, 0), tolerance: 2)
        XCTAssertEqual(frame[3], 255, "an opaque frame stays opaque")
    }

    func testOpaqueAndTransparentColours() {
        let canvas = Canvas(width: 2, height: 2)
        canvas.pixel(x: 1, y: 0, color: 0x0012_3456)
        XCTAssertTrue(canvas.isEmpty, "alpha 0 draws nothing")
        XCTAssertEqual(argb(canvas, 1, 0), 0)
        canvas.pixel(x: 1, y: 0, color: 0x8011_2233)
        canvas.pixel(x: 1, y: 0, color: 0xFF12_3456)
        XCTAssertEqual(argb(canvas, 1, 0), 0xFF12_3456, "opaque replaces")
    }

    // MARK: clipping

    func testClippingDrawsTheVisiblePart() {
        let canvas = Canvas(width: 16, height: 12)
        canvas.rect(x: -5, y: -5, width: 10, height: 10, color: 0, fill: 0xFF00_FF00)
        XCTAssertEqual(argb(canvas, 0, 0), 0xFF00_FF00)
        XCTAssertEqual(argb(canvas, 4, 4), 0xFF00_FF00)
        XCTAssertEqual(argb(canvas, 5, 4), 0)
        XCTAssertEqual(argb(canvas, 4, 5), 0)

        canvas.clear()
        canvas.rect(x: -1_000_000_000, y: 2, width: 2_000_000_000, height: 1, color: 0xFFFF_FFFF)
        XCTAssertEqual(Set((0..<16).map { argb(canvas, $0, 2) }), [0xFFFF_FFFF])
        XCTAssertEqual(inked(canvas).count, 16)

        canvas.clear()
        canvas.line(x1: -1_000_000_000, y1: 5, x2: 1_000_000_000, y2: 5, color: 0xFFFF_0000)
        XCTAssertEqual(inked(canvas), Set((0..<16).map { [$0, 5] }))

        canvas.clear()
        canvas.line(x1: 3, y1: -1_000_000_000, x2: 3, y2: 1_000_000_000, color: 0xFFFF_0000)
        XCTAssertEqual(inked(canvas), Set((0..<12).map { [3, $0] }))

        canvas.clear()
        canvas.line(x1: Int.min, y1: Int.min, x2: Int.max, y2: Int.max, color: 0xFFFF_0000)
        XCTAssertEqual(inked(canvas), Set((0..<12).map { [$0, $0] }), "exactly the y = x diagonal")

        // Far endpoints give the same pixels as the part of the line that is on the canvas.
        canvas.clear()
        canvas.line(x1: -3_000_000_000, y1: -1_000_000_000, x2: 3_000_000_000, y2: 1_000_000_000, color: 0xFFFF_0000)
        let far = inked(canvas)
        XCTAssertEqual(far, Set((0..<16).map { [$0, Int((Double($0) / 3).rounded())] }), "y = x/3, nearest pixels")
        XCTAssertEqual(Set(far.map { $0[0] }).count, 16, "one pixel per column")

        canvas.clear()
        canvas.line(x1: -100, y1: -100, x2: -50, y2: 200, color: 0xFFFF_0000)  // entirely to the left
        XCTAssertTrue(canvas.isEmpty)

        // Nothing of these is visible, or they are absurdly large: no trap, no endless loop.
        let extremes = [Int.min, Int.min / 2, -1_000_000_000, -1, 0, 7, 1_000_000_000, Int.max / 2, Int.max]
        for a in extremes {
            for b in extremes {
                canvas.pixel(x: a, y: b, color: 0xFFFF_FFFF)
                canvas.rect(x: a, y: b, width: abs(b / 2), height: abs(a / 2), color: 0xFFFF_FFFF, fill: 0x80FF_FFFF)
                canvas.rect(x: a, y: b, width: Int.max, height: Int.max, color: 0xFFFF_FFFF)
                canvas.line(x1: a, y1: b, x2: b, y2: a, color: 0xFFFF_FFFF)
                canvas.line(x1: a, y1: a, x2: b, y2: b, color: 0x80FF_FFFF)
                canvas.circle(cx: a, cy: b, radius: abs(a / 2), color: 0xFFFF_FFFF, fill: 0x8000_0000)
                canvas.circle(cx: 8, cy: 6, radius: abs(b / 2), color: 0xFFFF_FFFF)
                canvas.circle(cx: a, cy: b, radius: Int.max, color: 0xFFFF_FFFF, fill: 0x10FF_FFFF)
                canvas.text(x: a, y: b, "Hello\nworld ~ é", color: 0xFFFF_FFFF, background: 0x8000_0000)
                canvas.image(x: a, y: b, rgba: [UInt8](repeating: 255, count: 64), width: 4, height: 4)
            }
        }
    }

    func testClippedTextAndImage() {
        let canvas = Canvas(width: 8, height: 8)
        canvas.text(x: -3, y: -2, "W", color: 0xFFFF_FFFF)
        // 'W' is "#...#" on its top rows: with x = -3 only columns 3 and 4 remain; row 0 is cut off.
        XCTAssertNotEqual(argb(canvas, 1, 0), 0, "column 4 of glyph row 2")
        XCTAssertEqual(argb(canvas, 0, 0), 0, "column 3 of glyph row 2")
        XCTAssertFalse(canvas.isEmpty)
    }

    // MARK: shapes

    func testRectOutlineAndFill() {
        let canvas = Canvas(width: 10, height: 10)
        canvas.rect(x: 1, y: 2, width: 5, height: 4, color: 0xFFFF_0000, fill: 0xFF00_FF00)
        for y in 0..<10 {
            for x in 0..<10 {
                let inside = (1...5).contains(x) && (2...5).contains(y)
                let border = inside && (x == 1 || x == 5 || y == 2 || y == 5)
                let expected: UInt32 = border ? 0xFFFF_0000 : inside ? 0xFF00_FF00 : 0
                XCTAssertEqual(argb(canvas, x, y), expected, "(\(x), \(y))")
            }
        }

        canvas.clear()
        canvas.rect(x: 1, y: 2, width: 5, height: 4, color: 0xFFFF_0000)
        XCTAssertEqual(inked(canvas).count, 2 * 5 + 2 * 2, "outline only")
        XCTAssertEqual(argb(canvas, 3, 3), 0)

        // A translucent outline blends each pixel exactly once (corners included).
        canvas.clear()
        canvas.rect(x: 0, y: 0, width: 6, height: 3, color: 0x80FF_0000)
        XCTAssertEqual(Set(inked(canvas).map { argb(canvas, $0[0], $0[1]) }), [0x80FF_0000])
        XCTAssertEqual(inked(canvas).count, 6 + 6 + 2)

        // A fill with an invisible outline covers the whole rectangle.
        canvas.clear()
        canvas.rect(x: 2, y: 2, width: 3, height: 3, color: 0, fill: 0xFF00_00FF)
        XCTAssertEqual(inked(canvas).count, 9)

        canvas.clear()
        canvas.rect(x: 4, y: 4, width: 1, height: 1, color: 0x80FF_0000)
        XCTAssertEqual(inked(canvas), [[4, 4]])
        XCTAssertEqual(argb(canvas, 4, 4), 0x80FF_0000)

        canvas.clear()
        canvas.rect(x: 4, y: 4, width: 0, height: 5, color: 0xFFFF_FFFF, fill: 0xFFFF_FFFF)
        canvas.rect(x: 4, y: 4, width: 5, height: -1, color: 0xFFFF_FFFF, fill: 0xFFFF_FFFF)
        XCTAssertTrue(canvas.isEmpty)
    }

    func testCircleIsSymmetricAndRound() {
        for radius in 0...14 {
            let canvas = Canvas(width: 31, height: 31)
            canvas.circle(cx: 15, cy: 15, radius: radius, color: 0x80FF_FFFF)
            let ring = Set(inked(canvas).map { [$0[0] - 15, $0[1] - 15] })
            XCTAssertEqual(ring, Set(ring.map { [-$0[0], $0[1]] }), "mirror x, r=\(radius)")
            XCTAssertEqual(ring, Set(ring.map { [$0[0], -$0[1]] }), "mirror y, r=\(radius)")
            XCTAssertEqual(ring, Set(ring.map { [$0[1], $0[0]] }), "diagonal, r=\(radius)")
            XCTAssertTrue(ring.contains([radius, 0]) && ring.contains([0, -radius]), "r=\(radius)")
            for p in ring {
                let d = Double(p[0] * p[0] + p[1] * p[1]).squareRoot()
                XCTAssertLessThanOrEqual(abs(d - Double(radius)), 1.0, "\(p) r=\(radius)")
            }
            // Each pixel is blended once, and the ring is connected (every pixel has two 8-neighbours).
            XCTAssertEqual(Set(ring.map { argb(canvas, $0[0] + 15, $0[1] + 15) }), [0x80FF_FFFF])
            if radius >= 2 {
                for p in ring {
                    let neighbours = ring.filter { q in q != p && abs(q[0] - p[0]) <= 1 && abs(q[1] - p[1]) <= 1 }
                    XCTAssertGreaterThanOrEqual(neighbours.count, 2, "\(p) r=\(radius)")
                }
                XCTAssertFalse(ring.contains([0, 0]))
            }
        }
        let one = Canvas(width: 5, height: 5)
        one.circle(cx: 2, cy: 2, radius: 0, color: 0xFFFF_FFFF)
        XCTAssertEqual(inked(one), [[2, 2]])
        one.clear()
        one.circle(cx: 2, cy: 2, radius: -1, color: 0xFFFF_FFFF, fill: 0xFFFF_FFFF)
        XCTAssertTrue(one.isEmpty)
    }

    func testFilledCircle() {
        let canvas = Canvas(width: 21, height: 21)
        canvas.circle(cx: 10, cy: 10, radius: 6, color: 0xFFFF_0000, fill: 0xFF00_00FF)
        XCTAssertEqual(argb(canvas, 10, 10), 0xFF00_00FF)
        XCTAssertEqual(argb(canvas, 16, 10), 0xFFFF_0000)
        XCTAssertEqual(argb(canvas, 10, 4), 0xFFFF_0000)
        XCTAssertEqual(argb(canvas, 17, 10), 0)
        XCTAssertEqual(argb(canvas, 15, 15), 0, "outside the disc at the diagonal")
        // Filled disc with no outline is exactly the inside of the outlined one plus its outline.
        let plain = Canvas(width: 21, height: 21)
        plain.circle(cx: 10, cy: 10, radius: 6, color: 0, fill: 0xFF00_00FF)
        XCTAssertEqual(inked(plain), inked(canvas))
    }

    func testLineEndpointsInclusive() {
        let canvas = Canvas(width: 12, height: 12)
        for (a, b) in [
            ([2, 3], [9, 7]), ([9, 7], [2, 3]), ([5, 1], [6, 10]), ([0, 11], [11, 0]), ([4, 4], [4, 4]),
            ([1, 6], [10, 6]), ([7, 9], [7, 2]),
        ] {
            canvas.clear()
            canvas.line(x1: a[0], y1: a[1], x2: b[0], y2: b[1], color: 0x80FF_FFFF)
            let points = inked(canvas)
            XCTAssertTrue(points.contains(a) && points.contains(b), "\(a)–\(b)")
            XCTAssertEqual(points.count, max(abs(b[0] - a[0]), abs(b[1] - a[1])) + 1, "\(a)–\(b)")
            XCTAssertEqual(Set(points.map { argb(canvas, $0[0], $0[1]) }), [0x80FF_FFFF], "each pixel once")
        }
        // A clipped line keeps its slope: (-4,-2)–(11,5.5) leaves the canvas through the right edge.
        canvas.clear()
        canvas.line(x1: -20, y1: -10, x2: 40, y2: 20, color: 0xFFFF_FFFF)
        XCTAssertTrue(inked(canvas).allSatisfy { abs($0[1] - $0[0] / 2) <= 1 })
        XCTAssertTrue(inked(canvas).contains([0, 0]))
    }

    // MARK: text

    func testEveryPrintableCharacterHasInk() {
        for code in UInt8(33)...126 {
            let canvas = Canvas(width: 8, height: 8)
            let size = canvas.text(x: 0, y: 0, String(UnicodeScalar(code)), color: 0xFFFF_FFFF)
            XCTAssertEqual(size.width, 6)
            XCTAssertEqual(size.height, 8)
            XCTAssertFalse(inked(canvas).isEmpty, "character \(code) draws nothing")
            XCTAssertTrue(inked(canvas).allSatisfy { $0[0] < 5 && $0[1] < 8 }, "character \(code) leaves its glyph box")
            if !"gjpqy".unicodeScalars.contains(UnicodeScalar(code)) {
                XCTAssertTrue(inked(canvas).allSatisfy { $0[1] < 7 }, "only descenders use the eighth row: \(code)")
            }
        }
        let space = Canvas(width: 8, height: 8)
        space.text(x: 0, y: 0, " ", color: 0xFFFF_FFFF)
        XCTAssertTrue(space.isEmpty)
        XCTAssertFalse(BitmapFont.glyph("~").isBlank)
        XCTAssertTrue(BitmapFont.glyph(" ").isBlank)
    }

    func testAlphanumericGlyphsAreDistinct() {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var seen: [[UInt32]: Character] = [:]
        for character in characters {
            let canvas = Canvas(width: 6, height: 8)
            canvas.text(x: 0, y: 0, String(character), color: 0xFFFF_FFFF)
            let bitmap = (0..<8).flatMap { y in (0..<6).map { x in argb(canvas, x, y) } }
            if let other = seen[bitmap] { XCTFail("'\(character)' draws the same as '\(other)'") }
            seen[bitmap] = character
        }
        XCTAssertEqual(seen.count, characters.count)
        XCTAssertEqual(Set(characters.map { BitmapFont.glyph($0.unicodeScalars.first!) }).count, characters.count)
    }

    func testUnknownCharactersDrawABox() {
        XCTAssertEqual(BitmapFont.glyph("é"), BitmapFont.unknown)
        XCTAssertEqual(BitmapFont.glyph(Unicode.Scalar(7)), BitmapFont.unknown)
        let canvas = Canvas(width: 12, height: 8)
        let size = canvas.text(x: 0, y: 0, "é→", color: 0xFFFF_FFFF)
        XCTAssertEqual(size.width, 12)
        XCTAssertEqual(inked(canvas).count, 2 * 35)
    }

    func testTextSize() {
        XCTAssertTrue(Canvas.textSize("ab\ncde") == (18, 16))
        XCTAssertTrue(Canvas.textSize("") == (0, 0))
        XCTAssertTrue(Canvas.textSize("x") == (6, 8))
        XCTAssertTrue(Canvas.textSize("abc\n") == (18, 16))
        XCTAssertTrue(Canvas.textSize("ab\r\nc") == (12, 16))
        XCTAssertEqual(BitmapFont.cellWidth, 6)
        XCTAssertEqual(BitmapFont.cellHeight, 8)
    }

    func testTextLinesAndBackground() {
        let canvas = Canvas(width: 30, height: 20)
        let size = canvas.text(x: 1, y: 1, "ab\ncde", color: 0xFFFF_FFFF, background: 0xFF00_0000)
        XCTAssertTrue(size == (18, 16))
        // The background covers exactly the bounding box, the text lies inside it.
        XCTAssertEqual(inked(canvas), Set((1..<19).flatMap { x in (1..<17).map { y in [x, y] } }))
        // 'c' on the second line: its top row is at y = 1 + 8 + 2 (x-height), left column at 1 + 6*0.
        XCTAssertEqual(argb(canvas, 2, 11), 0xFFFF_FFFF)
        XCTAssertEqual(argb(canvas, 1, 11), 0xFF00_0000)
    }

    // MARK: images

    func testImageBlitWithAlpha() {
        let canvas = Canvas(width: 4, height: 4)
        canvas.rect(x: 0, y: 0, width: 4, height: 4, color: 0xFF00_00FF, fill: 0xFF00_00FF)
        let image: [UInt8] = [
            255, 0, 0, 255, 255, 0, 0, 128,
            255, 0, 0, 0, 0, 255, 0, 255,
        ]
        canvas.image(x: 1, y: 1, rgba: image, width: 2, height: 2)
        XCTAssertEqual(argb(canvas, 1, 1), 0xFFFF_0000)
        assertClose(rgba(canvas, 2, 1), [128, 0, 127, 255])
        XCTAssertEqual(argb(canvas, 1, 2), 0xFF00_00FF, "alpha 0 leaves the canvas")
        XCTAssertEqual(argb(canvas, 2, 2), 0xFF00_FF00)
        XCTAssertEqual(argb(canvas, 0, 0), 0xFF00_00FF)

        // Clipped at the top left: only the bottom-right image pixel lands, at (0, 0).
        let small = Canvas(width: 3, height: 3)
        small.image(x: -1, y: -1, rgba: image, width: 2, height: 2)
        XCTAssertEqual(inked(small), [[0, 0]])
        XCTAssertEqual(argb(small, 0, 0), 0xFF00_FF00)

        // A short array draws only its complete rows; a fully transparent image marks nothing.
        small.clear()
        small.image(x: 0, y: 0, rgba: Array(image[0..<8]), width: 2, height: 2)
        XCTAssertEqual(inked(small), [[0, 0], [1, 0]])
        small.clear()
        small.image(x: 0, y: 0, rgba: [UInt8](repeating: 0, count: 16), width: 2, height: 2)
        XCTAssertTrue(small.isEmpty)
    }

    // MARK: state and compositing

    func testEmptyCanvasCompositeLeavesFrameIdentical() {
        var generator = SystemRandomNumberGenerator()
        var frame = (0..<(256 * 240 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let original = frame
        let canvas = Canvas(width: 256, height: 240)
        canvas.composite(onto: &frame, width: 256, height: 240)
        XCTAssertEqual(frame, original)

        canvas.text(x: 10, y: 10, "gone", color: 0xFFFF_FFFF)
        canvas.clear()
        canvas.composite(onto: &frame, width: 256, height: 240)
        XCTAssertEqual(frame, original)

        // Drawn but fully transparent pixels leave the frame alone too.
        canvas.pixel(x: 0, y: 0, color: 0xFFFF_FFFF)
        canvas.composite(onto: &frame, width: 256, height: 240)
        XCTAssertEqual(Array(frame[4...]), Array(original[4...]))
        XCTAssertEqual(Array(frame[0..<4]), [255, 255, 255, 255])
    }

    func testIsEmptyTracking() {
        let canvas = Canvas(width: 8, height: 8)
        XCTAssertTrue(canvas.isEmpty)
        XCTAssertEqual(canvas.pixels, [UInt8](repeating: 0, count: 256))
        canvas.pixel(x: 8, y: 0, color: 0xFFFF_FFFF)
        canvas.line(x1: -5, y1: -1, x2: 20, y2: -1, color: 0xFFFF_FFFF)
        canvas.text(x: 0, y: 9, "hidden", color: 0xFFFF_FFFF)
        canvas.rect(x: 1, y: 1, width: 3, height: 3, color: 0x00FF_FFFF, fill: 0x00FF_FFFF)
        XCTAssertTrue(canvas.isEmpty, "nothing visible was drawn")
        canvas.circle(cx: 4, cy: 4, radius: 2, color: 0x01FF_FFFF)
        XCTAssertFalse(canvas.isEmpty)
        canvas.clear()
        XCTAssertTrue(canvas.isEmpty)
        XCTAssertEqual(canvas.pixels, [UInt8](repeating: 0, count: 256))
        canvas.pixels[5] = 1
        XCTAssertFalse(canvas.isEmpty, "writing the pixels directly counts as drawing")
        canvas.clear()
        XCTAssertEqual(canvas.pixels, [UInt8](repeating: 0, count: 256), "clear covers direct writes")
        canvas.pixels = [1, 2, 3]
        XCTAssertEqual(canvas.pixels.count, 256, "a wrong-sized array is padded")
        canvas.resize(width: 3, height: 2)
        XCTAssertTrue(canvas.isEmpty)
        XCTAssertEqual(canvas.width, 3)
        XCTAssertEqual(canvas.height, 2)
        XCTAssertEqual(canvas.pixels, [UInt8](repeating: 0, count: 24))
        canvas.resize(width: -4, height: 2)
        XCTAssertEqual(canvas.pixels.count, 0)
        canvas.text(x: 0, y: 0, "x", color: 0xFFFF_FFFF)
        XCTAssertTrue(canvas.isEmpty)
    }

    func testClearResetsEveryDrawnPixel() {
        let canvas = Canvas(width: 40, height: 30)
        canvas.pixel(x: 39, y: 29, color: 0xFFFF_FFFF)
        canvas.text(x: 3, y: 2, "abc", color: 0xFFFF_FFFF)
        canvas.circle(cx: 20, cy: 15, radius: 5, color: 0xFFFF_FFFF, fill: 0x80FF_0000)
        canvas.line(x1: 0, y1: 29, x2: 5, y2: 0, color: 0xFFFF_FFFF)
        canvas.clear()
        XCTAssertEqual(canvas.pixels, [UInt8](repeating: 0, count: 40 * 30 * 4))
    }
    func testTwoTextLinesAndCompositeAreCheap() {
        let canvas = Canvas(width: 256, height: 240)
        var frame = [UInt8](repeating: 255, count: 256 * 240 * 4)
        let rounds = 300
        let start = Date()
        for i in 0..<rounds {
            canvas.clear()
            canvas.text(x: 2, y: 2, "frame \(i)  lag 0  x=123 y=45", color: 0xFFFF_FFFF, background: 0x8000_0000)
            canvas.text(x: 2, y: 226, "HP 100/100  ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789", color: 0xFFFF_FF00)
            canvas.composite(onto: &frame, width: 256, height: 240)
        }
        let perRound = Date().timeIntervalSince(start) / Double(rounds)
        // Generous even for a debug build; a release build is well under 0.1 ms.
        XCTAssertLessThan(perRound, 0.005, "\(perRound * 1000) ms per frame")

        // A full-screen translucent layer composites in reasonable time too.
        canvas.clear()
        canvas.rect(x: 0, y: 0, width: 256, height: 240, color: 0x8000_0000, fill: 0x4000_0000)
        let fullStart = Date()
        for _ in 0..<20 { canvas.composite(onto: &frame, width: 256, height: 240) }
        XCTAssertLessThan(Date().timeIntervalSince(fullStart) / 20, 0.05)
    }
}
