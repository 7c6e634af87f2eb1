/// A picture as 8-bit RGBA, rows top to bottom with no padding: the one image type that screenshots,
/// branch thumbnails, overlays, PNG files and the doors' screens share.
public struct RGBAImage: Sendable, Equatable {
    public var rgba: [UInt8]
    public let width: Int
    public let height: Int

    public init(rgba: [UInt8], width: Int, height: Int) {
        self.rgba = rgba
        self.width = width
        self.height = height
    }

    /// The frame converted from the core's pixel format.
    public init(_ frame: VideoFrame) { self.init(rgba: frame.rgba(), width: frame.width, height: frame.height) }
}
