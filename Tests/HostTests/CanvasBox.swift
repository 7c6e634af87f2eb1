import Media

extension Canvas {
    /// The rows and columns holding pixels of `color` (RGBA), as a box; nil when none has it.
    func box(of color: [UInt8]) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        let pixels = self.pixels
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                guard pixels[i] == color[0], pixels[i + 1] == color[1], pixels[i + 2] == color[2],
                    pixels[i + 3] == color[3]
                else { continue }
                (minX, maxX, minY, maxY) = (min(minX, x), max(maxX, x), min(minY, y), max(maxY, y))
            }
        }
        return maxX < 0 ? nil : (minX...maxX, minY...maxY)
    }
}
