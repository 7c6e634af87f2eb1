import CLibretro

/// A GL entry point as `get_proc_address` hands it to a core.
public typealias GLProcAddress = @convention(c) () -> Void

/// The OpenGL flavours a core may ask for with SET_HW_RENDER.
public enum GLContextKind: Sendable, Equatable {
    /// RETRO_HW_CONTEXT_OPENGL: a compatibility context (any version ≥ 2.1).
    case compatibility
    /// RETRO_HW_CONTEXT_OPENGL_CORE: a core profile of at least `major.minor`.
    case core(major: Int, minor: Int)
    /// RETRO_HW_CONTEXT_OPENGLES2/3/_VERSION: OpenGL ES of at least `major.minor`.
    case es(major: Int, minor: Int)
}

/// What a core asked for with SET_HW_RENDER.
public struct HardwareRenderRequest: Sendable, Equatable {
    public var kind: GLContextKind
    public var depth: Bool
    public var stencil: Bool
    /// Whether the core draws with GL's origin (row 0 at the bottom), so readback must flip.
    public var bottomLeftOrigin: Bool

    public init(kind: GLContextKind, depth: Bool, stencil: Bool, bottomLeftOrigin: Bool) {
        self.kind = kind
        self.depth = depth
        self.stencil = stencil
        self.bottomLeftOrigin = bottomLeftOrigin
    }

    /// How a person would name the context: "OpenGL 3.3 core profile".
    public var contextName: String {
        switch kind {
        case .compatibility: return "OpenGL (compatibility profile)"
        case let .core(major, minor): return "OpenGL \(major).\(minor) core profile"
        case let .es(major, minor): return "OpenGL ES \(major).\(minor)"
        }
    }
}

/// A GL context with a framebuffer a core draws into: offscreen (EGL) or a window's (SDL).
/// Used on the emulation thread only.
public protocol HardwareRenderer: AnyObject {
    /// Makes the context current and gives it a framebuffer of at least `width`×`height`; false when
    /// it could not.
    func prepare(width: Int, height: Int) -> Bool
    /// The framebuffer object the core draws into (`get_current_framebuffer`).
    var framebuffer: UInt { get }
    func procAddress(_ name: UnsafePointer<CChar>) -> GLProcAddress?
    func makeCurrent()
    /// Reads the framebuffer's `width`×`height` corner as packed XRGB8888 into `destination`, top row
    /// first (flipping when the core drew bottom-up).
    func read(into destination: UnsafeMutableRawPointer, width: Int, height: Int, bottomLeftOrigin: Bool)
    /// Releases the context; the renderer is unusable afterwards.
    func destroy()
}

/// Makes a renderer for a request, or throws why it cannot (the text names what failed).
public typealias HardwareRendererFactory = (HardwareRenderRequest) throws -> HardwareRenderer

/// The core's side of hardware rendering: its callbacks, our renderer, and whether its context is live.
final class HardwareRenderState {
    let request: HardwareRenderRequest
    let contextReset: retro_hw_context_reset_t?
    let contextDestroy: retro_hw_context_reset_t?
    var renderer: HardwareRenderer
    /// Whether `context_reset` was called (so `context_destroy` is owed before unload).
    var live = false
    var preparedSize = (width: 0, height: 0)
    /// The last frame read back (XRGB8888), valid until the next frame.
    var readback = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var readbackValid = false

    init(request: HardwareRenderRequest, callback: retro_hw_render_callback, renderer: HardwareRenderer) {
        self.request = request
        contextReset = callback.context_reset
        contextDestroy = callback.context_destroy
        self.renderer = renderer
    }

    deinit { readback.deallocate() }
}

