import Foundation
import XCTest
@testable import Media

final class AudioPipelineTests: XCTestCase {
    private let frame = stereoSine(frequency: 440, rate: 48000, frames: 800)

    private func runFrame(_ pipeline: AudioPipeline) {
        frame.withUnsafeBufferPointer { pipeline.push($0.baseAddress!, frames: 800) }
        pipeline.endFrame()
    }

    func testPlaysOnlyOnceTargetIsQueued() {
        let card = FakeSoundCard()
        let pipeline = AudioPipeline(inputRate: 48000, output: card, latency: 0.064)
        XCTAssertEqual(pipeline.targetFrames, 3072)
        var frames = 0
        while card.queuedFrames < pipeline.targetFrames {
            XCTAssertFalse(pipeline.isPlaying)
            XCTAssertEqual(card.playingCalls, [])
            runFrame(pipeline)
            frames += 1
            XCTAssertLessThan(frames, 10)
        }
        XCTAssertTrue(pipeline.isPlaying)
        XCTAssertEqual(card.playingCalls, [true])
        XCTAssertGreaterThanOrEqual(pipeline.framesAboveTarget(), 0)
        XCTAssertEqual(pipeline.stats.underruns, 0)
        XCTAssertEqual(pipeline.stats.framesIn, frames * 800)
        XCTAssertEqual(pipeline.stats.framesOut, card.framesQueued)
        // A filling queue raised the ratio above 1 (produce more while below target).
        XCTAssertGreaterThan(pipeline.stats.lastRatio, 1)
    }

    func testUnderrunPausesAndRefillsToTarget() {
        let card = FakeSoundCard()
        let pipeline = AudioPipeline(inputRate: 48000, output: card)
        while !pipeline.isPlaying { runFrame(pipeline) }
        card.setLevel(0)  // The card played everything: an underrun.
        runFrame(pipeline)
        XCTAssertEqual(pipeline.stats.underruns, 1)
        XCTAssertFalse(pipeline.isPlaying)
        XCTAssertEqual(card.playingCalls, [true, false])
        // Refill: no playing until the target is queued again, and no more underruns counted.
        while card.queuedFrames < pipeline.targetFrames {
            XCTAssertFalse(pipeline.isPlaying)
            runFrame(pipeline)
        }
        XCTAssertTrue(pipeline.isPlaying)
        XCTAssertEqual(card.playingCalls, [true, false, true])
        XCTAssertEqual(pipeline.stats.underruns, 1)
        // An empty queue before playback ever started is not an underrun.
        let fresh = AudioPipeline(inputRate: 48000, output: FakeSoundCard())
        fresh.endFrame()
        XCTAssertEqual(fresh.stats.underruns, 0)
    }

    func testMutedDropsCleanly() {
        let card = FakeSoundCard()
        let pipeline = AudioPipeline(inputRate: 48000, output: card)
        while !pipeline.isPlaying { runFrame(pipeline) }
        let queuedBefore = card.framesQueued
        pipeline.muted = true
        XCTAssertEqual(card.clears, 1)
        XCTAssertEqual(card.queuedFrames, 0)
        XCTAssertFalse(pipeline.isPlaying)
        for _ in 0..<10 { runFrame(pipeline) }
        XCTAssertEqual(card.framesQueued, queuedBefore, "nothing queued while muted")
        XCTAssertEqual(pipeline.stats.framesDropped, 8000)
        XCTAssertEqual(pipeline.stats.underruns, 0, "an empty queue while muted is not an underrun")
        pipeline.muted = true  // Setting it again changes nothing.
        XCTAssertEqual(card.clears, 1)
        pipeline.muted = false
        runFrame(pipeline)
        XCTAssertGreaterThan(card.framesQueued, queuedBefore)
        XCTAssertFalse(pipeline.isPlaying, "refills to the target before playing again")
    }

    /// A file or null output has no clock: exact nominal ratio, never "playing", no underruns.
    func testNonRealTimeOutputUsesExactRatio() {
        let null = NullAudioOutput(sampleRate: 44100)
        let pipeline = AudioPipeline(inputRate: 48000, output: null, learnsClockDrift: true)
        for _ in 0..<100 { runFrame(pipeline) }
        XCTAssertEqual(pipeline.stats.lastRatio, 44100.0 / 48000.0)
        XCTAssertEqual(Double(null.framesDiscarded), 80000 * 44100.0 / 48000.0, accuracy: 100)
        XCTAssertFalse(pipeline.isPlaying)
        XCTAssertEqual(pipeline.stats.underruns, 0)
        XCTAssertEqual(pipeline.stats.drift, 0)
        XCTAssertLessThan(pipeline.framesAboveTarget(), 0)
    }

    func testInputRateChangeAndBadRates() {
        let card = FakeSoundCard()
        let pipeline = AudioPipeline(inputRate: 48000, output: card)
        var errors: [String] = []
        pipeline.onError = { errors.append($0) }
        frame.withUnsafeBufferPointer { pipeline.push($0.baseAddress!, frames: 800) }
        // Audio pushed at the old rate is converted at the old rate, before the change.
        pipeline.setInputRate(24000)
        XCTAssertEqual(Double(card.framesQueued), 800, accuracy: 64)
        runFrame(pipeline)
        XCTAssertEqual(Double(card.framesQueued), 2400, accuracy: 128, "800 frames at 24 kHz become ~1600")
        // A core reporting 0 Hz: its sound is dropped with a message, once.
        pipeline.setInputRate(0)
        runFrame(pipeline)
        runFrame(pipeline)
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(pipeline.lastError?.contains("sample rate") ?? false, pipeline.lastError ?? "")
        XCTAssertEqual(pipeline.stats.framesDropped, 1600)
    }

    func testTeeCopiesAndTakesTimingFromPrimary() throws {
        let card = FakeSoundCard()
        let copy = NullAudioOutput(sampleRate: 48000)
        let tee = TeeAudioOutput(card, copy)
        XCTAssertTrue(tee.isRealTime)
        let pipeline = AudioPipeline(inputRate: 48000, output: tee)
        while !pipeline.isPlaying { runFrame(pipeline) }
        XCTAssertEqual(copy.framesDiscarded, card.framesQueued)
        XCTAssertEqual(card.playingCalls, [true])
        pipeline.clear()
        XCTAssertEqual(card.clears, 1)
        XCTAssertEqual(copy.framesDiscarded, pipeline.stats.framesOut, "the copy keeps what it was given")
    }
}
