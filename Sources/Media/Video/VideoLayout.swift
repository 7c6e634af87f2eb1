/// A rectangle in renderer output pixels.
public struct VideoRect: Sendable, Equatable, CustomStringConvertible {
    public var x, y, width, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Where a frame goes in a window: the letterbox and integer-scale arithmetic, the same for every
/// backend (and testable without one).
public enum VideoLayout {
    /// The base size at the display aspect ratio: the height is kept and the width follows the aspect,
    /// as RetroArch does, so integer scaling multiplies whole rows.
    public static func baseSize(width: Int, height: Int, aspect: Double) -> (width: Int, height: Int) {
        let h = max(1, height)
        guard aspect.isFinite, aspect > 0 else { return (max(1, width), h) }
        return (max(1, Int((Double(h) * aspect).rounded())), h)
    }

    /// Where a `frameWidth`×`frameHeight` frame with display aspect `aspect` (≤ 0 or not finite: square
    /// pixels) goes in an output of the given size, centred. Fitting keeps the aspect and fills one
    /// dimension. Integer scaling uses the largest whole multiple n of the base size (see `baseSize`)
    /// that fits; when even n = 1 does not fit, it falls back to fitting.
    public static func destinationRect(
        frameWidth: Int, frameHeight: Int, aspect: Double,
        outputWidth: Int, outputHeight: Int, integerScale: Bool
    ) -> VideoRect {
        guard frameWidth > 0, frameHeight > 0, outputWidth > 0, outputHeight > 0 else {
            return VideoRect(x: 0, y: 0, width: 0, height: 0)
        }
        let ratio = aspect.isFinite && aspect > 0 ? aspect : Double(frameWidth) / Double(frameHeight)
        var w: Int, h: Int
        let base = baseSize(width: frameWidth, height: frameHeight, aspect: ratio)
        let n = min(outputWidth / base.width, outputHeight / base.height)
        if integerScale && n >= 1 {
            (w, h) = (base.width * n, base.height * n)
        } else if Double(outputWidth) / Double(outputHeight) > ratio {
            h = outputHeight
            w = min(outputWidth, max(1, Int((Double(outputHeight) * ratio).rounded())))
        } else {
            w = outputWidth
            h = min(outputHeight, max(1, Int((Double(outputWidth) / ratio).rounded())))
        }
        return VideoRect(x: (outputWidth - w) / 2, y: (outputHeight - h) / 2, width: w, height: h)
    }
}
