import CSDL2
import Foundation
import XCTest
@testable import Media

final class SDLAudioOutputTests: XCTestCase {
    /// SDL's `disk` driver writes what the device plays to a file, in real time: a real SDL audio
    /// device without a sound card.
    func testDiskDriverReceivesSamples() throws {
        let file = NSTemporaryDirectory() + "retrolua-sdl-\(UUID().uuidString).raw"
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file, 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
            try? FileManager.default.removeItem(atPath: file)
        }
        let output: SDLAudioOutput
        do {
            output = try SDLAudioOutput(preferredRate: 48000)
        } catch {
            throw XCTSkip("SDL refused the disk audio driver: \(error)")
        }
        // SDL picks the driver when its audio subsystem first starts: if something else in this
        // process still holds it open with another driver, this test cannot choose.
        if output.driver != "disk" { throw XCTSkip("SDL audio already running with the \(output.driver) driver") }
        XCTAssertGreaterThan(output.sampleRate, 0)
        XCTAssertTrue(output.isRealTime)

        let samples = stereoSine(frequency: 440, rate: Double(output.sampleRate), frames: output.sampleRate / 4)
        samples.withUnsafeBufferPointer { output.queue($0) }
        XCTAssertNil(output.lastError)
        XCTAssertEqual(output.queuedFrames, samples.count / 2, "paused until told to play")
        output.setPlaying(true)

        var size = 0
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            if size > 0 && output.queuedFrames < samples.count / 2 { break }
            usleep(10_000)
        }
        XCTAssertGreaterThan(size, 0, "the disk driver wrote what was played")
        XCTAssertLessThan(output.queuedFrames, samples.count / 2, "the queue drains while playing")
        let written = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
        let loudest = written.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { abs(Int($0)) }.max() ?? 0 }
        XCTAssertGreaterThan(loudest, 10000, "the file holds the sine, not silence")
        output.clear()
        XCTAssertEqual(output.queuedFrames, 0)
    }
}
