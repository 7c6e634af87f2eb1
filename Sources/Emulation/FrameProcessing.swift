/// Pure functions on frames for reinforcement learning's preprocessing (the binary door's processed
/// steps): element-wise max of two frames, grayscale, area resize — each exact in integers, so a
/// reference written in numpy gives the same bytes — and a small seeded generator (SplitMix64).
/// Frames are rows of `width * channels` bytes, no padding.
public enum FrameProcessing {
    /// `into[k] = max(into[k], other[k])` over the shorter of the two.
    public static func maxPool(_ into: inout [UInt8], _ other: [UInt8]) {
        let count = min(into.count, other.count)
        into.withUnsafeMutableBufferPointer { target in
            other.withUnsafeBufferPointer { source in
                for index in 0..<count where source[index] > target[index] { target[index] = source[index] }
            }
        }
    }

    /// Luma of RGB pixels with OpenCV's fixed-point weights: (R·4899 + G·9617 + B·1868 + 8192) >> 14.
    public static func grayscale(_ rgb: [UInt8], pixels: Int) -> [UInt8] {
        let count = min(max(pixels, 0), rgb.count / 3)
        var gray = [UInt8](repeating: 0, count: count)
        rgb.withUnsafeBufferPointer { source in
            gray.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<count {
                    let red = Int(source[pixel * 3]), green = Int(source[pixel * 3 + 1])
                    let blue = Int(source[pixel * 3 + 2])
                    target[pixel] = UInt8(truncatingIfNeeded: (red * 4899 + green * 9617 + blue * 1868 + 8192) >> 14)
                }
            }
        }
        return gray
    }

    /// The source pixels (index, weight) each output pixel covers along one axis: source pixel `s`
    /// spans [s·destination, (s+1)·destination), output `d` spans [d·source, (d+1)·source); the
    /// weight is their overlap, so each output's weights sum to `source`.
    static func areaWeights(source: Int, destination: Int) -> [[(index: Int, weight: Int)]] {
        (0..<destination).map { output in
            let start = output * source, end = start + source
            var weights: [(index: Int, weight: Int)] = []
            var index = start / destination
            while index < source && index * destination < end {
                let overlap = min(end, (index + 1) * destination) - max(start, index * destination)
                if overlap > 0 { weights.append((index, overlap)) }
                index += 1
            }
            return weights
        }
    }

    /// Area-interpolation resize of a `width`×`height` frame of `channels` bytes a pixel to
    /// `toWidth`×`toHeight`: each output is Σ overlap_x·overlap_y·value over the source pixels it
    /// covers, divided by width·height, rounded half up. Sizes must be positive and the frame complete.
    public static func resize(
        _ frame: [UInt8], width: Int, height: Int, channels: Int, toWidth: Int, toHeight: Int
    ) -> [UInt8] {
        precondition(width > 0 && height > 0 && toWidth > 0 && toHeight > 0 && channels > 0)
        precondition(frame.count >= width * height * channels)
        if width == toWidth && height == toHeight { return Array(frame[0..<(width * height * channels)]) }
        let across = areaWeights(source: width, destination: toWidth)
        let down = areaWeights(source: height, destination: toHeight)
        // Rows first: each source row reduced to toWidth sums (weights sum to `width`).
        var rows = [Int](repeating: 0, count: height * toWidth * channels)
        for row in 0..<height {
            for (output, weights) in across.enumerated() {
                for channel in 0..<channels {
                    var sum = 0
                    for (index, weight) in weights {
                        sum += weight * Int(frame[(row * width + index) * channels + channel])
                    }
                    rows[(row * toWidth + output) * channels + channel] = sum
                }
            }
        }
        let divisor = width * height
        var result = [UInt8](repeating: 0, count: toWidth * toHeight * channels)
        for (output, weights) in down.enumerated() {
            for column in 0..<(toWidth * channels) {
                var sum = 0
                for (index, weight) in weights { sum += weight * rows[index * toWidth * channels + column] }
                result[output * toWidth * channels + column] = UInt8(
                    truncatingIfNeeded: (2 * sum + divisor) / (2 * divisor))
            }
        }
        return result
    }
}

/// SplitMix64 (Steele, Lea and Flood): a seeded generator whose sequence a few lines of Python repeat.
public struct SplitMix64 {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
