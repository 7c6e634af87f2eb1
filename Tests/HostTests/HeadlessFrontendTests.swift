import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media

/// The frontend's loop in-process on the null backends: what reaches the video output, and what
/// scripts hear of the input source.
final class HeadlessFrontendTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// What the frontend said (device changes, fallbacks).
    private var notices: [String] = []

    private func open(
        _ harness: ScriptHarness, frames: Int, video: NullVideoOutput, input: NullInputSource
    ) throws -> Frontend {
        var options = FrontendOptions()
        options.window = false
        options.audio = false
        options.frameLimit = frames
        let frontend = Frontend(
            emulator: harness.host.emulator, screen: harness.host.screen, scripts: RunFrontendScripts(harness.host),
            options: options, video: video, input: input)
        frontend.onNotice = { [unowned self] in notices.append($0) }
        try frontend.open()
        return frontend
    }

    func testAHeadlessRunPresentsEveryFrameToTheNullVideo() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let video = NullVideoOutput(), input = NullInputSource()
        let frontend = try open(harness, frames: 30, video: video, input: input)
        harness.host.screen.devices.keys = ["x"]  // as `input.set_key` would: the null input leaves it alone
        let report = frontend.run()
        XCTAssertFalse(frontend.isWindowed)
        XCTAssertEqual(report.frames, 30)
        XCTAssertEqual(video.framesPresented, 30, "one present per frame, none dropped")
        XCTAssertEqual(input.polls, 30, "input is read once per frame")
        let frame = try XCTUnwrap(report.lastFrame)
        XCTAssertEqual(video.lastFrameSize?.width, frame.width)
        XCTAssertEqual(video.lastFrameSize?.height, frame.height)
        XCTAssertEqual(video.lastFormat, frame.format)
        XCTAssertEqual(harness.host.screen.devices.keys, ["x"])
        XCTAssertNil(harness.host.screen.windowSize, "headless, the hud takes the frame's size")
        XCTAssertEqual(notices, [])
        XCTAssertEqual(frontend.close(), [])
    }

    func testNullInputEventsReachScriptsAsKeyEventsAndQuitEndsTheRun() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(
            """
            event.on("key_down", function(key, again)
              print("down " .. key .. " repeat " .. tostring(again) .. " held " .. tostring(input.keys()[key] == true))
            end)
            event.on("key_up", function(key) print("up " .. key .. " held " .. tostring(input.keys()[key] == true)) end)
            event.on("gamepad", function(name, connected) print("pad " .. name .. " " .. tostring(connected)) end)
            """)
        let video = NullVideoOutput(), input = NullInputSource()
        let frontend = try open(harness, frames: 100, video: video, input: input)
        input.send(.keyDown("a", repeat: false), .gamepadAdded("Pad"))
        var turn = 0
        // Sent between frames, events come out of the next turn's poll, before its frame runs.
        frontend.betweenFrames = {
            turn += 1
            if turn == 2 { input.send(.keyDown("a", repeat: true)) }
            if turn == 3 { input.send(.keyUp("a")) }
            if turn == 4 { input.send(.quit) }
            return true
        }
        let report = frontend.run()
        XCTAssertEqual(
            harness.lines,
            [
                "down a repeat false held true", "pad Pad true", "down a repeat true held true",
                "up a held false",
            ])
        XCTAssertEqual(report.frames, 4, "the quit polled on the fifth turn ends the run before its frame")
        XCTAssertEqual(video.framesPresented, 4)
        XCTAssertEqual(notices, ["gamepad connected: Pad"])
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        XCTAssertEqual(frontend.close(), [])
    }
}
