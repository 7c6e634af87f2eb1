@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Support

/// Every path between read-only, read-write, finished and recording keeps exactly the input that ran:
/// a session's RAM and picture after every frame equal a fresh playback of the movie it saved. A
/// verification log that cannot go on is cut at its last trusted frame (`verify-frames`), never dropped.
final class MovieIntegrityTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private struct Snapshot: Equatable {
        let ram: [UInt8]
        let picture: String
    }

    private func snapshot(_ session: Session) -> Snapshot {
        Snapshot(ram: session.systemRAM(), picture: Hashing.sha1(session.core.currentFrame()!.pixels))
    }

    private static func input(_ frame: Int, _ buttons: [RetroPadButton]) -> InputState {
        var input = InputState()
        for (index, button) in buttons.enumerated() { input.set(button, (frame + index) % 3 != 0) }
        return input
    }

    /// Records `frames` frames (verified) from power-on to `path` with a pattern of `buttons`.
    private func record(_ path: String, frames: Int, _ buttons: [RetroPadButton]) throws {
        let harness = try ScriptHarness()
        var options = MovieEngine.RecordOptions()
        options.verify = true
        try harness.host.emulator.movie.record(to: path, options: options)
        for frame in 0..<frames {
            harness.host.emulator.playerInput = Self.input(frame, buttons)
            harness.host.emulator.runFrame()
        }
        try harness.host.emulator.movie.stop()
        harness.close()
    }

    /// Plays `path` from power-on and returns the snapshot after every frame; fails on a desync.
    private func replay(_ path: String) throws -> [Snapshot] {
        let movie = try MovieText.read(path: path)
        let harness = try ScriptHarness()
        try harness.host.emulator.movie.play(movie, path: path, options: .init())
        var seen: [Snapshot] = []
        for _ in 0..<movie.length {
            harness.host.emulator.runFrame()
            seen.append(snapshot(harness.session))
        }
        XCTAssertNil(harness.host.emulator.movie.firstDesync, "the replay of \(path) desynced")
        harness.close()
        return seen
    }

    func testFramesPlayedPastTheEndAreKeptWhenRecordingResumes() throws {
        // The path: record with a verification log, reach the end read-only, keep playing,
        // switch to read-write. The frames after the end must be the ones that ran, verified.
        let folder = Fixtures.temporaryFolder()
        try record(folder + "/a.rlm", frames: 60, [.right, .a])
        let harness = try ScriptHarness()
        let engine = harness.host.emulator.movie
        try engine.play(try MovieText.read(path: folder + "/a.rlm"), path: folder + "/a.rlm", options: .init())
        var live: [Snapshot] = []
        for frame in 0..<120 {
            if frame == 100 { engine.setReadOnly(false) }
            XCTAssertEqual(engine.mode, frame < 60 ? .play : frame < 100 ? .finished : .record, "frame \(frame)")
            harness.host.emulator.playerInput = Self.input(frame, frame < 100 ? [.left, .b] : [.down])
            harness.host.emulator.runFrame()
            live.append(snapshot(harness.session))
        }
        try engine.save(to: folder + "/b.rlm")
        harness.close()
        let saved = try MovieText.read(path: folder + "/b.rlm")
        XCTAssertEqual(saved.length, 120)
        XCTAssertEqual(saved.ramHashes.count, 120, "the verification log covers every frame")
        XCTAssertEqual(saved.log.input(at: 70).buttons[0], Self.input(70, [.left, .b]).buttons[0])
        let replayed = try replay(folder + "/b.rlm")
        for frame in 0..<120 { XCTAssertEqual(replayed[frame], live[frame], "frame \(frame)") }
    }

    func testAStateMadePastTheEndPutsBackTheFramesThatLedToIt() throws {
        let folder = Fixtures.temporaryFolder()
        try record(folder + "/a.rlm", frames: 30, [.right])
        let harness = try ScriptHarness()
        let emulator = harness.host.emulator, engine = emulator.movie
        try engine.play(try MovieText.read(path: folder + "/a.rlm"), path: folder + "/a.rlm", options: .init())
        var live: [Snapshot] = []
        var state: [UInt8] = []
        for frame in 0..<60 {
            if frame == 40 { state = try emulator.encodeState() }
            emulator.playerInput = Self.input(frame, [.up, .a])
            emulator.runFrame()
            live.append(snapshot(harness.session))
        }
        // Back to frame 40 (read-only, past the end): the overrun is what led there; a new input follows.
        try emulator.loadState(state, trusted: false)
        XCTAssertEqual(engine.mode, .finished)
        XCTAssertEqual(engine.frame, 40)
        live.removeSubrange(40...)
        for frame in 40..<50 {
            emulator.playerInput = Self.input(frame, [.down, .b])
            emulator.runFrame()
            live.append(snapshot(harness.session))
        }
        engine.setReadOnly(false)
        XCTAssertEqual(engine.movie?.length, 50)
        try engine.save(to: folder + "/b.rlm")
        harness.close()
        let replayed = try replay(folder + "/b.rlm")
        XCTAssertEqual(replayed.count, 50)
        for frame in 0..<50 { XCTAssertEqual(replayed[frame], live[frame], "frame \(frame)") }
        // Read-only again later: a state from the overrun of another timeline is refused.
    }

    func testACutVerificationLogIsKeptWithVerifyFramesAndReported() throws {
        let folder = Fixtures.temporaryFolder()
        try record(folder + "/a.rlm", frames: 40, [.right])
        var movie = try MovieText.read(path: folder + "/a.rlm")
        movie.ramHashes.removeSubrange(25...)  // as a session that cut the log at frame 25 saves it
        try MovieText.write(movie, to: folder + "/cut.rlm")
        let text = try String(contentsOfFile: folder + "/cut.rlm", encoding: .utf8)
        XCTAssertTrue(text.contains("\nverify-frames 25\n"), text)
        let read = try MovieText.read(path: folder + "/cut.rlm")
        XCTAssertEqual(read.ramHashes, movie.ramHashes)
        XCTAssertEqual(read.length, 40)
        let verify = try Fixtures.cli(["movie", "verify", folder + "/cut.rlm", Fixtures.nesROM])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("in sync  25 of 40 frames verified"), verify.stdout)
        let info = try Fixtures.cli(["movie", "info", folder + "/cut.rlm"])
        XCTAssertTrue(info.stdout.contains("RAM hashes for frames 0–24 of 40 (cut short)"), info.stdout)
        // Played read-write past its end, recording goes on: the log stays cut at 25, it is not dropped.
        let harness = try ScriptHarness()
        let engine = harness.host.emulator.movie
        try engine.play(
            read, path: folder + "/cut.rlm",
            options: {
                var o = MovieEngine.PlayOptions(); o.readOnly = false; return o
            }())
        XCTAssertEqual(engine.verificationTruncated, 25)
        for frame in 0..<50 {
            harness.host.emulator.playerInput = Self.input(frame, [.left])
            harness.host.emulator.runFrame()
        }
        XCTAssertNil(engine.firstDesync, "the 25 hashed frames replayed in sync")
        try engine.save(to: folder + "/longer.rlm")
        harness.close()
        let longer = try MovieText.read(path: folder + "/longer.rlm")
        XCTAssertEqual(longer.length, 50)
        XCTAssertEqual(longer.ramHashes.count, 25)
        // A header that claims more hashed frames than frames is refused with its reason.
        let bad = text.replacingOccurrences(of: "verify-frames 25", with: "verify-frames 99")
        try bad.write(toFile: folder + "/bad.rlm", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MovieText.read(path: folder + "/bad.rlm")) { error in
            XCTAssertTrue("\(error)".contains("'verify-frames' must be at most 'frames'"), "\(error)")
        }
    }
}
