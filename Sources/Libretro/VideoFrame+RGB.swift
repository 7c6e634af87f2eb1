import CRetroShim

/// Packed 8-bit RGB, the format bots and image libraries take most often.
extension VideoFrame {
    /// RGBA rows (as `rgba()` gives them) without their alpha bytes.
    public static func rgb(fromRGBA rgba: [UInt8]) -> [UInt8] {
        let count = rgba.count / 4
        var rgb = [UInt8](repeating: 0, count: count * 3)
        rgba.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { destination in
                for index in 0..<count {
                    destination[index * 3] = source[index * 4]
                    destination[index * 3 + 1] = source[index * 4 + 1]
                    destination[index * 3 + 2] = source[index * 4 + 2]
                }
            }
        }
        return rgb
    }
}

extension VideoFrame {
    /// Writes packed RGB (`width * height * 3` bytes) straight from a core's buffer whose rows are
    /// `pitch` bytes apart: the binary control door's screen, converted once, without a copy between.
    public static func writeRGB(
        from data: UnsafeRawPointer, width: Int, height: Int, pitch: Int, format: PixelFormat,
        into destination: UnsafeMutableRawPointer
    ) {
        let out = destination.assumingMemoryBound(to: UInt8.self)
        for row in 0..<height {
            let source = data + row * pitch, target = out + row * width * 3
            switch format {
            case .rgb565: rs_rgb565_to_rgb(source, width, target)
            case .xrgb8888: rs_xrgb8888_to_rgb(source, width, target)
            case .xrgb1555: convert(source, count: width, format: format, into: target, stride: 3)
            }
        }
    }
}
