import CGL
import Libretro

/// Why a GL context could not be made: the text names the step and EGL's error.
public struct GLContextError: Error, CustomStringConvertible {
    public let description: String
    init(_ step: String) {
        description = "\(step) failed (EGL error 0x\(String(eglGetError(), radix: 16)))"
    }
    public init(text: String) { description = text }
}

/// An offscreen GL context for hardware-rendering cores: EGL on Mesa's surfaceless platform (no X
/// display, no GPU needed), or a 16×16 pbuffer where that platform is missing. Frames live in a
/// framebuffer object and are read back only when asked for.
public final class EGLHeadlessRenderer: HardwareRenderer {
    private let display: EGLDisplay
    private var context: EGLContext?
    private var surface: EGLSurface?
    private let request: HardwareRenderRequest
    private let target: GLFramebuffer

    /// For `Core(…, hardwareRenderers:)`.
    public static func make(_ request: HardwareRenderRequest) throws -> HardwareRenderer {
        try EGLHeadlessRenderer(request: request)
    }

    public init(request: HardwareRenderRequest) throws(GLContextError) {
        if let missing = GLLibraries.loadEGL() { throw GLContextError(text: missing) }
        self.request = request
        display = try Self.sharedDisplay()
        var es = false
        var es2 = false
        var renderable = EGL_OPENGL_BIT
        var attributes: [EGLint] = []
        switch request.kind {
        case .compatibility:
            attributes = [EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT]
        case let .core(major, minor):
            attributes = [
                EGL_CONTEXT_MAJOR_VERSION, EGLint(clamping: major), EGL_CONTEXT_MINOR_VERSION, EGLint(clamping: minor),
                EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
            ]
        case let .es(major, minor):
            es = true
            es2 = major < 3
            renderable = major >= 3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_ES2_BIT
            attributes = [
                EGL_CONTEXT_MAJOR_VERSION, EGLint(clamping: major), EGL_CONTEXT_MINOR_VERSION, EGLint(clamping: minor),
            ]
        }
        target = GLFramebuffer(es: es, es2: es2)
        guard eglBindAPI(EGLenum(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) == EGLBoolean(EGL_TRUE) else {
            throw GLContextError("eglBindAPI")
        }
        let configAttributes: [EGLint] = [
            EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, renderable,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE,
        ]
        var config: EGLConfig?
        var found: EGLint = 0
        guard eglChooseConfig(display, configAttributes, &config, 1, &found) == EGLBoolean(EGL_TRUE), found > 0 else {
            throw GLContextError(text: "no EGL configuration offers \(request.contextName)")
        }
        guard let made = eglCreateContext(display, config, nil, attributes + [EGL_NONE]) else {
            throw GLContextError("eglCreateContext for \(request.contextName)")
        }
        context = made
        if !Self.hasExtension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context") {
            let size: [EGLint] = [EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE]
            surface = eglCreatePbufferSurface(display, config, size)
        }
        guard eglMakeCurrent(display, surface, surface, made) == EGLBoolean(EGL_TRUE) else {
            let error = GLContextError("eglMakeCurrent")
            destroy()
            throw error
        }
        // Not left current: glvnd refuses a window's GLX context on a thread that holds an EGL one.
        eglMakeCurrent(display, nil, nil, nil)
    }

    public func prepare(width: Int, height: Int) -> Bool {
        makeCurrent()
        return target.make(width: width, height: height, depth: request.depth, stencil: request.stencil)
    }

    public var framebuffer: UInt { UInt(target.id) }

    public func procAddress(_ name: UnsafePointer<CChar>) -> GLProcAddress? {
        eglGetProcAddress(name)
    }

    public func makeCurrent() {
        guard let context, eglGetCurrentContext() != context else { return }
        eglMakeCurrent(display, surface, surface, context)
    }

    public func read(into destination: UnsafeMutableRawPointer, width: Int, height: Int, bottomLeftOrigin: Bool) {
        target.read(into: destination, width: width, height: height, bottomLeftOrigin: bottomLeftOrigin)
    }

    public func destroy() {
        guard let context else { return }
        makeCurrent()
        target.destroy()
        eglMakeCurrent(display, nil, nil, nil)
        if let surface { eglDestroySurface(display, surface) }
        eglDestroyContext(display, context)
        self.context = nil
        surface = nil
    }

    deinit { destroy() }

    /// One display for the process, initialised once (terminating it would end every context on it).
    nonisolated(unsafe) private static var display: EGLDisplay?

    private static func sharedDisplay() throws(GLContextError) -> EGLDisplay {
        if let display { return display }
        let clientExtensions = eglQueryString(nil, EGL_EXTENSIONS)
        var made: EGLDisplay?
        if hasExtension(clientExtensions, "EGL_MESA_platform_surfaceless") {
            made = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil)
        }
        if made == nil { made = eglGetDisplay(nil) }
        guard let made else { throw GLContextError("eglGetDisplay") }
        var major: EGLint = 0
        var minor: EGLint = 0
        guard eglInitialize(made, &major, &minor) == EGLBoolean(EGL_TRUE) else { throw GLContextError("eglInitialize") }
        display = made
        return made
    }

    private static func hasExtension(_ list: UnsafePointer<CChar>?, _ name: String) -> Bool {
        guard let list else { return false }
        return String(cString: list).split(separator: " ").contains { $0 == name }
    }
}
