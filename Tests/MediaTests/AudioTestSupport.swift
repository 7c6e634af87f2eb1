import Foundation
@testable import Media

/// A sound card in simulated time: it drains its queue at `sampleRate × (1 + skew)` frames per
/// simulated second while playing, so rate control can be tested deterministically, fast, without
/// SDL or a real clock.
final class FakeSoundCard: AudioOutput {
    let sampleRate: Int
    let skew: Double
    /// Fractional queue level, so a 1 ms step drains 48.24 frames rather than a rounded 48.
    private(set) var level = 0.0
    private(set) var playing = false
    private(set) var playingCalls: [Bool] = []
    private(set) var clears = 0
    private(set) var framesQueued = 0
    /// Times the card ran dry while playing (what a listener would hear as a gap).
    private(set) var starved = 0

    init(sampleRate: Int = 48000, skew: Double = 0) {
        self.sampleRate = sampleRate
        self.skew = skew
    }

    var queuedFrames: Int { Int(level) }

    func queue(_ samples: UnsafeBufferPointer<Int16>) {
        level += Double(samples.count / 2)
        framesQueued += samples.count / 2
    }

    func setPlaying(_ playing: Bool) {
        self.playing = playing
        playingCalls.append(playing)
    }

    func clear() {
        level = 0
        clears += 1
    }

    /// Plays `seconds` of simulated time.
    func advance(_ seconds: Double) {
        guard playing, level > 0 else { return }
        level -= Double(sampleRate) * (1 + skew) * seconds
        if level <= 0 {
            level = 0
            starved += 1
        }
    }

    /// Sets the level directly (policy tests).
    func setLevel(_ frames: Double) { level = frames }
}

/// Interleaved stereo Int16 sine, the same on both channels.
func stereoSine(frequency: Double, rate: Double, frames: Int, amplitude: Double = 12000, phase: Int = 0) -> [Int16] {
    var samples = [Int16](repeating: 0, count: frames * 2)
    for i in 0..<frames {
        let value = Int16(amplitude * sin(2 * Double.pi * frequency * Double(i + phase) / rate))
        samples[2 * i] = value
        samples[2 * i + 1] = value
    }
    return samples
}

/// Frequency of the left channel of interleaved stereo samples, from its rising zero crossings
/// (interpolated between samples), skipping `skip` frames of filter warm-up.
func measuredFrequency(_ samples: [Int16], rate: Double, skip: Int) -> Double {
    var crossings: [Double] = []
    let frames = samples.count / 2
    for i in max(1, skip)..<frames {
        let a = Double(samples[2 * (i - 1)]), b = Double(samples[2 * i])
        if a < 0 && b >= 0 { crossings.append(Double(i - 1) + (-a) / (b - a)) }
    }
    guard crossings.count > 2 else { return 0 }
    return Double(crossings.count - 1) * rate / (crossings.last! - crossings.first!)
}
