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
        guard factor > 1, width > 0, height > 0, rgba.count >= width * height * 4 else { return self }
        let outWidth = width * factor
        var out = [UInt8](repeating: 0, count: outWidth * height * factor * 4)
        rgba.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                let pixels = source.bindMemory(to: UInt32.self)
                let wide = target.bindMemory(to: UInt32.self)
                for y in 0..<height {
                    let row = y * factor * outWidth
                    for x in 0..<width {
                        let pixel = pixels[y * width + x]
                        for dx in 0..<factor { wide[row + x * factor + dx] = pixel }
                    }
                    // The other rows of the block repeat the first.
                    let bytes = outWidth * 4
                    for dy in 1..<factor {
                        (target.baseAddress! + (row + dy * outWidth) * 4).copyMemory(
                            from: target.baseAddress! + row * 4, byteCount: bytes)
                    }
                }
            }
        }
        return RGBAImage(rgba: out, width: outWidth, height: height * factor)
    }
}
