import Libretro

/// Room around the game picture, in frame pixels (BizHawk's game extra padding): the `emu` surface covers
/// it, a window grows by it, and a picture taken with it shows it black where nothing was drawn.
public struct ScreenPadding: Equatable, Sendable {
    public var left = 0, top = 0, right = 0, bottom = 0
    public static let none = ScreenPadding()
    /// The most a side may take (a script's number never makes a huge surface).
    public static let maximum = 4096
    public init(left: Int = 0, top: Int = 0, right: Int = 0, bottom: Int = 0) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }
    public var isNone: Bool { self == .none }
}

/// What is shown, apart from the core's own frame: the two overlay surfaces scripts draw on, the window's
/// facts (size, fullscreen) and the host's input devices as last polled. One per run, made by whoever
/// assembles the run and handed to the script host (which draws) and the frontend (which presents and
/// polls); the emulator sees only the composed picture (`overlay(_:)`).
public final class Screen {
    /// Drawn at the core's resolution (and the padding) and kept in screenshots, thumbnails and the doors'
    /// screens.
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
    /// Room around the game (`gui.padding`): the `emu` surface's origin is then the padded top-left.
    public var padding = ScreenPadding.none

    public init() {}

    /// Sizes the surfaces for a frame of `width`×`height` and, headless, a side panel of `panel` pixels.
    public func fit(frameWidth width: Int, height: Int, sidePanel panel: Int) {
        let emuWidth = width + padding.left + padding.right, emuHeight = height + padding.top + padding.bottom
        if emuCanvas.width != emuWidth || emuCanvas.height != emuHeight {
            emuCanvas.resize(width: emuWidth, height: emuHeight)
        }
        let window = windowSize ?? (emuWidth + panel, emuHeight)
        if hudCanvas.width != window.width || hudCanvas.height != window.height {
            hudCanvas.resize(width: window.width, height: window.height)
        }
    }

    /// Draws the `emu` surface over `image` when it is the frame the surface was drawn for (with padding,
    /// the part of the surface over the game).
    public func overlay(_ image: inout RGBAImage) {
        let p = padding
        guard emuCanvas.width == image.width + p.left + p.right, emuCanvas.height == image.height + p.top + p.bottom
        else { return }
        emuCanvas.composite(
            onto: &image.rgba, width: image.width, height: image.height, originX: p.left, originY: p.top)
    }

    /// `frame` (without its overlay) inside the padding, black, with the whole `emu` surface drawn over it: the
    /// picture as a padded window shows it. Without padding, the frame with its overlay.
    public func padded(_ frame: RGBAImage) -> RGBAImage {
        let p = padding
        let width = frame.width + p.left + p.right, height = frame.height + p.top + p.bottom
        guard frame.rgba.count >= frame.width * frame.height * 4 else { return frame }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 3, to: rgba.count, by: 4) { rgba[i] = 255 }
        for y in 0..<frame.height {
            let from = y * frame.width * 4, to = ((y + p.top) * width + p.left) * 4
            rgba.replaceSubrange(to..<to + frame.width * 4, with: frame.rgba[from..<from + frame.width * 4])
        }
        var image = RGBAImage(rgba: rgba, width: width, height: height)
        if emuCanvas.width == width && emuCanvas.height == height {
            emuCanvas.composite(onto: &image.rgba, width: width, height: height)
        }
        return image
    }
}