extension HardwareRenderRequest {
    /// The request a callback describes, or why it is not one we can serve.
    init(_ callback: retro_hw_render_callback) throws(HardwareRenderRefusal) {
        let major = Int(callback.version_major)
        let minor = Int(callback.version_minor)
        let kind: GLContextKind
        switch callback.context_type {
        case RETRO_HW_CONTEXT_OPENGL: kind = .compatibility
        case RETRO_HW_CONTEXT_OPENGL_CORE: kind = .core(major: max(major, 3), minor: major < 3 ? 2 : minor)
        case RETRO_HW_CONTEXT_OPENGLES2: kind = .es(major: 2, minor: 0)
        case RETRO_HW_CONTEXT_OPENGLES3: kind = .es(major: 3, minor: 0)
        case RETRO_HW_CONTEXT_OPENGLES_VERSION: kind = .es(major: major, minor: minor)
        case RETRO_HW_CONTEXT_VULKAN:
            throw HardwareRenderRefusal("a Vulkan context, which this frontend does not offer")
        case RETRO_HW_CONTEXT_DIRECT3D:
            throw HardwareRenderRefusal("a Direct3D context, which this frontend does not offer")
        default:
            throw HardwareRenderRefusal(
                "hardware context type \(callback.context_type.rawValue), which this frontend does not know")
        }
        self.init(
            kind: kind, depth: callback.depth, stencil: callback.stencil,
            bottomLeftOrigin: callback.bottom_left_origin)
    }
}

struct HardwareRenderRefusal: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

extension Core {
    /// SET_HW_RENDER: a context we can make is accepted (its callbacks filled in); anything else is
    /// refused with a message naming the context asked for.
    func setHardwareRender(_ data: UnsafeMutableRawPointer?) -> Bool {
        guard let data else { return false }
        let pointer = data.assumingMemoryBound(to: retro_hw_render_callback.self)
        let callback = pointer.pointee
        let request: HardwareRenderRequest
        do { request = try HardwareRenderRequest(callback) } catch {
            log(.warn, "hardware rendering refused: the core asked for \(error.text)")
            return false
        }
        guard let factory = hardwareRendererFactory else {
            log(.warn, "hardware rendering refused: the core asked for \(request.contextName), and this run has no GL")
            return false
        }
        if let previous = hardware, previous.request == request {
            // The same context again (melonDS asks anew from its first retro_run): the one it has serves.
            // It is told the context was lost and gets it back with context_reset before its next frame,
            // as for a new one; no second context is made (a window's GLX context is current on this
            // thread then, and glvnd refuses an EGL one beside it: eglMakeCurrent's EGL_BAD_ACCESS).
            if previous.live { destroyHardwareContext() }
            previous.preparedSize = (0, 0)
            hardware = HardwareRenderState(request: request, callback: callback, renderer: previous.renderer)
            forgetFrame()
        } else {
            if let previous = hardware {
                if previous.live { destroyHardwareContext() }
                previous.renderer.destroy()
                hardware = nil
                forgetFrame()
            }
            do {
                let renderer = try factory(request)
                hardware = HardwareRenderState(request: request, callback: callback, renderer: renderer)
            } catch {
                log(.warn, "hardware rendering refused: the core asked for \(request.contextName): \(error)")
                return false
            }
        }
        pointer.pointee.get_current_framebuffer = { Core.current?.hardware?.renderer.framebuffer ?? 0 }
        pointer.pointee.get_proc_address = { name in
            guard let name, let address = Core.current?.hardware?.renderer.procAddress(name) else { return nil }
            return address
        }
        return true
    }

    /// The largest frame the core may draw: its geometry's maximum (or base), at least 1×1.
    private var hardwareFrameLimit: (width: Int, height: Int) {
        let av = avInfo
        let side = { (a: Int?, b: Int?) in min(max(1, a ?? 0, b ?? 0), Core.maxHardwareFrameSide) }
        return (side(av?.maxWidth, av?.baseWidth), side(av?.maxHeight, av?.baseHeight))
    }

    /// Before a frame: the context is current, its framebuffer fits the geometry, and the core has had
    /// its `context_reset` (first frame, or after the renderer changed).
    @inline(__always)
    func readyHardwareContext() {
        guard let hardware else { return }
        hardware.renderer.makeCurrent()  // A window's renderer may have taken the thread's context.
        let limit = hardwareFrameLimit
        if hardware.live && limit.width <= hardware.preparedSize.width && limit.height <= hardware.preparedSize.height {
            return
        }
        guard hardware.renderer.prepare(width: limit.width, height: limit.height) else {
            reportOnce("hardware framebuffer", "a \(limit.width)x\(limit.height) GL framebuffer (could not be made)")
            return
        }
        hardware.preparedSize = limit
        if !hardware.live {
            hardware.live = true
            hardware.contextReset?()
        }
    }

