/// How the window presents frames; the user's settings, as opposed to the core's geometry.
public struct VideoOptions: Sendable, Equatable {
    /// The initial window is the core's base size (at its aspect ratio) times this.
    public var scale = 3
    /// Draw at the largest whole multiple of the base size that fits, so every source pixel becomes the
    /// same number of screen pixels.
    public var integerScale = false
    public var vsync = true
    public var fullscreen = false
    /// Linear filtering when scaling; nearest (sharp pixels) otherwise.
    public var smooth = false

    public init(
        scale: Int = 3, integerScale: Bool = false, vsync: Bool = true, fullscreen: Bool = false,
        smooth: Bool = false
    ) {
        self.scale = scale
        self.integerScale = integerScale
        self.vsync = vsync
        self.fullscreen = fullscreen
        self.smooth = smooth
    }
}
