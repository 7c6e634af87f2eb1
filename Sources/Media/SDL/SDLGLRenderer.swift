import CGL
import CSDL2
import Libretro

/// A hardware-rendering core's context in the window: an SDL GL context that shares objects with the
/// SDL renderer's own, so a frame goes from the core's framebuffer into the window's game texture by a
/// GPU blit (flipped there when the core draws bottom-up) and the overlays, letterboxing and capture
/// work as for software frames. Nothing is read back unless pixels are asked for.
final class SDLGLRenderer: HardwareRenderer {
    private let window: OpaquePointer
    private let context: SDL_GLContext
    private let rendererContext: SDL_GLContext
    private let request: HardwareRenderRequest
    private let target: GLFramebuffer
    /// In the renderer's context (framebuffer objects are not shared): reading the core's renderbuffer
    /// and drawing into the game texture.
    private var readFramebuffer: GLuint = 0
    private var drawFramebuffer: GLuint = 0
    private var attachedColor: GLuint = 0
    private var destroyed = false

    /// Nil when SDL cannot make the context (the caller keeps the offscreen one).
    init?(window: OpaquePointer, renderer: OpaquePointer, request: HardwareRenderRequest) {
        guard GLLibraries.loadGL() == nil else { return nil }
        // The renderer's context is current after it drew: share with it.
        SDL_RenderFlush(renderer)
        guard let rendererContext = SDL_GL_GetCurrentContext() else { return nil }
        self.window = window
        self.rendererContext = rendererContext
        self.request = request
        SDL_GL_ResetAttributes()
        SDL_GL_SetAttribute(SDL_GL_SHARE_WITH_CURRENT_CONTEXT, 1)
        var es = false
        switch request.kind {
        case .compatibility:
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, Int32(SDL_GL_CONTEXT_PROFILE_COMPATIBILITY.rawValue))
        case let .core(major, minor):
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, Int32(SDL_GL_CONTEXT_PROFILE_CORE.rawValue))
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, Int32(clamping: major))
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, Int32(clamping: minor))
        case let .es(major, minor):
            es = true
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, Int32(SDL_GL_CONTEXT_PROFILE_ES.rawValue))
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, Int32(clamping: major))
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, Int32(clamping: minor))
        }
        let made = SDL_GL_CreateContext(window)
        SDL_GL_ResetAttributes()
        guard let made else {
            SDL_GL_MakeCurrent(window, rendererContext)
            return nil
        }
        context = made
        if case let .es(major, _) = request.kind {
            target = GLFramebuffer(es: true, es2: major < 3)
        } else {
            target = GLFramebuffer(es: es, es2: false)
        }
        SDL_GL_MakeCurrent(window, rendererContext)
    }

    func prepare(width: Int, height: Int) -> Bool {
        makeCurrent()
        return target.make(width: width, height: height, depth: request.depth, stencil: request.stencil)
    }

    var framebuffer: UInt { UInt(target.id) }

    func procAddress(_ name: UnsafePointer<CChar>) -> GLProcAddress? {
        SDL_GL_GetProcAddress(name).map { unsafeBitCast($0, to: GLProcAddress.self) }
    }

    func makeCurrent() {
        if !destroyed && SDL_GL_GetCurrentContext() != context { SDL_GL_MakeCurrent(window, context) }
    }

    func read(into destination: UnsafeMutableRawPointer, width: Int, height: Int, bottomLeftOrigin: Bool) {
        makeCurrent()
        target.read(into: destination, width: width, height: height, bottomLeftOrigin: bottomLeftOrigin)
    }

    /// Blits the core's `width`×`height` frame into `texture` (an SDL texture of that size); false when
    /// the renderer cannot bind it as a GL texture.
    func copy(into texture: OpaquePointer, width: Int, height: Int) -> Bool {
        guard !destroyed, target.color != 0, let w = GLint(exactly: width), let h = GLint(exactly: height) else {
            return false
        }
        makeCurrent()
        glFlush()  // The core's drawing must be done before the other context reads it.
        guard SDL_GL_BindTexture(texture, nil, nil) == 0 else { return false }  // Now in the renderer's context.
        var id: GLint = 0
        var kind = GLenum(GL_TEXTURE_RECTANGLE)
        glGetIntegerv(GLenum(GL_TEXTURE_BINDING_RECTANGLE), &id)
        if id == 0 {
            kind = GLenum(GL_TEXTURE_2D)
            glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &id)
        }
        SDL_GL_UnbindTexture(texture)
        guard id != 0 else { return false }
        if readFramebuffer == 0 {
            glGenFramebuffers(1, &readFramebuffer)
            glGenFramebuffers(1, &drawFramebuffer)
        }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), readFramebuffer)
        if attachedColor != target.color {
            glFramebufferRenderbuffer(
                GLenum(GL_READ_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), target.color)
            attachedColor = target.color
        }
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), drawFramebuffer)
        glFramebufferTexture2D(GLenum(GL_DRAW_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), kind, GLuint(id), 0)
        let flip = request.bottomLeftOrigin
        glBlitFramebuffer(
            0, 0, w, h, 0, flip ? h : 0, w, flip ? 0 : h, GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        return true
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        if readFramebuffer != 0 {
            SDL_GL_MakeCurrent(window, rendererContext)
            glDeleteFramebuffers(1, &readFramebuffer)
            glDeleteFramebuffers(1, &drawFramebuffer)
            readFramebuffer = 0
        }
        makeCurrent()
        target.destroy()
        SDL_GL_MakeCurrent(window, rendererContext)
        SDL_GL_DeleteContext(context)
    }
}
