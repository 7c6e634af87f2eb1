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
                for index in 0..<count { target[index] = max(target[index], source[index]) }  // no branch: vectorized
            }
        }
    }

    /// Luma of RGB pixels with OpenCV's fixed-point weights: (R·4899 + G·9617 + B·1868 + 8192) >> 14.
    public static func grayscale(_ rgb: [UInt8], pixels: Int) -> [UInt8] {
        let count = min(max(pixels, 0), rgb.count / 3)
        return [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
            rgb.withUnsafeBufferPointer { source in
                grayscale(source.baseAddress!, pixels: count, into: target.baseAddress!)
            }
            initialized = count
        }
    }

    /// The luma of `pixels` RGB pixels at `rgb`, written at `target`.
    public static func grayscale(_ rgb: UnsafePointer<UInt8>, pixels: Int, into target: UnsafeMutablePointer<UInt8>) {
        for pixel in 0..<pixels {
            let red = Int32(rgb[pixel &* 3]), green = Int32(rgb[pixel &* 3 &+ 1]), blue = Int32(rgb[pixel &* 3 &+ 2])
            target[pixel] = UInt8(truncatingIfNeeded: (red &* 4899 &+ green &* 9617 &+ blue &* 1868 &+ 8192) >> 14)
        }
    }

    /// Area-interpolation resize of a `width`×`height` frame of `channels` bytes a pixel to
    /// `toWidth`×`toHeight` (see `AreaResize`). Sizes must be positive and the frame complete.
    public static func resize(
        _ frame: [UInt8], width: Int, height: Int, channels: Int, toWidth: Int, toHeight: Int
    ) -> [UInt8] {
        AreaResize(width: width, height: height, channels: channels, toWidth: toWidth, toHeight: toHeight)
            .apply(frame)
    }
}

/// An area-interpolation resize, its weights computed once for a pair of sizes: each output pixel is
/// Σ overlap_x·overlap_y·value over the source pixels it covers, divided by width·height, rounded
/// half up. Along an axis, source pixel `s` spans [s·destination, (s+1)·destination) and output `d`
/// spans [d·source, (d+1)·source); a weight is their overlap, so each output's weights sum to `source`.
public struct AreaResize {
    public let width: Int, height: Int, channels: Int, toWidth: Int, toHeight: Int
    /// Per axis and output: the first source index, where its weights start in `weights` and how many
    /// (they apply to consecutive sources); flat arrays, so the loops touch no nested array.
    private let across: Axis
    private let down: Axis

    private struct Axis {
        var first: [Int] = [], start: [Int] = [], count: [Int] = [], weights: [Int] = []
    }

    public init(width: Int, height: Int, channels: Int, toWidth: Int, toHeight: Int) {
        precondition(width > 0 && height > 0 && toWidth > 0 && toHeight > 0 && channels > 0)
        (self.width, self.height, self.channels, self.toWidth, self.toHeight) = (
            width, height, channels, toWidth, toHeight
        )
        across = Self.weights(source: width, destination: toWidth)
        down = Self.weights(source: height, destination: toHeight)
    }

    private static func weights(source: Int, destination: Int) -> Axis {
        var axis = Axis()
        for output in 0..<destination {
            let start = output * source, end = start + source
            var index = start / destination
            axis.first.append(index)
            axis.start.append(axis.weights.count)
            while index < source && index * destination < end {
                axis.weights.append(max(0, min(end, (index + 1) * destination) - max(start, index * destination)))
                index += 1
            }
            axis.count.append(axis.weights.count - axis.start[output])
        }
        return axis
    }

    /// The resized frame (`frame` holds at least width·height·channels bytes).
    public func apply(_ frame: [UInt8]) -> [UInt8] {
        precondition(frame.count >= width * height * channels)
        var scratch = Scratch()
        return [UInt8](unsafeUninitializedCapacity: toHeight * toWidth * channels) { result, initialized in
            frame.withUnsafeBufferPointer { apply($0.baseAddress!, into: result.baseAddress!, scratch: &scratch) }
            initialized = toHeight * toWidth * channels
        }
    }

    /// The working sums of `apply`, kept by a caller that resizes every step (no allocation then).
    public struct Scratch {
        var rows: [Int32] = [], columns: [Int32] = [], sums: [Int32] = []
        var line: [UInt16] = []
        public init() {}

        /// `array` as `count` zeros, its storage reused.
        fileprivate static func zeroed(_ array: inout [Int32], _ count: Int) {
            if array.count != count {
                array = [Int32](repeating: 0, count: count)
            } else {
                array.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            }
        }
    }

    /// Resizes the width·height·channels bytes at `frame` into the toWidth·toHeight·channels at `result`.
    public func apply(_ frame: UnsafePointer<UInt8>, into result: UnsafeMutablePointer<UInt8>, scratch: inout Scratch) {
        let rowLength = toWidth * channels, toHeight = toHeight
        if width == toWidth && height == toHeight {
            result.update(from: frame, count: toHeight * rowLength)
            return
        }
        columnSums(frame, &scratch)
        let divisor = width * height
        // (2·sum + divisor) / (2·divisor) by a reciprocal (a division per pixel costs a third of the sums):
        // the divisor is below 2^29, so a quotient that is not whole is at least 2^-29 below the next whole
        // number, while the product's error is under 2^-44; adding 2^-40 before truncating puts a whole
        // quotient computed a hair low back on it, so the result is the integer division's.
        let reciprocal = 1.0 / Double(2 * divisor)
        scratch.sums.withUnsafeBufferPointer { sums in
            // The sums are by output column (see columnSums): written back row by row.
            for column in 0..<rowLength {
                for row in 0..<toHeight {
                    let twice = 2 &* Int(sums[column &* toHeight &+ row]) &+ divisor
                    result[row &* rowLength &+ column] = UInt8(
                        truncatingIfNeeded: Int(Double(twice) * reciprocal + 0x1p-40))
                }
            }
        }
    }

