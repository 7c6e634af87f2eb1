/// An 8-bit RGBA drawing surface with straight (non-premultiplied) alpha: the layer the Lua `gui` module
/// draws on, composited over each video frame.
///
/// Colours are `UInt32` 0xAARRGGBB. Every primitive blends "source over" onto the canvas's own pixels,
/// so a half-transparent shape drawn on a transparent canvas keeps its alpha and composites correctly
/// later. Alpha 0 draws nothing. Everything clips to the canvas: any `Int` coordinates and sizes are
/// safe, and the work done is bounded by the visible area, never by the requested one.
///
/// The canvas remembers, row by row, the span of columns drawn on since the last `clear()`, so
/// clearing and compositing cost nothing when nothing was drawn, and only the touched spans otherwise
/// (a status line at the top and one at the bottom cost two strips, not the screen between them).
public final class Canvas {
    // Empty until init's resize gives the canvas its size.
    public private(set) var width = 0
    public private(set) var height = 0

    var storage: [UInt8] = []

    /// Whether anything was drawn since the last clear; if so, rows `dirtyMinY...dirtyMaxY` hold all of
    /// it, row y in columns `spanMin[y]...spanMax[y]` (an empty span when spanMin > spanMax).
    var dirty = false
    var dirtyMinY = 0, dirtyMaxY = -1
    var spanMin: [Int32] = []
    var spanMax: [Int32] = []

    /// The largest width or height a canvas takes; larger requests are clamped.
    public static let maximumSide = 16384

    /// RGBA, row-major, `width * 4` bytes per row, no padding. Writing through this property marks the
    /// whole canvas as drawn on; an array of the wrong size is truncated or zero-padded.
    public var pixels: [UInt8] {
        get { storage }
        set {
            storage = newValue
            normalizeStorage()
            markAll()
        }
        _modify {
            markAll()
            yield &storage
            normalizeStorage()
        }
    }

    /// True when nothing has been drawn since the last `clear()` (or `init`/`resize`).
    public var isEmpty: Bool { !dirty }

    public init(width: Int, height: Int) {
        resize(width: width, height: height)
    }

    /// Changes the size; the canvas is cleared.
    public func resize(width: Int, height: Int) {
        let w = Self.clampSide(width), h = Self.clampSide(height)
        self.width = w
        self.height = h
        storage = [UInt8](repeating: 0, count: w * h * 4)
        spanMin = [Int32](repeating: .max, count: h)
        spanMax = [Int32](repeating: .min, count: h)
        dirty = false
    }

