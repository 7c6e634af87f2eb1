/// Text drawn larger than the font (menus readable in a big window) and polylines (value graphs).
extension Canvas {
    /// The largest text scale: a 16× glyph is 96×128 pixels, more than any window needs.
    public static let maximumTextScale = 16

    /// `text` with each font pixel a `scale`×`scale` square; clipped like every primitive.
    func scaledText(
        x: Int, y: Int, _ string: String, color: UInt32, background: UInt32?, scale: Int
    ) -> (width: Int, height: Int) {
        let size = Self.textSize(string, scale: scale)
        if let background, let ink = Ink(background), size.width > 0, size.height > 0 {
            fillRect(x0: x, y0: y, x1: Self.add(x, size.width - 1), y1: Self.add(y, size.height - 1), ink)
        }
        guard let ink = Ink(color), width > 0, height > 0 else { return size }
        let cellW = BitmapFont.cellWidth * scale, cellH = BitmapFont.cellHeight * scale
        var column = 0
        var gy = y
        for scalar in string.unicodeScalars {
            if scalar == "\n" {
                column = 0
                gy = Self.add(gy, cellH)
                if gy >= height { break }
                continue
            }
            if scalar == "\r" { continue }
            let gx = Self.add(x, column &* cellW)
            column += 1
            guard gy > -cellH, gy < height, gx > -cellW, gx < width else { continue }
            let glyph = BitmapFont.glyph(scalar)
            if glyph.isBlank { continue }
            for row in 0..<BitmapFont.glyphHeight {
                let bits = glyph.row(row)
                if bits == 0 { continue }
                let py = gy + row * scale
                for col in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(col)) != 0 {
                    let px = gx + col * scale
                    fillRect(x0: px, y0: py, x1: px + scale - 1, y1: py + scale - 1, ink)
                }
            }
        }
        return size
    }

    /// Lines joining consecutive points, both ends of each included (a graph of values over time).
    public func polyline(_ points: [(x: Int, y: Int)], color: UInt32) {
        guard let first = points.first else { return }
        if points.count == 1 { return pixel(x: first.x, y: first.y, color: color) }
        for index in 1..<points.count {
            let a = points[index - 1], b = points[index]
            line(x1: a.x, y1: a.y, x2: b.x, y2: b.y, color: color)
        }
    }
}
