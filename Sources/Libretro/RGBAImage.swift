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

    /// Each pixel repeated `factor` times across and down (nearest neighbour), for a small screen shown larger.
    public func scaled(by factor: Int) -> RGBAImage {
        guard factor > 1 else { return self }
        let outWidth = width * factor
        var out = [UInt8](repeating: 0, count: outWidth * height * factor * 4)
        for y in 0..<height {
            let rowStart = y * factor * outWidth * 4
            for x in 0..<width {
                for byte in 0..<4 {
                    let value = rgba[(y * width + x) * 4 + byte]
                    for dx in 0..<factor { out[rowStart + (x * factor + dx) * 4 + byte] = value }
                }
            }
            // The other rows of the block repeat the first.
            for dy in 1..<factor {
                let target = rowStart + dy * outWidth * 4
                out[target..<target + outWidth * 4] = out[rowStart..<rowStart + outWidth * 4]
            }
        }
        return RGBAImage(rgba: out, width: outWidth, height: height * factor)
    }
}