    /// Makes every pixel transparent (zero). Only the spans drawn on since the last clear are touched.
    public func clear() {
        guard dirty else { return }
        dirty = false
        let w = width
        storage.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            for y in dirtyMinY...dirtyMaxY {
                let x0 = Int(spanMin[y]), x1 = Int(spanMax[y])
                guard x0 <= x1 else { continue }
                (base + (y * w + x0) * 4).update(repeating: 0, count: (x1 - x0 + 1) * 4)
                spanMin[y] = .max
                spanMax[y] = .min
            }
        }
    }

    // MARK: - Primitives

    /// Blends one pixel.
    public func pixel(x: Int, y: Int, color: UInt32) {
        guard let ink = Ink(color), x >= 0, y >= 0, x < width, y < height else { return }
        let w = width
        storage.withUnsafeMutableBufferPointer { buf in
            Self.blend(buf.baseAddress! + (y * w + x) * 4, ink)
        }
        mark(x0: x, y0: y, x1: x, y1: y)
    }

    /// A line with both endpoints included (`includingEnd: false`: without the end, for joined segments):
    /// along its major axis one pixel per step, the other
    /// coordinate the nearest to the exact line (ties round away from the start), as Bresenham's
    /// algorithm draws it. Arithmetic is exact for any `Int` endpoints, and the loop starts and ends at
    /// the canvas edges, so a line from -1e9 to 1e9 costs no more than one across the canvas.
    public func line(x1: Int, y1: Int, x2: Int, y2: Int, color: UInt32, includingEnd: Bool = true) {
        guard let ink = Ink(color), width > 0, height > 0 else { return }
        let dx = Int128(x2) - Int128(x1), dy = Int128(y2) - Int128(y1)
        let xMajor = dx.magnitude >= dy.magnitude
        // a: the major axis (one step per pixel), b: the minor one.
        let a0 = Int128(xMajor ? x1 : y1), b0 = Int128(xMajor ? y1 : x1)
        let da = xMajor ? dx : dy, db = xMajor ? dy : dx
        let aLimit = Int128(xMajor ? width : height), bLimit = Int128(xMajor ? height : width)
        let n = da.magnitude, m = db.magnitude  // n ≥ m; both < 2^64
        let sa: Int128 = da < 0 ? -1 : 1, sb: Int128 = db < 0 ? -1 : 1
        // Steps k in 0...n (0..<n without the end point) whose major coordinate a0 + sa·k lies on the canvas.
        var kLo: Int128 = 0, kHi = Int128(n) - (includingEnd ? 0 : 1)
        if sa > 0 {
            kLo = max(kLo, -a0)
            kHi = min(kHi, aLimit - 1 - a0)
        } else {
            kLo = max(kLo, a0 - (aLimit - 1))
            kHi = min(kHi, a0)
        }
        guard kLo <= kHi else { return }
        // k·m = q·n + r, kept exactly (k·m < 2^128) and advanced by m per step.
        var q: UInt128 = 0, r: UInt128 = 0
        if n > 0 {
            let product = UInt128(kLo) * m
            q = product / n
            r = product % n
        }
        let w = width
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        storage.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            var k = kLo
            while k <= kHi {
                let offset = n > 0 && r >= n - r ? q + 1 : q
                let b = b0 + sb * Int128(offset)
                if b >= 0, b < bLimit {
                    let a = Int(a0 + sa * k), bi = Int(b)
                    let x = xMajor ? a : bi, y = xMajor ? bi : a
                    Self.blend(base + (y * w + x) * 4, ink)
                    if x < minX { minX = x }
                    if x > maxX { maxX = x }
                    if y < minY { minY = y }
                    if y > maxY { maxY = y }
                }
                k += 1
                r += m
                if r >= n, n > 0 {
                    r -= n
                    q += 1
                }
            }
        }
        if minX <= maxX { mark(x0: minX, y0: minY, x1: maxX, y1: maxY) }
    }

    /// A rectangle with its top-left corner at (x, y). `fill`, when given, covers the whole rectangle;
    /// the 1-pixel outline in `color` is drawn on top of it. Nothing is drawn when width or height ≤ 0.
    public func rect(x: Int, y: Int, width: Int, height: Int, color: UInt32, fill: UInt32? = nil) {
        guard width > 0, height > 0 else { return }
        let xr = Self.add(x, width - 1), yb = Self.add(y, height - 1)
        if let fill, let ink = Ink(fill) {
            fillRect(x0: x, y0: y, x1: xr, y1: yb, ink)
        }
        guard let ink = Ink(color) else { return }
        hspan(y: y, from: x, to: xr, ink)
        if yb != y { hspan(y: yb, from: x, to: xr, ink) }
        if height > 2 {
            let top = Self.add(y, 1), bottom = Self.add(yb, -1)
            vspan(x: x, from: top, to: bottom, ink)
            if xr != x { vspan(x: xr, from: top, to: bottom, ink) }
        }
    }

    /// A circle of the pixels within `radius + ½` of the centre: `color` outlines it, `fill` (when
    /// given) covers the whole disc under the outline. The outline is one pixel thick, 8-connected and
    /// symmetric under every reflection and quarter turn. Radius 0 is one pixel; negative, nothing.
    public func circle(cx: Int, cy: Int, radius: Int, color: UInt32, fill: UInt32? = nil) {
        guard radius >= 0, width > 0, height > 0 else { return }
        let r = radius
        let firstRow = max(0, Self.add(cy, -r)), lastRow = min(height - 1, Self.add(cy, r))
        guard firstRow <= lastRow else { return }
        if let fill, let ink = Ink(fill) {
            for y in firstRow...lastRow {
                let (dy, overflow) = y.subtractingReportingOverflow(cy)
                guard !overflow else { continue }
                let a = Self.halfWidth(radius: r, dy: dy)
                if a >= 0 { hspan(y: y, from: Self.add(cx, -a), to: Self.add(cx, a), ink) }
            }
        }
        guard let ink = Ink(color) else { return }
        for y in firstRow...lastRow {
            let (dy, overflow) = y.subtractingReportingOverflow(cy)
            guard !overflow else { continue }
            let a = Self.halfWidth(radius: r, dy: dy)
            guard a >= 0 else { continue }
            // A disc pixel is on the outline when a 4-neighbour is outside the disc: at the row's ends,
            // and wherever the row above or below is narrower.
            let inner = min(
                Self.halfWidth(radius: r, dy: Self.add(dy, -1)),
                Self.halfWidth(radius: r, dy: Self.add(dy, 1)))
            let lo = min(max(inner + 1, 0), a)
            hspan(y: y, from: Self.add(cx, lo), to: Self.add(cx, a), ink)
            if a >= 1 { hspan(y: y, from: Self.add(cx, -a), to: Self.add(cx, -max(lo, 1)), ink) }
        }
    }

    /// Draws `string` in the built-in font with its top-left corner at (x, y). `background`, when
    /// given, fills the text's bounding box first. `\n` starts a new line, `\r` is ignored, characters
    /// outside printable ASCII draw as a box. `scale` (1…`maximumTextScale`) draws each font pixel as a
    /// square of that side. Returns the size of the text (see `textSize`).
    @discardableResult
    public func text(
        x: Int, y: Int, _ string: String, color: UInt32, background: UInt32? = nil, scale: Int = 1
    )
        -> (width: Int, height: Int)
    {
        scaledText(
            x: x, y: y, string, color: color, background: background, scale: min(max(scale, 1), Self.maximumTextScale))
    }

    /// The size `text` draws: `BitmapFont.cellWidth` per character of the longest line by
    /// `BitmapFont.cellHeight` per line. The empty string is (0, 0).
    public static func textSize(_ string: String, scale: Int = 1) -> (width: Int, height: Int) {
        guard !string.isEmpty else { return (0, 0) }
        let scale = min(max(scale, 1), maximumTextScale)
        var lines = 1, columns = 0, widest = 0
        for scalar in string.unicodeScalars {
            if scalar == "\n" {
                lines += 1
                columns = 0
            } else if scalar != "\r" {
                columns += 1
                if columns > widest { widest = columns }
            }
        }
        return (widest * BitmapFont.cellWidth * scale, lines * BitmapFont.cellHeight * scale)
    }

    /// Blends an RGBA image (straight alpha, `width * 4` bytes per row) with its top-left corner at
    /// (x, y). Rows missing from a short `rgba` array are not drawn.
    public func image(x: Int, y: Int, rgba: [UInt8], width: Int, height: Int) {
        guard width > 0, height > 0, self.width > 0, self.height > 0, width <= rgba.count / 4 else { return }
        let rows = min(height, rgba.count / (width * 4))
        let x0 = max(x, 0), x1 = min(Self.add(x, width - 1), self.width - 1)
        let y0 = max(y, 0), y1 = min(Self.add(y, rows - 1), self.height - 1)
        guard x0 <= x1, y0 <= y1 else { return }
        let w = self.width
        var drew = false
        rgba.withUnsafeBufferPointer { src in
            storage.withUnsafeMutableBufferPointer { buf in
                let base = buf.baseAddress!, sbase = src.baseAddress!
                for py in y0...y1 {
                    var s = sbase + ((py - y) * width + (x0 - x)) * 4
                    var d = base + (py * w + x0) * 4
                    for _ in x0...x1 {
                        let a = Int(s[3])
                        if a != 0 {
                            Self.blend(d, Ink(r: Int(s[0]), g: Int(s[1]), b: Int(s[2]), a: a))
                            drew = true
                        }
                        s += 4
                        d += 4
                    }
                }
            }
        }
        if drew { mark(x0: x0, y0: y0, x1: x1, y1: y1) }
    }

    // MARK: - Compositing

    /// Blends the canvas over an RGBA frame of the same size (source over; an opaque frame stays
    /// opaque). Does nothing when the canvas is empty. With mismatched sizes only the overlap is used.
    /// `originX`/`originY` (≥ 0) is the canvas pixel that lands on the frame's top-left: a canvas with
    /// padding around the frame (`Screen.padding`) gives the frame only what lies over it.
    public func composite(onto frame: inout [UInt8], width: Int, height: Int, originX: Int = 0, originY: Int = 0) {
        guard dirty, width > 0, height > 0, width <= frame.count / 4, originX >= 0, originY >= 0 else { return }
        let rows = min(height, frame.count / (width * 4))
        let y0 = max(dirtyMinY, originY), y1 = min(dirtyMaxY, originY &+ rows - 1, self.height - 1)
        guard y0 <= y1 else { return }
        let w = self.width
        storage.withUnsafeBufferPointer { src in
            frame.withUnsafeMutableBufferPointer { dst in
                let sbase = src.baseAddress!, dbase = dst.baseAddress!
                for y in y0...y1 {
                    let x0 = max(Int(spanMin[y]), originX), x1 = min(Int(spanMax[y]), originX &+ width - 1)
                    guard x0 <= x1 else { continue }
                    var s = sbase + (y * w + x0) * 4
                    var d = dbase + ((y - originY) * width + x0 - originX) * 4
                    for _ in x0...x1 {
                        let a = Int(s[3])
                        if a != 0 { Self.blend(d, Ink(r: Int(s[0]), g: Int(s[1]), b: Int(s[2]), a: a)) }
                        s += 4
                        d += 4
                    }
                }
            }
        }
    }
}
