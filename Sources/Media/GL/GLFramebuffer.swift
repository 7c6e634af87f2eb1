import CGL

/// The framebuffer object a hardware-rendering core draws into: an RGBA8 colour renderbuffer and,
/// when asked for, depth (and stencil). Made and used with its context current.
final class GLFramebuffer {
    private(set) var id: GLuint = 0
    /// The colour renderbuffer: a window's context shares it to copy frames on the GPU.
    private(set) var color: GLuint = 0
    private var depthStencil: GLuint = 0
    private(set) var width = 0
    private(set) var height = 0
    /// OpenGL ES 2 has neither pack buffers nor GL_PACK_ROW_LENGTH.
    private let isES2: Bool
    private let isES: Bool
    private var staging: [UInt8] = []

    init(es: Bool, es2: Bool) {
        isES = es
        isES2 = es2
    }

    /// (Re)makes the framebuffer at `width`×`height`; false (with nothing left bound) when GL refuses.
    func make(width: Int, height: Int, depth: Bool, stencil: Bool) -> Bool {
        destroy()
        guard let w = GLsizei(exactly: width), let h = GLsizei(exactly: height) else { return false }
        glGenFramebuffers(1, &id)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), id)
        glGenRenderbuffers(1, &color)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), color)
        glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGBA8), w, h)
        glFramebufferRenderbuffer(
            GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), color)
        if depth || stencil {
            glGenRenderbuffers(1, &depthStencil)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), depthStencil)
            let format = stencil ? GL_DEPTH24_STENCIL8 : GL_DEPTH_COMPONENT24
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(format), w, h)
            glFramebufferRenderbuffer(
                GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_ATTACHMENT), GLenum(GL_RENDERBUFFER), depthStencil)
            if stencil {
                // Attached twice rather than as GL_DEPTH_STENCIL_ATTACHMENT, which ES 2 lacks.
                glFramebufferRenderbuffer(
                    GLenum(GL_FRAMEBUFFER), GLenum(GL_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), depthStencil)
            }
        }
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
        let complete = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE)
        glViewport(0, 0, w, h)
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT))
        guard complete else {
            destroy()
            return false
        }
        self.width = width
        self.height = height
        return true
    }

    func destroy() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        if id != 0 { glDeleteFramebuffers(1, &id) }
        if color != 0 { glDeleteRenderbuffers(1, &color) }
        if depthStencil != 0 { glDeleteRenderbuffers(1, &depthStencil) }
        id = 0
        color = 0
        depthStencil = 0
        width = 0
        height = 0
    }

    /// Reads the `width`×`height` corner as packed XRGB8888, top row first. Pack state the core may
    /// have changed (a bound pack buffer would turn our pointer into an offset) is set and put back.
    func read(into destination: UnsafeMutableRawPointer, width: Int, height: Int, bottomLeftOrigin: Bool) {
        let w = min(width, self.width)
        let h = min(height, self.height)
        let rowBytes = width * 4
        guard w > 0, h > 0, id != 0 else {
            destination.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes * max(height, 0))
            return
        }
        var savedFramebuffer: GLint = 0
        var savedAlignment: GLint = 4
        var savedPackBuffer: GLint = 0
        var savedRowLength: GLint = 0
        glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &savedFramebuffer)
        glGetIntegerv(GLenum(GL_PACK_ALIGNMENT), &savedAlignment)
        if !isES2 {
            glGetIntegerv(GLenum(GL_PIXEL_PACK_BUFFER_BINDING), &savedPackBuffer)
            glGetIntegerv(GLenum(GL_PACK_ROW_LENGTH), &savedRowLength)
            glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), 0)
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), id)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        let count = w * h * 4
        if staging.count < count { staging = [UInt8](repeating: 0, count: count) }
        staging.withUnsafeMutableBytes { raw in
            // Desktop GL hands out XRGB8888's byte order (BGRA) directly; ES only promises RGBA.
            let format = isES ? GL_RGBA : GL_BGRA
            glReadPixels(0, 0, GLsizei(w), GLsizei(h), GLenum(format), GLenum(GL_UNSIGNED_BYTE), raw.baseAddress)
            if rowBytes > w * 4 || height > h {
                destination.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes * height)
            }
            for row in 0..<h {
                let source = raw.baseAddress! + (bottomLeftOrigin ? h - 1 - row : row) * w * 4
                let target = destination + row * rowBytes
                if isES {
                    Self.swapRedBlue(from: source, to: target, pixels: w)
                } else {
                    target.copyMemory(from: source, byteCount: w * 4)
                }
            }
        }
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), savedAlignment)
        if !isES2 {
            glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), GLuint(truncatingIfNeeded: savedPackBuffer))
            glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), savedRowLength)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), GLuint(truncatingIfNeeded: savedFramebuffer))
    }

    private static func swapRedBlue(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, pixels: Int) {
        for i in 0..<pixels {
            let rgba = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
            let swapped = (rgba & 0xFF00_FF00) | (rgba & 0xFF) << 16 | (rgba >> 16) & 0xFF
            target.storeBytes(of: swapped, toByteOffset: i * 4, as: UInt32.self)
        }
    }
}
