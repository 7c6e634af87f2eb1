import Libretro

/// The core's last frame where it lies (valid until its next frame), in the format it is in: a GL
/// frame is read back as XRGB8888 whatever format the core declared for its software frames.
public struct LastFrame {
    public let data: UnsafeRawPointer
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (at least `rowBytes`).
    public let pitch: Int
    public let format: PixelFormat

    /// The bytes of one row's pixels (without the padding up to `pitch`).
    public var rowBytes: Int { width * format.bytesPerPixel }

    /// Writes the frame as packed RGB (`width * height * 3` bytes), converted once, without a copy between.
    public func writeRGB(into destination: UnsafeMutableRawPointer) {
        VideoFrame.writeRGB(
            from: data, width: width, height: height, pitch: pitch, format: format, into: destination)
    }
}

extension Core {
    /// The last frame in place with its own pixel format (nil before the first): the one pairing of
    /// `lastFrameBuffer` with `framePixelFormat` the doors and movie verification read.
    public var lastFrame: LastFrame? {
        lastFrameBuffer.map {
            LastFrame(data: $0.data, width: $0.width, height: $0.height, pitch: $0.pitch, format: framePixelFormat)
        }
    }
}
