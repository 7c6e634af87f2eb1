/// Text drawn larger than the font (menus readable in a big window) and polylines (value graphs).
extension Canvas {
    /// The largest text scale: a 16× glyph is 96×128 pixels, more than any window needs.
    public static let maximumTextScale = 16

    /// The text scale for a surface of this size: one step per 320×240 pixels of the smaller ratio,
    /// at least 1 (a 256×224 game at 3× window scale reads at 2, at 6× at 4).
    public static func readableTextScale(width: Int, height: Int) -> Int {
        min(max(1, min(width / 320, height / 240)), 8)
    }

    /// `text` with each font pixel a `scale`×`scale` square (1 too: one drawing path), each run of set
    /// bits in a glyph row one rectangle; clipped like every primitive.
    func scaledText(
        x: Int, y: Int, _ string: String, color: UInt32, background: UInt32?, scale: Int
    ) -> (width: Int, height: Int) {
        let size = Self.textSize(string, scale: scale)
        if let background, let ink = Ink(background), size.width > 0, size.height > 0 {
            fillRect(x0: x, y0: y, x1: Self.add(x, size.width - 1), y1: Self.add(y, size.height - 1), ink)
        }
        guard let ink = Ink(color), width > 0, height > 0 else { return size }
        let w = width, h = height
        let cellW = BitmapFont.cellWidth * scale, cellH = BitmapFont.cellHeight * scale
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        storage.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            var column = 0
            var gy = y
            for scalar in string.unicodeScalars {
                if scalar == "\n" {
                    column = 0
                    gy = Self.add(gy, cellH)
                    if gy >= h { break }
                    continue
                }
                if scalar == "\r" { continue }
                let gx = Self.add(x, column &* cellW)
                column += 1
                // On the canvas or near it: the offsets below stay small.
                guard gy > -cellH, gy < h, gx > -cellW, gx < w else { continue }
                let glyph = BitmapFont.glyph(scalar)
                if glyph.isBlank { continue }
                for row in 0..<BitmapFont.glyphHeight {
                    let bits = glyph.row(row)
                    if bits == 0 { continue }
                    let top = max(gy + row * scale, 0), bottom = min(gy + row * scale + scale - 1, h - 1)
                    guard top <= bottom else { continue }
                    // Each run of set bits in the row is one rectangle.
                    var start = 0
                    while start < BitmapFont.glyphWidth {
                        guard bits & (0x10 >> UInt8(start)) != 0 else {
                            start += 1
                            continue
                        }
                        var end = start
                        while end + 1 < BitmapFont.glyphWidth && bits & (0x10 >> UInt8(end + 1)) != 0 { end += 1 }
                        let left = max(gx + start * scale, 0), right = min(gx + (end + 1) * scale - 1, w - 1)
                        if left <= right {
                            for py in top...bottom {
                                var p = base + (py * w + left) * 4
                                for _ in left...right {
                                    Self.blend(p, ink)
                                    p += 4
                                }
                            }
                            minX = min(minX, left)
                            maxX = max(maxX, right)
                            minY = min(minY, top)
                            maxY = max(maxY, bottom)
                        }
                        start = end + 1
                    }
                }
            }
        }
        if minX <= maxX { mark(x0: minX, y0: minY, x1: maxX, y1: maxY) }
        return size
    }

    /// Lines joining consecutive points (a graph of values over time), each pixel drawn once: a
    /// segment leaves its end to the next, so a see-through colour does not darken the corners.
    public func polyline(_ points: [(x: Int, y: Int)], color: UInt32) {
        guard let first = points.first else { return }
        if points.count == 1 { return pixel(x: first.x, y: first.y, color: color) }
        for index in 1..<points.count {
            let a = points[index - 1], b = points[index]
            line(x1: a.x, y1: a.y, x2: b.x, y2: b.y, color: color, includingEnd: index == points.count - 1)
        }
    }
}
