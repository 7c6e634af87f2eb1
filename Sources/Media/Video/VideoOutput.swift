import Libretro

/// Where frames go: a window (`SDLVideo`), or nowhere (`NullVideoOutput`: headless runs and tests).
///
/// A frame comes in the core's own pixel format with the two script canvases beside it: `emu`, at the
/// frame's size, is scaled with the game and appears in screenshots; `hud`, at `windowSize`, is drawn
/// 1:1 on top and does not. Use from the emulation thread.
public protocol VideoOutput: AnyObject {
    /// Whether a person sees the frames. Only then does a run play sound, pace itself, drop frames
    /// beyond the display's refresh and size the hud to the window; an output nobody sees takes every
    /// frame as fast as it comes.
    var isVisible: Bool { get }
    /// The drawable size in pixels: what the hud canvas should measure.
    var windowSize: (width: Int, height: Int) { get }
    /// Whether presents wait for the display's refresh (so vsync can pace the run).
    var vsyncActive: Bool { get }
    /// The display's refresh rate in Hz; nil when unknown or there is no display.
    var refreshRate: Double? { get }
    var isFullscreen: Bool { get }
    func setFullscreen(_ on: Bool)
    /// Keeps `width` output pixels at the window's right for a tool's panel (0: none): the window widens by
    /// the change where the desktop has room, and the game is laid out in the rest. The hud still covers
    /// the whole window.
    func setSidePanel(width: Int)
    /// Lays the game out inside `padding` (frame pixels, scaled with the game): the window grows by it, and
    /// the `emu` canvas given to `present` then covers the padded picture.
    func setPadding(_ padding: ScreenPadding)

    /// Shows one frame: `height` rows of `width` pixels, `pitch` bytes apart, in `format`; nil means the
    /// core duplicated the last frame. `aspect` is the core's display aspect ratio (≤ 0: square pixels).
    /// Empty canvases cost nothing.
    func present(
        frame: UnsafeRawPointer?, width: Int, height: Int, pitch: Int, format: PixelFormat,
        aspect: Double, emu: Canvas?, hud: Canvas?)

    /// Takes a hardware-rendering core's `width`×`height` frame straight from its GL framebuffer (for the
    /// next `present` with a nil frame); false when this output cannot, and the frame must be read back.
    func presentHardwareFrame(width: Int, height: Int) -> Bool

    /// The game area as the last present showed it (the game and the emu overlay, not the hud) as RGBA;
    /// nil when nothing was shown.
    func capture() -> RGBAImage?
}

extension VideoOutput {
    public func presentHardwareFrame(width: Int, height: Int) -> Bool { false }
    public func setSidePanel(width: Int) {}
    public func setPadding(_ padding: ScreenPadding) {}
}
