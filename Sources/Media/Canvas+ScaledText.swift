/// Text in the built-in font at a whole-number scale: each font pixel drawn as a scale×scale block,
/// so the OSD stays readable in large windows (the 6×8 font alone is tiny at 4× and above).
extension Canvas {
    /// The largest text scale drawn (a script's scale is clamped to 1…this).
    public static let maximumTextScale = 16

    /// The text scale for a surface of this size: one step per 320×240 pixels of the smaller ratio,
    /// at least 1 (a 256×224 game at 3× window scale reads at 2, at 6× at 4).
    public static func readableTextScale(width: Int, height: Int) -> Int {
        min(max(1, min(width / 320, height / 240)), 8)
    }

    /// Draws `string` at `scale` (clamped to 1…`maximumTextScale`); the background fills the scaled box.
    @discardableResult
    public func text(
        x: Int, y: Int, _ string: String, color: UInt32, background: UInt32? = nil, scale: Int
    ) -> (width: Int, height: Int) {
        let scale = min(max(scale, 1), Self.maximumTextScale)
        if scale == 1 { return text(x: x, y: y, string, color: color, background: background) }
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

    /// The size `text` draws at `scale` (clamped like `text`).
    public static func textSize(_ string: String, scale: Int) -> (width: Int, height: Int) {
        let scale = min(max(scale, 1), maximumTextScale)
        let size = textSize(string)
        return (size.width * scale, size.height * scale)
    }
}
