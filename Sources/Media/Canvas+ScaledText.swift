/// Text in the built-in font at a whole-number scale (each font pixel a `scale`×`scale` block), so an
/// overlay on a large window stays readable.
extension Canvas {
    /// The largest scale drawn (a font pixel of 16×16 is a 96×128 character).
    public static let maxTextScale = 16

    /// `text(x:y:_:color:background:)` at `scale` (1…`maxTextScale`); returns the scaled size.
    @discardableResult
    public func text(
        x: Int, y: Int, _ string: String, color: UInt32, background: UInt32?, scale: Int
    )
        -> (width: Int, height: Int)
    {
        let scale = min(max(scale, 1), Self.maxTextScale)
        guard scale > 1 else { return text(x: x, y: y, string, color: color, background: background) }
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
            let gx = Self.add(x, column * cellW)
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

    public static func textSize(_ string: String, scale: Int) -> (width: Int, height: Int) {
        let size = textSize(string), scale = min(max(scale, 1), maxTextScale)
        return (size.width * scale, size.height * scale)
    }
}
