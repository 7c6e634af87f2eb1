import Media
import XCTest

/// The letterbox and integer-scale arithmetic, without a window.
final class VideoLayoutTests: XCTestCase {
    private func rect(_ w: Int, _ h: Int, aspect: Double, _ ow: Int, _ oh: Int, integer: Bool = false) -> VideoRect {
        VideoLayout.destinationRect(
            frameWidth: w, frameHeight: h, aspect: aspect, outputWidth: ow, outputHeight: oh,
            integerScale: integer)
    }

    func testAspectFitLetterboxesAndPillarboxes() {
        XCTAssertEqual(rect(256, 224, aspect: 256.0 / 224, 256, 224), VideoRect(x: 0, y: 0, width: 256, height: 224))
        // 4:3 in a wide window: full height, bars left and right.
        XCTAssertEqual(rect(256, 224, aspect: 4.0 / 3, 1920, 1080), VideoRect(x: 240, y: 0, width: 1440, height: 1080))
        // 4:3 in a tall window: full width, bars top and bottom.
        XCTAssertEqual(rect(256, 240, aspect: 4.0 / 3, 800, 1000), VideoRect(x: 0, y: 200, width: 800, height: 600))
        // No aspect given: square pixels.
        XCTAssertEqual(rect(160, 144, aspect: 0, 320, 320), VideoRect(x: 0, y: 16, width: 320, height: 288))
        XCTAssertEqual(rect(160, 144, aspect: .nan, 480, 432), VideoRect(x: 0, y: 0, width: 480, height: 432))
    }

    func testIntegerScaleUsesWholeMultiplesOfTheAspectCorrectBase() {
        // Square pixels: 256x224 ×4 = 1024x896 fits 1280x1024.
        XCTAssertEqual(
            rect(256, 224, aspect: 0, 1280, 1024, integer: true), VideoRect(x: 128, y: 64, width: 1024, height: 896))
        // 4:3: base 299x224 (RetroArch's rule: keep the rows, round the width); ×4 = 1196x896.
        XCTAssertEqual(
            rect(256, 224, aspect: 4.0 / 3, 1280, 1024, integer: true),
            VideoRect(x: 42, y: 64, width: 1196, height: 896))
        // Game Boy in 1920x1080: ×7 = 1120x1008.
        XCTAssertEqual(
            rect(160, 144, aspect: 10.0 / 9, 1920, 1080, integer: true),
            VideoRect(x: 400, y: 36, width: 1120, height: 1008))
        // Just under ×2 stays ×1.
        XCTAssertEqual(
            rect(256, 240, aspect: 0, 511, 479, integer: true), VideoRect(x: 127, y: 119, width: 256, height: 240))
        // Smaller than ×1: fit instead of cropping.
        XCTAssertEqual(
            rect(256, 240, aspect: 0, 128, 120, integer: true), VideoRect(x: 0, y: 0, width: 128, height: 120))
    }

    func testDegenerateSizesGiveAnEmptyRect() {
        XCTAssertEqual(rect(0, 224, aspect: 1, 100, 100).width, 0)
        XCTAssertEqual(rect(256, 224, aspect: 1, 0, 0).height, 0)
    }

    func testBaseSizeFollowsTheAspectRatio() {
        XCTAssertTrue(VideoLayout.baseSize(width: 256, height: 224, aspect: 0) == (256, 224))
        XCTAssertTrue(VideoLayout.baseSize(width: 256, height: 224, aspect: 4.0 / 3) == (299, 224))
    }
}
