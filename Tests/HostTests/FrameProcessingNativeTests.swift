import Emulation
import Libretro
import XCTest

/// The processed step's kernels on the core's own pixels give the bytes the RGB kernels give on the same
/// frames' RGB, in every pixel format (the Python tests see RGB565 and XRGB8888 cores only).
final class FrameProcessingNativeTests: XCTestCase {
    private let pixels = 4099  // not a multiple of any vector width: the loops' tails run too

    func testMaxPoolAndLumaOnNativePixelsEqualTheRGBKernels() {
        var generator = SplitMix64(seed: 41)
        for format in [PixelFormat.rgb565, .xrgb8888, .xrgb1555] {
            let length = pixels * format.bytesPerPixel
            let first = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let second = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var expected = rgb(first, format)
            FrameProcessing.maxPool(&expected, rgb(second, format))
            var pooled = first
            pooled.withUnsafeMutableBytes { into in
                second.withUnsafeBytes {
                    NativeFrameProcessing.maxPool(into.baseAddress!, $0.baseAddress!, pixels: pixels, format: format)
                }
            }
            XCTAssertEqual(rgb(pooled, format), expected, "max-pool of \(format)")
            var luma = [UInt8](repeating: 0, count: pixels), scratch: [UInt8] = []
            pooled.withUnsafeBytes { source in
                luma.withUnsafeMutableBufferPointer {
                    NativeFrameProcessing.grayscale(
                        source.baseAddress!, pixels: pixels, format: format, into: $0.baseAddress!, scratch: &scratch)
                }
            }
            XCTAssertEqual(luma, FrameProcessing.grayscale(expected, pixels: pixels), "luma of \(format)")
        }
    }

    func testTheResizeEqualsItsDefinitionWithSixteenAndThirtyTwoBitSums() {
        // 257 rows take the 16-bit down pass, 258 the 32-bit one; bright frames put the 16-bit sums near their top.
        var generator = SplitMix64(seed: 7)
        for height in [257, 258] {
            let width = 13, toWidth = 5, toHeight = 7
            let frame = (0..<(width * height)).map { _ in UInt8(truncatingIfNeeded: generator.next() | 0xF0) }
            let resized = AreaResize(width: width, height: height, channels: 1, toWidth: toWidth, toHeight: toHeight)
                .apply(frame)
            // Σ overlap_x·overlap_y·value / (width·height), rounded half up.
            var expected = [UInt8](repeating: 0, count: toWidth * toHeight)
            for row in 0..<toHeight {
                for column in 0..<toWidth {
                    var sum = 0
                    for y in 0..<height {
                        let down = overlap(y, row, source: height, destination: toHeight)
                        for x in 0..<width where down > 0 {
                            sum +=
                                down * overlap(x, column, source: width, destination: toWidth)
                                * Int(frame[y * width + x])
                        }
                    }
                    let divisor = width * height
                    expected[row * toWidth + column] = UInt8((2 * sum + divisor) / (2 * divisor))
                }
            }
            XCTAssertEqual(resized, expected, "\(height) rows")
        }
    }

    private func overlap(_ source: Int, _ output: Int, source count: Int, destination: Int) -> Int {
        let start = output * count, end = start + count
        return max(0, min(end, (source + 1) * destination) - max(start, source * destination))
    }

    private func rgb(_ packed: [UInt8], _ format: PixelFormat) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: pixels * 3)
        packed.withUnsafeBytes { source in
            result.withUnsafeMutableBytes {
                VideoFrame.writeRGB(
                    from: source.baseAddress!, width: pixels, height: 1, pitch: packed.count, format: format,
                    into: $0.baseAddress!)
            }
        }
        return result
    }
}
