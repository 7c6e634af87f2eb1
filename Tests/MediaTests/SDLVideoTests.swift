import CSDL2
import Foundation
import Libretro
import XCTest
@testable import Media

/// The SDL window against the headless path: at scale 1 with nearest filtering the window's game area
/// must hold exactly the pixels `VideoFrame.rgba()` (plus `Canvas.composite`) produce headless.
final class SDLVideoTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        _ = XvfbDisplay.start()
    }

    override class func tearDown() {
        XvfbDisplay.stop()
        super.tearDown()
    }

    private func makeVideo(
        scale: Int = 1, width: Int = 256, height: Int = 224,
        integerScale: Bool = false
    ) throws -> SDLVideo {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            throw XCTSkip("no DISPLAY and no /usr/bin/Xvfb")
        }
        let options = VideoOptions(scale: scale, integerScale: integerScale, vsync: false)
        return try SDLVideo(title: "retrolua test", options: options, baseWidth: width, baseHeight: height)
    }

    /// A frame of `format` whose every pixel differs from its neighbours, in rows `pitch` bytes apart
    /// with the padding and unused bits filled with junk the frontend must ignore.
    private func pattern(_ format: PixelFormat, width: Int, height: Int, pitch: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xCD, count: pitch * height)
        for y in 0..<height {
            for x in 0..<width {
                let o = y * pitch + x * format.bytesPerPixel
                switch format {
                case .xrgb8888:
                    let v =
                        UInt32(0xAB00_0000) | UInt32(x & 255) << 16 | UInt32((y * 3) & 255) << 8
                        | UInt32((x * 7 + y * 5) & 255)
                    withUnsafeBytes(of: v.littleEndian) { bytes.replaceSubrange(o..<o + 4, with: $0) }
                case .rgb565, .xrgb1555:
                    let v = UInt16(truncatingIfNeeded: x &* 37 &+ y &* 1013)
                    withUnsafeBytes(of: v.littleEndian) { bytes.replaceSubrange(o..<o + 2, with: $0) }
                }
            }
        }
        return bytes
    }

    private func solid(_ rgb: UInt32, width: Int, height: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<width * height {
            withUnsafeBytes(of: rgb.littleEndian) { bytes.replaceSubrange(i * 4..<i * 4 + 4, with: $0) }
        }
        return bytes
    }

    private func present(
        _ video: SDLVideo, _ bytes: [UInt8], _ format: PixelFormat, width: Int, height: Int,
        pitch: Int? = nil, emu: Canvas? = nil, hud: Canvas? = nil
    ) {
        bytes.withUnsafeBytes {
            video.present(
                frame: $0.baseAddress, width: width, height: height,
                pitch: pitch ?? width * format.bytesPerPixel, format: format,
                aspect: Double(width) / Double(height), emu: emu, hud: hud)
        }
    }

    /// Fails with the first differing pixel rather than dumping two arrays.
    private func assertSamePixels(
        _ got: [UInt8], _ want: [UInt8], width: Int, tolerance: Int = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(got.count, want.count, "sizes", file: file, line: line)
        var bad = 0, first: String?
        for i in 0..<min(got.count, want.count) where i % 4 != 3 && abs(Int(got[i]) - Int(want[i])) > tolerance {
            bad += 1
            if first == nil {
                let p = i / 4
                first =
                    """
                    (\(p % width), \(p / width)) got \(Array(got[p * 4..<p * 4 + 3])) want \
                    \(Array(want[p * 4..<p * 4 + 3]))
                    """
            }
        }
        XCTAssertEqual(bad, 0, "differing channels; first at \(first ?? "")", file: file, line: line)
    }

    func testWindowOpensAtBaseSizeTimesScale() throws {
        let video = try makeVideo(scale: 2)
        XCTAssertEqual(video.windowSize.width, 512)
        XCTAssertEqual(video.windowSize.height, 448)
        XCTAssertFalse(video.isFullscreen)
        XCTAssertNil(video.capture(), "nothing presented yet")
        print(
            """
            SDL video driver \(String(cString: SDL_GetCurrentVideoDriver())), renderer \(video.rendererName), \
            vsync \(video.vsyncActive)
            """
        )
    }

    /// XRGB8888 is shown bit for bit. The 16-bit formats go through SDL's converter (the GL renderer
    /// has no 16-bit textures), which widens channels with its own tables (5-bit v → v·255/31 rounded
    /// down, and 6-bit 63 → 254) where `VideoFrame.rgba()` replicates bits as RetroArch does: the window
    /// matches SDL's conversion exactly and the headless frame within one level.
    func testEachPixelFormatMatchesTheHeadlessFrame() throws {
        let video = try makeVideo()
        for format in [PixelFormat.xrgb8888, .rgb565, .xrgb1555] {
            let (w, h) = (256, 224)
            let pitch = w * format.bytesPerPixel + 40  // wider than the row, as cores do
            let bytes = pattern(format, width: w, height: h, pitch: pitch)
            present(video, bytes, format, width: w, height: h, pitch: pitch)
            let headless = bytes.withUnsafeBytes {
                VideoFrame(copying: $0.baseAddress!, width: w, height: h, pitch: pitch, format: format).rgba()
            }
            let shot = try XCTUnwrap(video.capture(), "\(format)")
            XCTAssertEqual(shot.width, w)
            XCTAssertEqual(shot.height, h)
            if format == .xrgb8888 {
                assertSamePixels(shot.rgba, headless, width: w)
            } else {
                var converted = [UInt8](repeating: 0, count: w * h * 4)
                bytes.withUnsafeBytes { source in
                    converted.withUnsafeMutableBytes {
                        _ = SDL_ConvertPixels(
                            Int32(w), Int32(h), SDLVideo.sdlFormat(format), source.baseAddress, Int32(pitch),
                            SDL_PIXELFORMAT_ABGR8888.rawValue, $0.baseAddress, Int32(w * 4))
                    }
                }
                assertSamePixels(shot.rgba, converted, width: w)
                assertSamePixels(shot.rgba, headless, width: w, tolerance: 1)
            }
        }
    }

    func testDuplicateFrameKeepsTheLastPicture() throws {
        let video = try makeVideo()
        present(video, solid(0x123456, width: 256, height: 224), .xrgb8888, width: 256, height: 224)
        video.present(
            frame: nil, width: 256, height: 224, pitch: 0, format: .xrgb8888,
            aspect: 256.0 / 224.0, emu: nil, hud: nil)
        let shot = try XCTUnwrap(video.capture())
        XCTAssertEqual(Array(shot.rgba[0..<4]), [0x12, 0x34, 0x56, 255])
        XCTAssertEqual(Array(shot.rgba[shot.rgba.count - 4..<shot.rgba.count]), [0x12, 0x34, 0x56, 255])
    }

    func testGeometryChangesRecreateTheTexture() throws {
        let video = try makeVideo()
        let output = video.windowSize
        for (w, h, colour) in [
            (256, 224, UInt32(0xFF0000)), (256, 240, 0x00FF00), (160, 144, 0x0000FF), (256, 224, 0xFFFFFF),
        ] {
            present(video, solid(colour, width: w, height: h), .xrgb8888, width: w, height: h)
            let dest = VideoLayout.destinationRect(
                frameWidth: w, frameHeight: h, aspect: Double(w) / Double(h),
                outputWidth: output.width, outputHeight: output.height,
                integerScale: false)
            let shot = try XCTUnwrap(video.capture())
            XCTAssertEqual(shot.width, dest.width, "\(w)x\(h)")
            XCTAssertEqual(shot.height, dest.height, "\(w)x\(h)")
            let want = VideoFrame(
                width: dest.width, height: dest.height, format: .xrgb8888,
                pixels: solid(colour, width: dest.width, height: dest.height)
            ).rgba()
            assertSamePixels(shot.rgba, want, width: dest.width)
        }
    }

    func testEmuOverlayIsCompositedAndHudIsNotCaptured() throws {
        let video = try makeVideo()
        let (w, h) = (256, 224)
        let bytes = pattern(.xrgb8888, width: w, height: h, pitch: w * 4)
        let emu = Canvas(width: w, height: h)
        emu.rect(x: 10, y: 10, width: 50, height: 20, color: 0xFFFF_0000, fill: 0xFF00_FF00)
        emu.text(x: 4, y: 100, "emu layer", color: 0xFFFF_FFFF)
        emu.rect(x: 100, y: 150, width: 40, height: 40, color: 0x80FF_FFFF, fill: 0x8000_00FF)  // half alpha
        let hud = Canvas(width: video.windowSize.width, height: video.windowSize.height)
        hud.rect(x: 0, y: 0, width: hud.width, height: hud.height, color: 0xFFFF_00FF, fill: 0xFFFF_00FF)

        present(video, bytes, .xrgb8888, width: w, height: h, emu: emu, hud: hud)
        var want = VideoFrame(width: w, height: h, format: .xrgb8888, pixels: bytes).rgba()
        emu.composite(onto: &want, width: w, height: h)
        let shot = try XCTUnwrap(video.capture())
        // The GL renderers blend exactly as Canvas does; SDL's software blender rounds half-alpha one
        // level differently.
        assertSamePixels(shot.rgba, want, width: w, tolerance: 1)
        let opaque = (12 * w + 12) * 4
        XCTAssertEqual(Array(shot.rgba[opaque..<opaque + 4]), [0, 255, 0, 255], "opaque emu pixels are exact")

        // An empty emu canvas is not drawn, even though its texture still holds the old overlay.
        emu.clear()
        present(video, bytes, .xrgb8888, width: w, height: h, emu: emu, hud: hud)
        let plain = try XCTUnwrap(video.capture())
        assertSamePixels(plain.rgba, VideoFrame(width: w, height: h, format: .xrgb8888, pixels: bytes).rgba(), width: w)
    }

    func testIntegerScaleFillsTheLargestMultiple() throws {
        let video = try makeVideo(scale: 3, integerScale: true)
        present(video, solid(0x808080, width: 256, height: 224), .xrgb8888, width: 256, height: 224)
        let shot = try XCTUnwrap(video.capture())
        XCTAssertEqual(shot.width, 768)
        XCTAssertEqual(shot.height, 672)
    }

    /// Not a pass/fail test: what presenting costs at 4× (a 1024x960 window for a 256x240 frame) with
    /// vsync off, under whatever X server runs the tests.
    func testMeasurePresentationCost() throws {
        let video = try makeVideo(scale: 4, width: 256, height: 240)
        let (w, h) = (256, 240)
        let frame = pattern(.xrgb8888, width: w, height: h, pitch: w * 4)
        let frame565 = pattern(.rgb565, width: w, height: h, pitch: w * 2)
        let emu = Canvas(width: w, height: h)
        emu.text(x: 4, y: 4, "frame 12345  x=42 y=17", color: 0xFFFF_FF00, background: 0x8000_0000)
        let size = video.windowSize
        let hud = Canvas(width: size.width, height: size.height)
        hud.text(x: 8, y: size.height - 16, "60.0 fps  slot 1 saved", color: 0xFFFF_FFFF)
        func measure(_ label: String, _ bytes: [UInt8], _ format: PixelFormat, emu: Canvas?, hud: Canvas?) {
            let frames = 300
            for _ in 0..<10 { present(video, bytes, format, width: w, height: h, emu: emu, hud: hud) }
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<frames { present(video, bytes, format, width: w, height: h, emu: emu, hud: hud) }
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)
            print(
                String(
                    format: "present %@ at %dx%d (%@): %.3f ms/frame", label, size.width, size.height,
                    video.rendererName, ms))
        }
        measure("XRGB8888 frame only", frame, .xrgb8888, emu: nil, hud: nil)
        measure("RGB565 frame only", frame565, .rgb565, emu: nil, hud: nil)
        measure("XRGB8888 + emu", frame, .xrgb8888, emu: emu, hud: nil)
        measure("XRGB8888 + emu + full-window hud", frame, .xrgb8888, emu: emu, hud: hud)
    }
}
