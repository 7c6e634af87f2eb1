import XCTest
@testable import Libretro

final class PixelFormatTests: XCTestCase {
    private func convert(_ format: PixelFormat, _ words: [UInt32]) -> [UInt8] {
        var bytes: [UInt8] = []
        for word in words {
            for index in 0..<format.bytesPerPixel { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * index))) }
        }
        return VideoFrame(width: words.count, height: 1, format: format, pixels: bytes).rgba()
    }

    func testXRGB8888KeepsChannelsAndIgnoresTheTopByte() {
        XCTAssertEqual(convert(.xrgb8888, [0xFF12_3456, 0x00FF_0000]), [0x12, 0x34, 0x56, 255, 255, 0, 0, 255])
    }

    func testRGB565ExpandsToFullRange() {
        // Pure red, pure green, pure blue, white, black, and a mid grey (16, 32, 16).
        let rgba = convert(.rgb565, [0xF800, 0x07E0, 0x001F, 0xFFFF, 0x0000, 0x8410])
        XCTAssertEqual(
            rgba,
            [
                255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                255, 255, 255, 255, 0, 0, 0, 255, 132, 130, 132, 255,
            ])
    }

    func testXRGB1555ExpandsToFullRangeAndIgnoresTheTopBit() {
        let rgba = convert(.xrgb1555, [0x7C00, 0x03E0, 0x001F, 0xFFFF, 0x4210])
        XCTAssertEqual(
            rgba,
            [
                255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                255, 255, 255, 255, 132, 132, 132, 255,
            ])
    }

    func testCopyingDropsPitchPadding() {
        // 2x2 XRGB8888 frame in rows 12 bytes apart (4 bytes of padding each).
        let source: [UInt8] = [
            1, 0, 0, 0, 2, 0, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE,
            3, 0, 0, 0, 4, 0, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE,
        ]
        let frame = source.withUnsafeBytes {
            VideoFrame(copying: $0.baseAddress!, width: 2, height: 2, pitch: 12, format: .xrgb8888)
        }
        XCTAssertEqual(frame.pixels, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])
        XCTAssertEqual(frame.rgb(x: 1, y: 1), 0x000004)
    }
    /// The binary door's packed RGB (SIMD in C) equals the RGBA path's colours for every RGB565 value
    /// and for XRGB8888 pixels, at widths that leave a scalar tail, with row padding skipped.
    func testPackedRGBEqualsRGBAForEveryPixelValue() {
        for (format, width, height) in [(PixelFormat.rgb565, 4099, 16), (.xrgb8888, 1027, 3), (.xrgb1555, 13, 2)] {
            let pitch = width * format.bytesPerPixel + 6
            var source = [UInt8](repeating: 0xEE, count: pitch * height)
            var state: UInt32 = 12345
            for row in 0..<height {
                for column in 0..<(width * format.bytesPerPixel) {
                    state = state &* 1_103_515_245 &+ 12345
                    let value = row * width + column / 2
                    source[row * pitch + column] =
                        format == .rgb565
                        ? UInt8(truncatingIfNeeded: column % 2 == 0 ? value : value >> 8)
                        : UInt8(truncatingIfNeeded: state >> 16)
                }
            }
            var packed = [UInt8](repeating: 0, count: width * height * 3)
            let frame = source.withUnsafeBytes { raw in
                packed.withUnsafeMutableBytes {
                    VideoFrame.writeRGB(
                        from: raw.baseAddress!, width: width, height: height, pitch: pitch, format: format,
                        into: $0.baseAddress!)
                }
                return VideoFrame(copying: raw.baseAddress!, width: width, height: height, pitch: pitch, format: format)
            }
            XCTAssertEqual(packed, VideoFrame.rgb(fromRGBA: frame.rgba()), "\(format)")
        }
    }
}
