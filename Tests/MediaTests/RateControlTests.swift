import Foundation
import XCTest
@testable import Media

final class RateControlTests: XCTestCase {
    func testProportionalTermFollowsRetroArchFormula() {
        var control = RateControl(inputRate: 32768, outputRate: 48000, delta: 0.005)
        let base = 48000.0 / 32768
        XCTAssertEqual(control.ratio(queuedFrames: 1000, capacityFrames: 2000), base, accuracy: 1e-12)
        // Empty queue: avail = size, (avail − half)/half = 1: produce 0.5% more.
        XCTAssertEqual(control.ratio(queuedFrames: 0, capacityFrames: 2000), base * 1.005, accuracy: 1e-12)
        XCTAssertEqual(control.ratio(queuedFrames: 2000, capacityFrames: 2000), base * 0.995, accuracy: 1e-12)
        XCTAssertEqual(control.ratio(queuedFrames: 1500, capacityFrames: 2000), base * (1 - 0.0025), accuracy: 1e-12)
        // Clamped beyond the buffer.
        XCTAssertEqual(control.ratio(queuedFrames: 9000, capacityFrames: 2000), base * 0.995, accuracy: 1e-12)
        XCTAssertEqual(control.lastRatio, base * 0.995, accuracy: 1e-12)
        // No learning without elapsed time.
        XCTAssertEqual(control.drift, 0)

        control.setInputRate(48000)
        XCTAssertEqual(control.ratio(queuedFrames: 1000, capacityFrames: 2000), 1, accuracy: 1e-12)
        control.delta = 0.01
        XCTAssertEqual(control.ratio(queuedFrames: 0, capacityFrames: 2000), 1.01, accuracy: 1e-12)
        XCTAssertEqual(
            control.ratio(queuedFrames: 0, capacityFrames: 0), 1, accuracy: 1e-12, "degenerate capacity: base")
    }

    func testDriftLearnsAndIsBounded() {
        var control = RateControl(inputRate: 48000, outputRate: 48000, delta: 0.005, driftGain: 0.05)
        _ = control.ratio(queuedFrames: 0, capacityFrames: 2000, elapsed: 1)
        XCTAssertEqual(control.drift, 0.05, accuracy: 1e-12 + 0.03, "clamped to maxDrift")
        XCTAssertEqual(control.drift, control.maxDrift)
        for _ in 0..<100 { _ = control.ratio(queuedFrames: 2000, capacityFrames: 2000, elapsed: 1) }
        XCTAssertEqual(control.drift, -control.maxDrift)
        control.resetDrift()
        XCTAssertEqual(control.ratio(queuedFrames: 1000, capacityFrames: 2000, elapsed: 1), 1, accuracy: 1e-12)
    }

    // MARK: - 10 minutes of a skewed sound card, simulated

    struct Outcome {
        var underruns = 0, starved = 0
        var minAverage = Double.infinity, maxAverage = -Double.infinity  // per-frame average queue ÷ target
        var minRaw = Double.infinity, maxRaw = -Double.infinity  // every 1 ms sample ÷ target
        var framesRun = 0
        var drift = 0.0
    }

    /// A core at `inputRate`/`fps` feeding a card whose clock runs `skew` fast, for `seconds` of
    /// simulated time in 1 ms steps. `audioPaced`: the frontend runs a frame only when
    /// `framesAboveTarget() <= 0` (checked each ms); otherwise frames come from an exact clock.
    func simulate(skew: Double, inputRate: Double, fps: Double, audioPaced: Bool, seconds: Double = 600) -> Outcome {
        let card = FakeSoundCard(sampleRate: 48000, skew: skew)
        let pipeline = AudioPipeline(
            inputRate: inputRate, output: card, quality: .linear, learnsClockDrift: !audioPaced)
        let target = Double(pipeline.targetFrames)
        let silence = [Int16](repeating: 0, count: 4096)
        var outcome = Outcome()
        var carry = 0.0
        var nextFrame = 0.0
        var sum = 0.0, count = 0
        let steps = Int(seconds * 1000)
        for step in 0..<steps {
            let now = Double(step) / 1000
            let due = audioPaced ? pipeline.framesAboveTarget() <= 0 : nextFrame <= now
            if due {
                if pipeline.isPlaying && count > 0 {
                    let average = sum / Double(count) / target
                    outcome.minAverage = min(outcome.minAverage, average)
                    outcome.maxAverage = max(outcome.maxAverage, average)
                }
                sum = 0; count = 0
                carry += inputRate / fps
                let frames = Int(carry)
                carry -= Double(frames)
                // Cores hand audio over in several batches per frame.
                silence.withUnsafeBufferPointer { buffer in
                    pipeline.push(buffer.baseAddress!, frames: frames / 2)
                    pipeline.push(buffer.baseAddress!, frames: frames - frames / 2)
                }
                pipeline.endFrame()
                outcome.framesRun += 1
                nextFrame = Double(outcome.framesRun) / fps
            }
            card.advance(0.001)
            if pipeline.isPlaying {
                let level = Double(card.queuedFrames) / target
                outcome.minRaw = min(outcome.minRaw, level)
                outcome.maxRaw = max(outcome.maxRaw, level)
                sum += Double(card.queuedFrames)
                count += 1
            }
        }
        outcome.underruns = pipeline.stats.underruns
        outcome.starved = card.starved
        outcome.drift = pipeline.stats.drift
        return outcome
    }

