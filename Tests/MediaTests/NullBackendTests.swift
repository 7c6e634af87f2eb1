import Libretro
import Media
import XCTest

/// The null video and input: what headless runs and frontend tests stand on.
final class NullBackendTests: XCTestCase {
    func testNullInputHandsOutEventsOnceAndHoldsKeysAsSDLWould() {
        let input = NullInputSource()
        var devices = HostDevices()
        devices.mouse.x = 7  // set by a script: not the source's to change
        input.send(.keyDown("a", repeat: false), .keyDown("left", repeat: false), .gamepadAdded("Pad"))
        XCTAssertEqual(
            input.poll(into: &devices),
            [.keyDown("a", repeat: false), .keyDown("left", repeat: false), .gamepadAdded("Pad")])
        XCTAssertEqual(devices.keys, ["a", "left"])
        XCTAssertEqual(devices.gamepads.map(\.name), ["Pad"])
        XCTAssertEqual(input.poll(into: &devices), [], "each event comes out of one poll")
        XCTAssertEqual(devices.keys, ["a", "left"], "held until released")
        input.send(.keyUp("left"), .gamepadRemoved("Pad"))
        _ = input.poll(into: &devices)
        XCTAssertEqual(devices.keys, ["a"])
        XCTAssertTrue(devices.gamepads.isEmpty)
        devices.mouse.buttons = ["left"]
        input.send(.focusLost)
        _ = input.poll(into: &devices)
        XCTAssertEqual(devices.keys, [], "a lost focus releases keys")
        XCTAssertEqual(devices.mouse.buttons, [], "and mouse buttons")
        XCTAssertEqual(devices.mouse.x, 7)
        XCTAssertEqual(input.polls, 4)
    }

    func testNullVideoCountsPresentsAndKeepsTheLastFrameSize() {
        let video = NullVideoOutput()
        XCTAssertFalse(video.isVisible)
        XCTAssertNil(video.lastFrameSize)
        XCTAssertNil(video.capture())
        let pixels = [UInt8](repeating: 0, count: 256 * 240 * 2)
        pixels.withUnsafeBytes {
            video.present(
                frame: $0.baseAddress, width: 256, height: 240, pitch: 512, format: .rgb565, aspect: 4.0 / 3,
                emu: nil, hud: nil)
        }
        video.present(frame: nil, width: 0, height: 0, pitch: 0, format: .xrgb8888, aspect: 4.0 / 3, emu: nil, hud: nil)
        XCTAssertEqual(video.framesPresented, 2)
        XCTAssertEqual(video.lastFrameSize?.width, 256, "a duplicated frame keeps the last size")
        XCTAssertEqual(video.lastFrameSize?.height, 240)
        XCTAssertEqual(video.lastFormat, .rgb565)
        XCTAssertTrue(video.windowSize == (256, 240))
        video.setFullscreen(true)
        XCTAssertTrue(video.isFullscreen)
        XCTAssertNil(video.capture(), "nothing is drawn")
    }
}
