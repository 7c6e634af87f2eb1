/// The pixel formats a software-rendering core may choose with SET_PIXEL_FORMAT.
public enum PixelFormat: UInt32, Sendable, CustomStringConvertible {
    case xrgb1555 = 0  // RETRO_PIXEL_FORMAT_0RGB1555, the libretro default
    case xrgb8888 = 1
    case rgb565 = 2

    public var bytesPerPixel: Int { self == .xrgb8888 ? 4 : 2 }

    public var description: String {
        switch self {
        case .xrgb1555: return "0RGB1555"
        case .xrgb8888: return "XRGB8888"
        case .rgb565: return "RGB565"
        }
    }
}

/// A copy of one video frame in the core's own pixel format, rows packed without pitch padding.
public struct VideoFrame: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    /// `width * height * format.bytesPerPixel` bytes.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, format: PixelFormat, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
    }

    /// Copies `height` rows of `width` pixels from a buffer whose rows are `pitch` bytes apart.
    public init(copying data: UnsafeRawPointer, width: Int, height: Int, pitch: Int, format: PixelFormat) {
        let rowBytes = width * format.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        pixels.withUnsafeMutableBytes { destination in
            for row in 0..<height {
                (destination.baseAddress! + row * rowBytes).copyMemory(from: data + row * pitch, byteCount: rowBytes)
            }
        }
        self.init(width: width, height: height, format: format, pixels: pixels)
    }

    /// The frame as 8-bit RGBA (alpha 255), expanding 5- and 6-bit channels to the full 0…255 range.
    public func rgba() -> [UInt8] {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBufferPointer { destination in
                Self.convert(
                    source.baseAddress!, count: width * height, format: format, into: destination.baseAddress!,
                    stride: 4)
            }
        }
        return out
    }

    /// Writes `count` pixels of `format` as 8-bit R, G, B at `target`, `stride` bytes apart (3: packed
    /// RGB; 4: RGBA, alpha left as it is). The one place pixel formats become colours.
    @inline(__always)
    static func convert(
        _ source: UnsafeRawPointer, count: Int, format: PixelFormat, into target: UnsafeMutablePointer<UInt8>,
        stride: Int
    ) {
        switch format {
        case .xrgb8888:
            for i in 0..<count {
                let pixel = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian
                target[i * stride] = UInt8(truncatingIfNeeded: pixel >> 16)
                target[i * stride + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                target[i * stride + 2] = UInt8(truncatingIfNeeded: pixel)
            }
        case .rgb565:
            convert16(source, count: count, into: target, stride: stride) {
                (expand5($0 >> 11), expand6($0 >> 5), expand5($0))
            }
        case .xrgb1555:
            convert16(source, count: count, into: target, stride: stride) {
                (expand5($0 >> 10), expand5($0 >> 5), expand5($0))
            }
        }
    }

    /// The 16-bit formats' walk: each little-endian pixel through `channels` into R, G, B.
    @inline(__always)
    private static func convert16(
        _ source: UnsafeRawPointer, count: Int, into target: UnsafeMutablePointer<UInt8>, stride: Int,
        _ channels: (UInt32) -> (UInt8, UInt8, UInt8)
    ) {
        for i in 0..<count {
            let pixel = UInt32(source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self).littleEndian)
            (target[i * stride], target[i * stride + 1], target[i * stride + 2]) = channels(pixel)
        }
    }

    /// The colour at (x, y) as 0xRRGGBB.
    public func rgb(x: Int, y: Int) -> UInt32 {
        var colour: (UInt8, UInt8, UInt8) = (0, 0, 0)
        pixels.withUnsafeBytes { source in
            withUnsafeMutableBytes(of: &colour) { target in
                Self.convert(
                    source.baseAddress! + (y * width + x) * format.bytesPerPixel, count: 1, format: format,
                    into: target.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: 3)
            }
        }
        return UInt32(colour.0) << 16 | UInt32(colour.1) << 8 | UInt32(colour.2)
    }
}

@inline(__always) private func expand5(_ value: UInt32) -> UInt8 {
    let v = value & 0x1F
    return UInt8((v << 3) | (v >> 2))
}

@inline(__always) private func expand6(_ value: UInt32) -> UInt8 {
    let v = value & 0x3F
    return UInt8((v << 2) | (v >> 4))
}
