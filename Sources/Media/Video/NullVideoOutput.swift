import Libretro

/// Frames nobody sees: headless runs present here, and tests read back what arrived. Nothing is drawn,
/// so presenting costs nothing and `capture` has nothing to give.
public final class NullVideoOutput: VideoOutput {
    /// Presents so far, repeats included (a paused window redraws its last frame too).
    public private(set) var framesPresented = 0
    /// The last frame that came with pixels; nil before the first.
    public private(set) var lastFrameSize: (width: Int, height: Int)?
    public private(set) var lastFormat: PixelFormat?
    public private(set) var lastAspect = 0.0
    /// What `setFullscreen` asked for last, so scripts read back their own request.
    public private(set) var isFullscreen = false

    /// A window that is not there: a run that believes it has one (pacing, pauses, the hud at `window`'s
    /// size, `--stats`), for tests of the windowed loop without a display.
    private let window: (width: Int, height: Int)?

    public init(window: (width: Int, height: Int)? = nil) { self.window = window }

    public var isVisible: Bool { window != nil }
    /// The frame's own size (what a window at scale 1 would measure), or the pretended window's.
    public var windowSize: (width: Int, height: Int) { window ?? lastFrameSize ?? (0, 0) }
    public var vsyncActive: Bool { false }
    public var refreshRate: Double? { nil }

    public func setFullscreen(_ on: Bool) { isFullscreen = on }

    public func present(
        frame: UnsafeRawPointer?, width: Int, height: Int, pitch: Int, format: PixelFormat,
        aspect: Double, emu: Canvas?, hud: Canvas?
    ) {
        framesPresented += 1
        if frame != nil, width > 0, height > 0 {
            lastFrameSize = (width, height)
            lastFormat = format
        }
        lastAspect = aspect
    }

    public func capture() -> RGBAImage? { nil }
}
