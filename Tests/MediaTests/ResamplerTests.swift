import Foundation
import XCTest
@testable import Media

final class ResamplerTests: XCTestCase {
    /// Feeds `input` through `resampler` in blocks of about one emulated frame, as a core would.
    private func convert(
        _ input: [Int16], block: Int, ratio: (Int) -> Double, with resampler: Resampler
    ) throws -> [Int16] {
        var output: [Int16] = []
        var offset = 0
        var call = 0
        while offset < input.count / 2 {
            let frames = min(block, input.count / 2 - offset)
            let chunk = try input.withUnsafeBufferPointer { buffer in
                Array(try resampler.process(buffer.baseAddress! + offset * 2, frames: frames, ratio: ratio(call)))
            }
            output += chunk
            offset += frames
            call += 1
        }
        return output
    }

    /// Game Boy audio (32768 Hz) to a 48000 Hz card keeps its pitch and its length.
    func testSineKeepsFrequencyAndLength() throws {
        for quality in [ResamplerQuality.linear, .sincFastest] {
            let inRate = 32768.0, outRate = 48000.0, ratio = outRate / inRate
            let frames = Int(inRate * 2)
            let input = stereoSine(frequency: 440, rate: inRate, frames: frames)
            let resampler = try Resampler(quality: quality)
            let output = try convert(input, block: 549, ratio: { _ in ratio }, with: resampler)
            XCTAssertEqual(output.count % 2, 0)
            let expected = Double(frames) * ratio
            // Only the filter's delay line (a few dozen frames for SINC_FASTEST) is held back.
            XCTAssertEqual(Double(output.count / 2), expected, accuracy: 200, "\(quality)")
            let frequency = measuredFrequency(output, rate: outRate, skip: 2400)
            XCTAssertEqual(frequency, 440, accuracy: 1, "\(quality)")
            let peak = output.map { abs(Int($0)) }.max() ?? 0
            XCTAssertEqual(Double(peak), 12000, accuracy: 600, "\(quality): amplitude kept")
        }
    }

    /// Dynamic rate control changes the ratio every frame: the output must stay a clean, bounded sine.
    func testChangingRatioBetweenCallsStaysClean() throws {
        for quality in [ResamplerQuality.linear, .sincFastest] {
            let inRate = 32768.0, base = 48000.0 / inRate
            let input = stereoSine(frequency: 440, rate: inRate, frames: Int(inRate))
            let resampler = try Resampler(quality: quality)
            // Rate-control sized changes: ±0.5%, alternating every call.
            let output = try convert(
                input, block: 549, ratio: { base * ($0 % 2 == 0 ? 1.005 : 0.995) }, with: resampler)
            let samples = output.map(Double.init)
            XCTAssertLessThanOrEqual(samples.map(abs).max()!, 12000 * 1.05, "\(quality): bounded")
            // A 440 Hz sine at 48 kHz moves at most 2π·440/48000 ≈ 5.8% of its amplitude per sample;
            // a click at a block edge would jump much more.
            var worstStep = 0.0
            for i in stride(from: 2 * 2400, to: samples.count, by: 2) {
                worstStep = max(worstStep, abs(samples[i] - samples[i - 2]))
            }
            XCTAssertLessThan(worstStep, 12000 * 0.07, "\(quality): no discontinuity at block edges")
            XCTAssertEqual(measuredFrequency(output, rate: 48000, skip: 2400), 440, accuracy: 3)

            // Large jumps (1/4× to 4×) must not crash or blow up either.
            let wild = try convert(input, block: 549, ratio: { base * [1, 4, 0.25, 2, 0.5][$0 % 5] }, with: resampler)
            XCTAssertLessThanOrEqual(wild.map { abs(Int($0)) }.max()!, 14000, "\(quality): bounded under large jumps")
        }
    }

    func testBadRatioIsAnErrorNotATrap() throws {
        let resampler = try Resampler(quality: .sincFastest)
        let input = stereoSine(frequency: 440, rate: 48000, frames: 100)
        for ratio in [0, -1, 1000, .infinity, .nan] as [Double] {
            XCTAssertThrowsError(
                try input.withUnsafeBufferPointer {
                    _ = try resampler.process($0.baseAddress!, frames: 100, ratio: ratio)
                }
            ) {
                XCTAssertTrue("\($0)".contains("ratio"), "\($0)")
            }
        }
        // Still usable afterwards.
        let out = try input.withUnsafeBufferPointer {
            Array(try resampler.process($0.baseAddress!, frames: 100, ratio: 1))
        }
        XCTAssertGreaterThan(out.count, 0)
        XCTAssertEqual(
            try input.withUnsafeBufferPointer { try resampler.process($0.baseAddress!, frames: 0, ratio: 1).count }, 0)
    }

    /// Steady state reuses the same output buffer; a block larger than ever before grows it.
    func testOutputBufferIsReused() throws {
        let resampler = try Resampler(quality: .sincFastest)
        let input = stereoSine(frequency: 440, rate: 32768, frames: 40000)
        var addresses = Set<UnsafePointer<Int16>>()
        try input.withUnsafeBufferPointer { buffer in
            for call in 0..<50 {
                let out = try resampler.process(buffer.baseAddress! + call * 1098, frames: 549, ratio: 48000 / 32768)
                if call > 0 { addresses.insert(out.baseAddress!) }
            }
            XCTAssertEqual(addresses.count, 1, "no reallocation per call")
            let big = try resampler.process(buffer.baseAddress!, frames: 30000, ratio: 48000 / 32768)
            XCTAssertEqual(Double(big.count / 2), 30000 * 48000 / 32768, accuracy: 100)
        }
    }

    /// Not a test of speed (it never fails on time): prints the resampler's cost as a share of one
    /// CPU core while converting real-time audio, for the benchmarks page.
    func testReportResamplerCost() throws {
        let cases: [(String, Double, Double, Int)] = [
            ("gambatte 32768 -> 48000", 32768, 48000, 549),
            ("nestopia 48000 -> 48048", 48000, 48048, 799),
        ]
        let seconds = 20.0
        for quality in [ResamplerQuality.sincFastest, .linear, .zeroOrderHold] {
            for (name, inRate, outRate, block) in cases {
                let input = stereoSine(frequency: 440, rate: inRate, frames: Int(inRate * seconds))
                let resampler = try Resampler(quality: quality)
                let start = DispatchTime.now().uptimeNanoseconds
                var produced = 0
                try input.withUnsafeBufferPointer { buffer in
                    var offset = 0
                    while offset + block <= input.count / 2 {
                        produced += try resampler.process(
                            buffer.baseAddress! + offset * 2, frames: block, ratio: outRate / inRate
                        ).count
                        offset += block
                    }
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                print(
                    String(
                        format: "resampler cost: %@ %@: %.3f%% of one core (%.1f s of audio in %.1f ms, %d samples)",
                        quality.rawValue, name, 100 * elapsed / seconds, seconds, elapsed * 1000, produced))
            }
        }
    }
}
