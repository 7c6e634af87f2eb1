import CSDL2
import Glibc
import Libretro

/// The SDL window: the core's frame, scaled and letterboxed, with the script overlays on top.
///
/// Frames go to the GPU in the core's own pixel format through a streaming texture (SDL converts in C
/// where the renderer lacks the format), so presenting costs no per-pixel Swift work. Layers, bottom to
/// top: the game; the `emu` canvas, drawn with the game's destination rectangle so it scales with the
/// game and appears in screenshots; the `hud` canvas at window resolution, drawn 1:1.
///
/// Use from one thread (the emulation thread), like all of SDL's video API.
public final class SDLVideo: VideoOutput {
    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private let options: VideoOptions
    /// SDL's name for the renderer in use ("opengl", "software", …), for diagnostics.
    public let rendererName: String
    /// Whether the renderer actually syncs presents to the display; when false the caller must pace.
    public let vsyncActive: Bool

    private var game = Layer()
    private var gameFormat: UInt32 = 0
    private var emu = Layer()
    private var hud = Layer()
    /// Whether the last present drew the emu layer (capture must redraw exactly what was shown).
    private var emuShown = false
    /// The core's display aspect ratio at the last present.
    private var lastAspect = 0.0
    /// Output pixels kept at the right for a tool's panel (`setSidePanel`); the game is laid out left of it.
    private var sidePanel = 0
    /// The window's width (window coordinates) before the panel appeared, to which it returns.
    private var widthWithoutPanel: Int32?
    /// Room around the game (`setPadding`), and the padding the window's size was last grown for.
    private var padding = ScreenPadding.none
    private var windowPadding = ScreenPadding.none
    /// A hardware-rendering core's context, sharing the renderer's (`makeHardwareRenderer`).
    private var glRenderer: SDLGLRenderer?
    /// Runs first when the window closes: a GL core's context must be destroyed while the window lives.
    public var willClose: (() -> Void)?

    /// One streaming texture and its size.
    private struct Layer {
        var texture: OpaquePointer?
        var width = 0, height = 0
    }

