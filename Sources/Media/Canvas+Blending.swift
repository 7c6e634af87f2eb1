/// The pixel arithmetic under every primitive: blending with premultiplied coverage, spans, clipping.
extension Canvas {

    /// A colour split into components; `nil` for alpha 0, which draws nothing.
    struct Ink {
        let r: Int, g: Int, b: Int, a: Int

        init(r: Int, g: Int, b: Int, a: Int) {
            self.r = r; self.g = g; self.b = b; self.a = a
        }

        init?(_ color: UInt32) {
            let a = Int(color >> 24)
            guard a != 0 else { return nil }
            self.init(r: Int((color >> 16) & 0xFF), g: Int((color >> 8) & 0xFF), b: Int(color & 0xFF), a: a)
        }
    }

    /// Straight-alpha "source over" of `ink` onto the RGBA pixel at `p`.
    @inline(__always)
    static func blend(_ p: UnsafeMutablePointer<UInt8>, _ ink: Ink) {
        let a = ink.a
        if a == 255 {
            p[0] = UInt8(truncatingIfNeeded: ink.r)
            p[1] = UInt8(truncatingIfNeeded: ink.g)
            p[2] = UInt8(truncatingIfNeeded: ink.b)
            p[3] = 255
            return
        }
        let da = Int(p[3])
        if da == 0 {
            p[0] = UInt8(truncatingIfNeeded: ink.r)
            p[1] = UInt8(truncatingIfNeeded: ink.g)
            p[2] = UInt8(truncatingIfNeeded: ink.b)
            p[3] = UInt8(truncatingIfNeeded: a)
            return
        }
        let ia = 255 &- a
        if da == 255 {
            p[0] = UInt8(truncatingIfNeeded: (ink.r &* a &+ Int(p[0]) &* ia &+ 127) / 255)
            p[1] = UInt8(truncatingIfNeeded: (ink.g &* a &+ Int(p[1]) &* ia &+ 127) / 255)
            p[2] = UInt8(truncatingIfNeeded: (ink.b &* a &+ Int(p[2]) &* ia &+ 127) / 255)
            return
        }
        // General case, everything scaled by 255: outA = a + da(1 - a); outC = (c·a + d·da(1 - a)) / outA.
        let sw = a &* 255, dw = da &* ia
        let total = sw &+ dw
        let half = total / 2
        p[0] = UInt8(truncatingIfNeeded: (ink.r &* sw &+ Int(p[0]) &* dw &+ half) / total)
        p[1] = UInt8(truncatingIfNeeded: (ink.g &* sw &+ Int(p[1]) &* dw &+ half) / total)
        p[2] = UInt8(truncatingIfNeeded: (ink.b &* sw &+ Int(p[2]) &* dw &+ half) / total)
        p[3] = UInt8(truncatingIfNeeded: (total &+ 127) / 255)
    }

    /// Fills the inclusive rectangle (x0, y0)–(x1, y1), clipped.
    func fillRect(x0: Int, y0: Int, x1: Int, y1: Int, _ ink: Ink) {
        let cx0 = max(x0, 0), cy0 = max(y0, 0), cx1 = min(x1, width - 1), cy1 = min(y1, height - 1)
        guard cx0 <= cx1, cy0 <= cy1 else { return }
        let w = width
        storage.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            for y in cy0...cy1 { Self.span(base + (y * w + cx0) * 4, count: cx1 - cx0 + 1, ink) }
        }
        mark(x0: cx0, y0: cy0, x1: cx1, y1: cy1)
    }

    /// A horizontal run on row y from x0 to x1 inclusive, clipped.
    func hspan(y: Int, from x0: Int, to x1: Int, _ ink: Ink) {
        fillRect(x0: x0, y0: y, x1: x1, y1: y, ink)
    }

    /// A vertical run in column x from y0 to y1 inclusive, clipped.
    func vspan(x: Int, from y0: Int, to y1: Int, _ ink: Ink) {
        fillRect(x0: x, y0: y0, x1: x, y1: y1, ink)
    }

    @inline(__always)
    private static func span(_ start: UnsafeMutablePointer<UInt8>, count: Int, _ ink: Ink) {
        var p = start
        if ink.a == 255 {
            let r = UInt8(truncatingIfNeeded: ink.r), g = UInt8(truncatingIfNeeded: ink.g)
            let b = UInt8(truncatingIfNeeded: ink.b)
            for _ in 0..<count {
                p[0] = r; p[1] = g; p[2] = b; p[3] = 255
                p += 4
            }
        } else {
            for _ in 0..<count {
                blend(p, ink)
                p += 4
            }
        }
    }

    /// Half the width of the disc's row at vertical offset dy: the largest a with a² + dy² ≤ r² + r
    /// (that is, within r + ½ of the centre), or -1 when the row is outside the disc.
    static func halfWidth(radius r: Int, dy: Int) -> Int {
        guard dy.magnitude <= r.magnitude else { return -1 }
        if r <= 1 << 31 {
            let t = r * r + r - dy * dy
            guard t >= 0 else { return -1 }
            var a = Int(Double(t).squareRoot())
            while a * a > t { a -= 1 }
            while (a + 1) * (a + 1) <= t { a += 1 }
            return a
        }
        let rd = Double(r), dd = Double(dy)
        let t = rd * rd + rd - dd * dd
        guard t >= 0 else { return -1 }
        return Int(min(t.squareRoot(), 4.0e18))
    }

    /// Records an already clipped rectangle as drawn on.
    func mark(x0: Int, y0: Int, x1: Int, y1: Int) {
        if dirty {
            if y0 < dirtyMinY { dirtyMinY = y0 }
            if y1 > dirtyMaxY { dirtyMaxY = y1 }
        } else {
            dirty = true
            dirtyMinY = y0
            dirtyMaxY = y1
        }
        let lo = Int32(truncatingIfNeeded: x0), hi = Int32(truncatingIfNeeded: x1)
        spanMin.withUnsafeMutableBufferPointer { mins in
            spanMax.withUnsafeMutableBufferPointer { maxs in
                for y in y0...y1 {
                    if lo < mins[y] { mins[y] = lo }
                    if hi > maxs[y] { maxs[y] = hi }
                }
            }
        }
    }

    func markAll() {
        guard width > 0, height > 0 else { return }
        mark(x0: 0, y0: 0, x1: width - 1, y1: height - 1)
    }

    func normalizeStorage() {
        let count = width * height * 4
        if storage.count > count {
            storage.removeLast(storage.count - count)
        } else if storage.count < count {
            storage.append(contentsOf: repeatElement(0, count: count - storage.count))
        }
    }

    /// Saturating addition, so that far-away coordinates clamp instead of trapping.
    @inline(__always)
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    static func clampSide(_ n: Int) -> Int { min(max(n, 0), maximumSide) }
}