    /// The requirement: a card ±0.5% off, a clock-paced producer, 10 minutes: the queue
    /// stays within target ±25% after the initial fill, with no underrun. The queue necessarily
    /// saw-tooths by one frame of audio (16.7 ms, 26% of a 64 ms target) around its per-frame
    /// average; the average is what the latency is, and what is held within ±25%.
    /// Each core in its own test so each stays well under 2 s (10 simulated minutes take ~0.6 s).
    func testSkewedCardClockPacedTenMinutesGameBoy() {
        checkClockPaced(core: "gambatte", rate: 32768, fps: 59.7275)
    }

    func testSkewedCardClockPacedTenMinutesNES() {
        checkClockPaced(core: "nestopia", rate: 48000, fps: 60.0988)
    }

    private func checkClockPaced(core: String, rate: Double, fps: Double) {
        for skew in [0.005, -0.005] {
            let outcome = simulate(skew: skew, inputRate: rate, fps: fps, audioPaced: false)
            print(
                String(
                    format:
                        """
                        rate control, %@, card %+.1f%%, clock paced: queue average %.3f…%.3f of target, raw \
                        %.3f…%.3f, drift learned %+.4f%%, %d underruns
                        """,
                    core, skew * 100, outcome.minAverage, outcome.maxAverage, outcome.minRaw, outcome.maxRaw,
                    outcome.drift * 100, outcome.underruns))
            XCTAssertEqual(outcome.underruns, 0, "\(core) \(skew)")
            XCTAssertEqual(outcome.starved, 0, "\(core) \(skew)")
            XCTAssertGreaterThanOrEqual(outcome.minAverage, 0.75, "\(core) \(skew)")
            XCTAssertLessThanOrEqual(outcome.maxAverage, 1.25, "\(core) \(skew)")
            XCTAssertEqual(outcome.drift, skew, accuracy: 0.0005, "\(core) \(skew): the card's error is learned")
        }
    }

    /// The frontend's default: frames run when the queue is back at its target, so the card's
    /// clock sets the game speed; no drift learning.
    func testSkewedCardAudioPacedTenMinutes() {
        for skew in [0.005, -0.005] {
            let outcome = simulate(skew: skew, inputRate: 32768, fps: 59.7275, audioPaced: true)
            print(
                String(
                    format:
                        """
                        rate control, gambatte, card %+.1f%%, audio paced: queue average %.3f…%.3f of target, \
                        raw %.3f…%.3f, %.4f fps, %d underruns
                        """,
                    skew * 100, outcome.minAverage, outcome.maxAverage, outcome.minRaw, outcome.maxRaw,
                    Double(outcome.framesRun) / 600, outcome.underruns))
            XCTAssertEqual(outcome.underruns, 0)
            XCTAssertEqual(outcome.starved, 0)
            XCTAssertGreaterThanOrEqual(outcome.minAverage, 0.75)
            XCTAssertLessThanOrEqual(outcome.maxAverage, 1.25)
            XCTAssertEqual(outcome.drift, 0)
            // The game follows the card's clock, give or take the proportional term's ±0.5%.
            XCTAssertEqual(Double(outcome.framesRun) / 600, 59.7275 * (1 + skew), accuracy: 59.7275 * 0.006)
        }
    }
}