    /// Opens the window at `baseWidth`×`baseHeight` (shown at `aspect`, 0 meaning square pixels) times
    /// `options.scale`, reduced if it would not fit the desktop. Throws when SDL has no usable video
    /// driver or cannot create a window or renderer.
    public init(
        title: String, options: VideoOptions, baseWidth: Int = 256, baseHeight: Int = 224,
        aspect: Double = 0
    ) throws {
        guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else { throw SDLDeviceError("SDL video") }
        // With no display SDL quietly falls back to a driver nobody can see; that is "no window" unless
        // the user asked for it by name (SDL_VIDEODRIVER=offscreen works for tests without X).
        let invisible = ["offscreen", "dummy", "evdev"]
        var driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        // A display that is there but did not answer (an X server busy accepting clients) gets two more tries.
        let displayNamed = getenv("DISPLAY") != nil || getenv("WAYLAND_DISPLAY") != nil
        var retries = 0
        while invisible.contains(driver), SDL_getenv("SDL_VIDEODRIVER") == nil, displayNamed, retries < 2 {
            retries += 1
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            usleep(200_000)
            guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else { throw SDLDeviceError("SDL video") }
            driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        }
        if invisible.contains(driver), SDL_getenv("SDL_VIDEODRIVER") == nil {
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            let why = WindowSystemLibraries.missing() ?? "SDL found only its \(driver) video driver"
            throw SDLDeviceError(noDisplay: why)
        }
        self.options = options
        let base = VideoLayout.baseSize(width: baseWidth, height: baseHeight, aspect: aspect)
        var scale = max(1, options.scale)
        var mode = SDL_DisplayMode()
        if SDL_GetDesktopDisplayMode(0, &mode) == 0 {
            while scale > 1 && (base.width * scale > Int(mode.w) || base.height * scale > Int(mode.h)) { scale -= 1 }
        }
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        if options.fullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        let centered = Int32(0x2FFF_0000)  // SDL_WINDOWPOS_CENTERED, a function-like macro Swift cannot import
        guard
            let window = SDL_CreateWindow(
                title, centered, centered, Int32(base.width * scale),
                Int32(base.height * scale), flags)
        else {
            let error = SDLDeviceError("SDL window")
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            throw error
        }
        let vsyncFlag = options.vsync ? SDL_RENDERER_PRESENTVSYNC.rawValue : 0
        // A GPU renderer when there is one; the software renderer still works on any X server.
        guard
            let renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | vsyncFlag)
                ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue | vsyncFlag)
        else {
            let error = SDLDeviceError("SDL renderer")
            SDL_DestroyWindow(window)
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            throw error
        }
        self.window = window
        self.renderer = renderer
        var info = SDL_RendererInfo()
        SDL_GetRendererInfo(renderer, &info)
        rendererName = info.name.map { String(cString: $0) } ?? "unknown"
        vsyncActive = info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
    }

    deinit {
        willClose?()
        glRenderer?.destroy()
        for texture in [game.texture, emu.texture, hud.texture] { if let texture { SDL_DestroyTexture(texture) } }
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_QuitSubSystem(SDL_INIT_VIDEO)
    }

    // MARK: - Presenting

    /// Shows one frame (see `VideoOutput.present`); a nil frame redraws the last frame's texture unchanged.
    public func present(
        frame: UnsafeRawPointer?, width: Int, height: Int, pitch: Int, format: PixelFormat,
        aspect: Double, emu emuCanvas: Canvas?, hud hudCanvas: Canvas?
    ) {
        if let frame, width > 0, height > 0 {
            let sdlFormat = Self.sdlFormat(format)
            if game.width != width || game.height != height || gameFormat != sdlFormat {
                gameFormat = sdlFormat
                replace(&game, width: width, height: height, format: sdlFormat, blend: SDL_BLENDMODE_NONE)
            }
            if let texture = game.texture {
                var rect = SDL_Rect(x: 0, y: 0, w: Int32(width), h: Int32(height))
                SDL_UpdateTexture(texture, &rect, frame, Int32(pitch))
            }
        }
        lastAspect = aspect
        if windowPadding != padding { growWindowForPadding() }
        emuShown = false
        if let emuCanvas, !emuCanvas.isEmpty {
            emuShown = upload(emuCanvas, into: &emu)
        }
        drawScene()
        if let hudCanvas, !hudCanvas.isEmpty, upload(hudCanvas, into: &hud), let texture = hud.texture {
            var rect = SDL_Rect(x: 0, y: 0, w: Int32(hud.width), h: Int32(hud.height))
            SDL_RenderCopy(renderer, texture, nil, &rect)
        }
        SDL_RenderPresent(renderer)
    }

    /// The game area as the last `present` showed it: the game and the emu overlay, without the hud, as
    /// RGBA, at the size of the destination rectangle (the frame's own size at scale 1).
    ///
    /// After SDL_RenderPresent the back buffer's contents are undefined, so this redraws the game and emu
    /// layers from their textures into the back buffer and reads that, without presenting: the window
    /// keeps showing the last presented picture (with its hud), and the next `present` clears and redraws
    /// the whole back buffer anyway. Nil before the first frame or when the window has no area.
    public func capture() -> RGBAImage? {
        guard let dest = drawScene() else { return nil }
        var rect = dest.sdl
        var rgba = [UInt8](repeating: 0, count: dest.width * dest.height * 4)
        // ABGR8888 is a packed 32-bit format; on a little-endian host its bytes are R, G, B, A.
        let status = rgba.withUnsafeMutableBytes {
            SDL_RenderReadPixels(
                renderer, &rect, SDL_PIXELFORMAT_ABGR8888.rawValue, $0.baseAddress, Int32(dest.width * 4))
        }
        return status == 0 ? RGBAImage(rgba: rgba, width: dest.width, height: dest.height) : nil
    }

    /// Clears the back buffer and draws the game and (if shown last time) emu layers; returns where.
    @discardableResult
    private func drawScene() -> VideoRect? {
        SDL_RenderClear(renderer)
        guard let texture = game.texture else { return nil }
        let dest = paddedRect()
        guard dest.width > 0, dest.height > 0 else { return nil }
        // The game inside the padding (none: the whole rectangle); the emu layer covers the padded picture.
        let p = padding, paddedWidth = game.width + p.left + p.right, paddedHeight = game.height + p.top + p.bottom
        var gameRect = SDL_Rect(
            x: Int32(dest.x + dest.width * p.left / paddedWidth), y: Int32(dest.y + dest.height * p.top / paddedHeight),
            w: Int32(dest.width * game.width / paddedWidth), h: Int32(dest.height * game.height / paddedHeight))
        SDL_RenderCopy(renderer, texture, nil, &gameRect)
        var rect = dest.sdl
        if emuShown, let overlay = emu.texture { SDL_RenderCopy(renderer, overlay, nil, &rect) }
        return dest
    }

    /// Where the game with its padding goes: the padded picture keeps the game's pixel shape.
    private func paddedRect(_ padding: ScreenPadding? = nil) -> VideoRect {
        let size = windowSize, p = padding ?? self.padding
        let width = game.width + p.left + p.right, height = game.height + p.top + p.bottom
        var aspect = lastAspect
        if !p.isNone, game.width > 0, game.height > 0 {
            let pixel =
                lastAspect.isFinite && lastAspect > 0 ? lastAspect * Double(game.height) / Double(game.width) : 1
            aspect = Double(width) * pixel / Double(height)
        }
        return VideoLayout.destinationRect(
            frameWidth: width, frameHeight: height, aspect: aspect,
            outputWidth: max(1, size.width - sidePanel), outputHeight: size.height,
            integerScale: options.integerScale)
    }

    public func setPadding(_ padding: ScreenPadding) {
        self.padding = padding
    }

    /// Grows (or shrinks) the window by the padding's change at the game's current scale, within the desktop;
    /// fullscreen, the game makes room instead.
    private func growWindowForPadding() {
        guard game.width > 0, game.height > 0 else { return }
        let old = windowPadding, new = padding
        windowPadding = new
        guard !isFullscreen else { return }
        let oldWidth = game.width + old.left + old.right, oldHeight = game.height + old.top + old.bottom
        let shown = paddedRect(old)
        guard shown.width > 0, shown.height > 0 else { return }
        let dx = Double(new.left + new.right - old.left - old.right) * Double(shown.width) / Double(oldWidth)
        let dy = Double(new.top + new.bottom - old.top - old.bottom) * Double(shown.height) / Double(oldHeight)
        var windowWidth: Int32 = 0, windowHeight: Int32 = 0
        SDL_GetWindowSize(window, &windowWidth, &windowHeight)
        // Output pixels to window coordinates (they differ on a high-DPI display).
        let ratio = windowWidth > 0 && windowSize.width > 0 ? Double(windowSize.width) / Double(windowWidth) : 1
        var width = Int(windowWidth) + Int((dx / ratio).rounded()),
            height = Int(windowHeight) + Int((dy / ratio).rounded())
        var bounds = SDL_Rect()
        if SDL_GetDisplayBounds(max(0, SDL_GetWindowDisplayIndex(window)), &bounds) == 0, bounds.w > 0, bounds.h > 0 {
            width = min(width, Int(bounds.w))
            height = min(height, Int(bounds.h))
        }
        SDL_SetWindowSize(window, Int32(max(1, width)), Int32(max(1, height)))
    }

    /// A GL context in this window for a hardware-rendering core, whose frames then reach the window by
    /// a GPU copy; nil when the renderer is not SDL's OpenGL one or the context cannot be made.
    public func makeHardwareRenderer(for request: HardwareRenderRequest) -> HardwareRenderer? {
        guard rendererName == "opengl" else { return nil }
        // Another context for a core that asks again (the core has released the previous one).
        glRenderer?.destroy()
        glRenderer = SDLGLRenderer(window: window, renderer: renderer, request: request)
        return glRenderer
    }

    public func presentHardwareFrame(width: Int, height: Int) -> Bool {
        guard let glRenderer, width > 0, height > 0 else { return false }
        let format = SDL_PIXELFORMAT_RGB888.rawValue
        if game.width != width || game.height != height || gameFormat != format {
            gameFormat = format
            replace(&game, width: width, height: height, format: format, blend: SDL_BLENDMODE_NONE)
        }
        guard let texture = game.texture else { return false }
        return glRenderer.copy(into: texture, width: width, height: height)
    }

    /// Copies a canvas into its layer's texture (made or remade at the canvas's size); false if SDL
    /// could not make the texture.
    private func upload(_ canvas: Canvas, into layer: inout Layer) -> Bool {
        if layer.width != canvas.width || layer.height != canvas.height || layer.texture == nil {
            // Straight alpha, as Canvas stores it: SDL_BLENDMODE_BLEND is dst = src·a + dst·(1 − a).
            replace(
                &layer, width: canvas.width, height: canvas.height,
                format: SDL_PIXELFORMAT_ABGR8888.rawValue, blend: SDL_BLENDMODE_BLEND)
        }
        guard let texture = layer.texture else { return false }
        let pitch = Int32(canvas.width * 4)
        canvas.pixels.withUnsafeBytes { _ = SDL_UpdateTexture(texture, nil, $0.baseAddress, pitch) }
        return true
    }

    private func replace(_ layer: inout Layer, width: Int, height: Int, format: UInt32, blend: SDL_BlendMode) {
        if let old = layer.texture { SDL_DestroyTexture(old) }
        layer = Layer()
        guard width > 0, height > 0,
            let texture = SDL_CreateTexture(
                renderer, format, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                Int32(width), Int32(height))
        else { return }
        SDL_SetTextureBlendMode(texture, blend)
        SDL_SetTextureScaleMode(texture, options.smooth ? SDL_ScaleModeLinear : SDL_ScaleModeNearest)
        layer = Layer(texture: texture, width: width, height: height)
    }

    /// The SDL format with the same memory layout as the libretro one: libretro's XRGB8888 is SDL's
    /// RGB888 (a 32-bit word with the top byte unused) and 0RGB1555 is SDL's RGB555.
    static func sdlFormat(_ format: PixelFormat) -> UInt32 {
        switch format {
        case .xrgb8888: return SDL_PIXELFORMAT_RGB888.rawValue
        case .rgb565: return SDL_PIXELFORMAT_RGB565.rawValue
        case .xrgb1555: return SDL_PIXELFORMAT_RGB555.rawValue
        }
    }

    // MARK: - Window

    public var isVisible: Bool { true }

    /// The refresh rate of the display the window is on.
    public var refreshRate: Double? {
        var mode = SDL_DisplayMode()
        let display = max(0, SDL_GetWindowDisplayIndex(window))
        guard SDL_GetCurrentDisplayMode(display, &mode) == 0, mode.refresh_rate > 0 else { return nil }
        return Double(mode.refresh_rate)
    }

    /// The renderer's output size in pixels (what the hud canvas should measure).
    public var windowSize: (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        return (Int(w), Int(h))
    }

    /// Fullscreen at the desktop's resolution (no video mode change, so switching is instant).
    public func setFullscreen(_ on: Bool) {
        SDL_SetWindowFullscreen(window, on ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
    }

    public var isFullscreen: Bool {
        SDL_GetWindowFlags(window) & SDL_WINDOW_FULLSCREEN.rawValue != 0
    }

    public func setSidePanel(width: Int) {
        let width = max(0, width)
        guard width != sidePanel else { return }
        var windowWidth: Int32 = 0, windowHeight: Int32 = 0
        SDL_GetWindowSize(window, &windowWidth, &windowHeight)
        if sidePanel == 0 { widthWithoutPanel = windowWidth }
        sidePanel = width
        // Fullscreen, the game makes room instead.
        guard !isFullscreen, let base = widthWithoutPanel else { return }
        if width == 0 { widthWithoutPanel = nil }
        // The panel in window coordinates (output pixels differ on a high-DPI display), within the desktop.
        let output = windowSize
        let ratio = windowWidth > 0 && output.width > 0 ? Double(output.width) / Double(windowWidth) : 1
        var target = Int(base) + Int((Double(width) / ratio).rounded())
        var bounds = SDL_Rect()
        let onDisplay = SDL_GetDisplayBounds(max(0, SDL_GetWindowDisplayIndex(window)), &bounds) == 0 && bounds.w > 0
        if onDisplay { target = min(target, Int(bounds.w)) }
        SDL_SetWindowSize(window, Int32(max(1, target)), windowHeight)
        // A window widened past the display's right edge moves left until it fits.
        var x: Int32 = 0, y: Int32 = 0
        SDL_GetWindowPosition(window, &x, &y)
        if onDisplay && Int(x) + target > Int(bounds.x) + Int(bounds.w) {
            SDL_SetWindowPosition(window, Int32(max(Int(bounds.x), Int(bounds.x) + Int(bounds.w) - target)), y)
        }
    }

    /// Resizes the window (in window coordinates), e.g. to follow a geometry change.
    public func setWindowSize(width: Int, height: Int) {
        SDL_SetWindowSize(window, Int32(max(1, width)), Int32(max(1, height)))
    }
}

extension VideoRect {
    var sdl: SDL_Rect { SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(width), h: Int32(height)) }
}