    /// Each output's Σ overlap_x·overlap_y·value in 32 bits (at most 255·width·height < 2^31 for sides up to
    /// 1024), stored by output column (column·toHeight + row) in `scratch.sums`. Both passes are the same
    /// vectorised kernel — a few whole lines added, weighted, into one: down on the source rows, then, after a
    /// transpose, across on the columns of the toHeight rows left. Integer sums in any order are the same
    /// numbers, so the bytes match the reference's.
    private func columnSums(_ frame: UnsafePointer<UInt8>, _ scratch: inout Scratch) {
        let (toWidth, channels, toHeight) = (toWidth, channels, toHeight)
        let sourceLength = width * channels, rowLength = toWidth * channels
        Scratch.zeroed(&scratch.rows, toHeight * sourceLength)
        scratch.rows.withUnsafeMutableBufferPointer { rows in
            // A line's weights sum to the source height: under 258 rows, 16-bit sums cannot overflow (twice
            // the lanes of the 32-bit kernel, whose multiplies SSE2 lacks).
            if height < 258 {
                if scratch.line.count != sourceLength { scratch.line = [UInt16](repeating: 0, count: sourceLength) }
                scratch.line.withUnsafeMutableBufferPointer { line in
                    Self.weighLines16(
                        down, from: frame, length: sourceLength, into: rows.baseAddress!, line: line.baseAddress!)
                }
            } else {
                Self.weighLines(down, from: frame, length: sourceLength, into: rows.baseAddress!)
            }
        }
        // Transposed: line (x·channels + channel) holds that column of every output row (every value written).
        if scratch.columns.count != sourceLength * toHeight {
            scratch.columns = [Int32](repeating: 0, count: sourceLength * toHeight)
        }
        scratch.rows.withUnsafeBufferPointer { rows in
            scratch.columns.withUnsafeMutableBufferPointer { columns in
                for row in 0..<toHeight {
                    for column in 0..<sourceLength {
                        columns[column &* toHeight &+ row] = rows[row &* sourceLength &+ column]
                    }
                }
            }
        }
        Scratch.zeroed(&scratch.sums, rowLength * toHeight)
        scratch.columns.withUnsafeBufferPointer { columns in
            scratch.sums.withUnsafeMutableBufferPointer { sums in
                for channel in 0..<channels {
                    // One channel's lines are every `channels`-th: weighed as if they were consecutive.
                    Self.weighLines(
                        across, from: columns.baseAddress! + channel * toHeight, length: toHeight,
                        into: sums.baseAddress! + channel * toHeight, stride: channels)
                }
            }
        }
    }

    /// `weighLines` on bytes with 16-bit sums (the caller checks they fit), each line widened into `target`.
    private static func weighLines16(
        _ axis: Axis, from source: UnsafePointer<UInt8>, length: Int, into target: UnsafeMutablePointer<Int32>,
        line: UnsafeMutablePointer<UInt16>
    ) {
        axis.first.withUnsafeBufferPointer { first in
            axis.start.withUnsafeBufferPointer { start in
                axis.count.withUnsafeBufferPointer { count in
                    axis.weights.withUnsafeBufferPointer { weights in
                        for output in 0..<first.count {
                            line.update(repeating: 0, count: length)
                            for index in 0..<count[output] {
                                let weight = UInt16(truncatingIfNeeded: weights[start[output] &+ index])
                                let from = source + (first[output] &+ index) &* length
                                for column in 0..<length { line[column] &+= weight &* UInt16(from[column]) }
                            }
                            let out = target + output &* length
                            for column in 0..<length { out[column] = Int32(line[column]) }
                        }
                    }
                }
            }
        }
    }

    /// Output line `o` (of `length` values, `stride` lines apart) = Σ weight·line over the axis's source lines
    /// for `o`; lines of `T` (UInt8 or Int32).
    private static func weighLines<T: BinaryInteger>(
        _ axis: Axis, from source: UnsafePointer<T>, length: Int, into target: UnsafeMutablePointer<Int32>,
        stride: Int = 1
    ) {
        axis.first.withUnsafeBufferPointer { first in
            axis.start.withUnsafeBufferPointer { start in
                axis.count.withUnsafeBufferPointer { count in
                    axis.weights.withUnsafeBufferPointer { weights in
                        for output in 0..<first.count {
                            let line = target + output &* stride &* length
                            for index in 0..<count[output] {
                                let weight = Int32(truncatingIfNeeded: weights[start[output] &+ index])
                                let from = source + (first[output] &+ index) &* stride &* length
                                for column in 0..<length {
                                    line[column] &+= weight &* Int32(truncatingIfNeeded: from[column])
                                }
                            }
                        }
                    }
                }
            }
        }
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