    /// Hands the core another renderer (a window's instead of the offscreen one) before its first
    /// frame or after: the core is told its context was lost and gets a new one. `factory` makes the
    /// contexts the core asks for from then on (SET_HW_RENDER again, for another kind of context):
    /// the window's, since an offscreen EGL context cannot be current on the thread that draws the window.
    public func replaceHardwareRenderer(_ renderer: HardwareRenderer, factory: HardwareRendererFactory? = nil) {
        guard let hardware else { return }
        if let factory { hardwareRendererFactory = factory }
        if hardware.live { destroyHardwareContext() }
        hardware.renderer.destroy()
        hardware.renderer = renderer
        hardware.preparedSize = (0, 0)
        forgetFrame()
    }

    /// 8192: larger GL framebuffers than any console draws, and a quarter GiB at most.
    static let maxHardwareFrameSide = 8192

    /// A frame drawn into our framebuffer, if it fits what was prepared.
    func hardwareFrameIsSafe(_ width: Int, _ height: Int) -> Bool {
        guard let hardware, hardware.live, width > 0, height > 0, width <= hardware.preparedSize.width,
            height <= hardware.preparedSize.height
        else {
            // A core that grew its geometry during this frame (melonDS's GL scaling) drew into the
            // smaller framebuffer: that frame is dropped quietly, the next one gets a framebuffer its size.
            let limit = hardwareFrameLimit
            if hardware?.live == true, width > 0, height > 0, width <= limit.width, height <= limit.height {
                return false
            }
            reportOnce("hardware frame size", "a GL frame of \(width)x\(height) outside its framebuffer")
            return false
        }
        return true
    }

    /// Ends hardware rendering when its context goes away (the window closes): context_destroy with it
    /// current, then the context. The core draws nothing after this.
    public func releaseHardwareRenderer() {
        guard let hardware else { return }
        destroyHardwareContext()
        hardware.renderer.destroy()
        hardware.preparedSize = (0, 0)
        forgetFrame()
    }

    /// The request the core made, nil for software-rendering cores.
    public var hardwareRenderRequest: HardwareRenderRequest? { hardware?.request }

    /// context_destroy with the context current, as libretro.h wants it (before `retro_unload_game`).
    func destroyHardwareContext() {
        guard let hardware, hardware.live else { return }
        hardware.renderer.makeCurrent()
        hardware.contextDestroy?()
        hardware.live = false
    }

    /// Reads the last hardware frame back into the state's buffer once per frame; nil when there is none.
    func readBackHardwareFrame() -> UnsafeRawPointer? {
        guard let hardware, hardware.live, frameWidth > 0, frameHeight > 0 else { return nil }
        if hardware.readbackValid, let buffer = hardware.readback.baseAddress { return UnsafeRawPointer(buffer) }
        let bytes = frameWidth * frameHeight * 4
        if hardware.readback.count < bytes {
            hardware.readback.deallocate()
            hardware.readback = .allocate(byteCount: bytes, alignment: 16)
        }
        guard let buffer = hardware.readback.baseAddress else { return nil }
        hardware.renderer.makeCurrent()
        hardware.renderer.read(
            into: buffer, width: frameWidth, height: frameHeight, bottomLeftOrigin: hardware.request.bottomLeftOrigin)
        hardware.readbackValid = true
        hardwareReadbacks &+= 1
        return UnsafeRawPointer(buffer)
    }

    /// The format of `lastFrameBuffer` and `currentFrame`: the core's, or XRGB8888 for GL frames.
    public var framePixelFormat: PixelFormat { hardwareFrame ? .xrgb8888 : pixelFormat }

    func hardwareVideoRefresh(_ width: Int, _ height: Int) {
        guard hardwareFrameIsSafe(width, height) else {
            forgetFrame()
            return
        }
        lastFrameData = nil
        hardwareFrame = true
        hardware?.readbackValid = false
        frameWidth = width
        frameHeight = height
        framePitch = width * 4
    }

}
