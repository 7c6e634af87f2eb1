import Libretro

/// The processed step's kernels on frames still in the core's own pixel format (RGB565, XRGB8888,
/// XRGB1555, rows packed without padding): the max-pool and the luma need no RGB copy first. Each
/// gives the bytes `FrameProcessing` gives on the frames' RGB: a channel's 8-bit value only grows with
/// its 5-, 6- or 8-bit field, so the max of the fields expands to the max of the channels, and the
/// RGB565 luma is a table of `FrameProcessing.grayscale` over every 16-bit pixel's RGB.
public enum NativeFrameProcessing {
    /// Copies the frame's rows (`rowBytes` of each, `pitch` apart) one after another into `target`.
    public static func copyPacked(_ frame: LastFrame, into target: UnsafeMutableRawPointer) {
        let rowBytes = frame.rowBytes
        if frame.pitch == rowBytes {
            target.copyMemory(from: frame.data, byteCount: rowBytes * frame.height)
            return
        }
        for row in 0..<frame.height {
            (target + row * rowBytes).copyMemory(from: frame.data + row * frame.pitch, byteCount: rowBytes)
        }
    }

    /// `into[k] = max(into[k], other[k])` channel by channel over `pixels` packed pixels of `format`.
    public static func maxPool(
        _ into: UnsafeMutableRawPointer, _ other: UnsafeRawPointer, pixels: Int, format: PixelFormat
    ) {
        switch format {
        case .xrgb8888:
            // Every byte is a channel (or the unused X): a byte-wise max, vectorized by the compiler.
            let target = into.assumingMemoryBound(to: UInt8.self), source = other.assumingMemoryBound(to: UInt8.self)
            for index in 0..<(pixels &* 4) { target[index] = max(target[index], source[index]) }
        case .rgb565: maxPoolFields(into, other, pixels: pixels, masks: (0xF800, 0x07E0, 0x001F))
        case .xrgb1555: maxPoolFields(into, other, pixels: pixels, masks: (0x7C00, 0x03E0, 0x001F))
        }
    }

    private static func maxPoolFields(
        _ into: UnsafeMutableRawPointer, _ other: UnsafeRawPointer, pixels: Int, masks: (UInt16, UInt16, UInt16)
    ) {
        let target = into.assumingMemoryBound(to: UInt16.self), source = other.assumingMemoryBound(to: UInt16.self)
        let (red, green, blue) = masks
        for index in 0..<pixels {
            let mine = target[index], theirs = source[index]
            target[index] =
                max(mine & red, theirs & red) | max(mine & green, theirs & green)
                | max(mine & blue, theirs & blue)
        }
    }

    /// The luma of `pixels` packed pixels of `format` (OpenCV's weights, as `FrameProcessing.grayscale`).
    /// `scratch` holds an RGB copy for XRGB1555 frames (grown as needed).
    public static func grayscale(
        _ source: UnsafeRawPointer, pixels: Int, format: PixelFormat, into target: UnsafeMutablePointer<UInt8>,
        scratch: inout [UInt8]
    ) {
        switch format {
        case .rgb565:
            let from = source.assumingMemoryBound(to: UInt16.self)
            rgb565Luma.withUnsafeBufferPointer { table in
                for index in 0..<pixels { target[index] = table[Int(UInt16(littleEndian: from[index]))] }
            }
        case .xrgb8888:
            let from = source.assumingMemoryBound(to: UInt32.self)
            for index in 0..<pixels {
                let pixel = UInt32(littleEndian: from[index])
                let red = (pixel >> 16) & 0xFF, green = (pixel >> 8) & 0xFF, blue = pixel & 0xFF
                target[index] = UInt8(truncatingIfNeeded: (red &* 4899 &+ green &* 9617 &+ blue &* 1868 &+ 8192) >> 14)
            }
        case .xrgb1555:
            if scratch.count < pixels * 3 { scratch = [UInt8](repeating: 0, count: pixels * 3) }
            scratch.withUnsafeMutableBytes { rgb in
                VideoFrame.writeRGB(
                    from: source, width: pixels, height: 1, pitch: pixels * 2, format: format, into: rgb.baseAddress!)
                FrameProcessing.grayscale(
                    UnsafePointer(rgb.baseAddress!.assumingMemoryBound(to: UInt8.self)), pixels: pixels, into: target)
            }
        }
    }

    /// Every RGB565 pixel's luma, from the same conversion to RGB the screen uses (64 KiB, made once).
    private static let rgb565Luma: [UInt8] = {
        let every = (0..<65536).map { UInt16($0).littleEndian }
        var rgb = [UInt8](repeating: 0, count: 65536 * 3)
        every.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes {
                VideoFrame.writeRGB(
                    from: source.baseAddress!, width: 65536, height: 1, pitch: 65536 * 2, format: .rgb565,
                    into: $0.baseAddress!)
            }
        }
        return FrameProcessing.grayscale(rgb, pixels: 65536)
    }()
}
