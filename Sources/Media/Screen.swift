import Libretro

/// What is shown, apart from the core's own frame: the two overlay surfaces scripts draw on, the window's
/// facts (size, fullscreen) and the host's input devices as last polled. One per run, made by whoever
/// assembles the run and handed to the script host (which draws) and the frontend (which presents and
/// polls); the emulator sees only the composed picture (`overlay(_:)`).
public final class Screen {
    /// Drawn at the core's resolution and kept in screenshots, thumbnails and the doors' screens.
    public let emuCanvas = Canvas(width: 1, height: 1)
    /// Drawn at the window's resolution over everything (OSD, menus, tools); never in a screenshot.
    public let hudCanvas = Canvas(width: 1, height: 1)
    /// Where `emu` drawing goes while a paused picture is redrawn (the frame's own overlay stays as it was).
    public let pausedScratch = Canvas(width: 1, height: 1)
    /// The window's size for the hud surface; nil headless (the hud is then the frame's size and the panel).
    public var windowSize: (width: Int, height: Int)?
    /// Asked for by a script (`gui.fullscreen(on)`); the frontend applies it and reports `isFullscreen`.
    public var fullscreenRequest: Bool?
    public var isFullscreen = false
    /// Host keyboard, mouse and gamepads as scripts see them.
    public var devices = HostDevices()

    public init() {}

    /// Sizes the surfaces for a frame of `width`×`height` and, headless, a side panel of `panel` pixels.
    public func fit(frameWidth width: Int, height: Int, sidePanel panel: Int) {
        if emuCanvas.width != width || emuCanvas.height != height { emuCanvas.resize(width: width, height: height) }
        let window = windowSize ?? (width + panel, height)
        if hudCanvas.width != window.width || hudCanvas.height != window.height {
            hudCanvas.resize(width: window.width, height: window.height)
        }
    }

    /// Draws the `emu` surface over `image` when it is the frame the surface was drawn for.
    public func overlay(_ image: inout RGBAImage) {
        guard emuCanvas.width == image.width && emuCanvas.height == image.height else { return }
        emuCanvas.composite(onto: &image.rgba, width: image.width, height: image.height)
    }
}
