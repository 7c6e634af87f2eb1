// The EGL and OpenGL functions Media calls, defined here and forwarded to the system's libraries loaded at
// first use: the binary names no GL library, so it starts where none is installed, and a wheel need not
// carry them (they belong to the machine's driver). Media keeps calling them by their own names (CGL's
// headers); these definitions are hidden, so no library loaded later can bind to them instead of its own.
// A function called before its library loaded does nothing and returns zero (no crash).
#include "gl_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#pragma GCC visibility push(hidden)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *gl_library;
static void *egl_library;
static char gl_error[256];
static char egl_error[256];

static void *open_first(const char *const *names, char *error, size_t size) {
    error[0] = 0;
    for (const char *const *name = names; *name; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library) return library;
        const char *why = dlerror();
        if (!error[0]) snprintf(error, size, "%s", why ? why : *name);
    }
    return NULL;
}

static int load(void **library, const char *const *names, char *remembered, size_t remembered_size,
                char *error, size_t size) {
    pthread_mutex_lock(&lock);
    if (!*library && !remembered[0]) *library = open_first(names, remembered, remembered_size);
    int loaded = *library != NULL;
    if (!loaded && error && size) snprintf(error, size, "%s", remembered);
    pthread_mutex_unlock(&lock);
    return loaded ? 0 : -1;
}

static const char *const gl_names[] = {"libOpenGL.so.0", "libGL.so.1", NULL};
static const char *const egl_names[] = {"libEGL.so.1", NULL};

int gl_loader_load_gl(char *error, size_t size) {
    return load(&gl_library, gl_names, gl_error, sizeof gl_error, error, size);
}

int gl_loader_load_egl(char *error, size_t size) {
    return load(&egl_library, egl_names, egl_error, sizeof egl_error, error, size);
}

/// The function `name` of the library, loading it first; NULL where it cannot be had.
static void *lookup(int egl, const char *name) {
    if ((egl ? gl_loader_load_egl(NULL, 0) : gl_loader_load_gl(NULL, 0)) != 0) return NULL;
    return dlsym(egl ? egl_library : gl_library, name);
}

// Each forwarder resolves its function once; a word-sized pointer is read and written atomically.
#define FORWARD(egl, result, name, parameters, arguments)                                               \
    result name parameters {                                                                           \
        static result(*function) parameters;                                                          \
        result(*known) parameters = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                      \
        if (!known) {                                                                                  \
            known = (result(*) parameters)lookup(egl, #name);                                          \
            if (!known) return (result)0;                                                              \
            __atomic_store_n(&function, known, __ATOMIC_RELEASE);                                      \
        }                                                                                              \
        return known arguments;                                                                        \
    }

#define FORWARD_VOID(egl, name, parameters, arguments)                                                  \
    void name parameters {                                                                             \
        static void(*function) parameters;                                                            \
        void(*known) parameters = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                        \
        if (!known) {                                                                                  \
            known = (void(*) parameters)lookup(egl, #name);                                            \
            if (!known) return;                                                                        \
            __atomic_store_n(&function, known, __ATOMIC_RELEASE);                                      \
        }                                                                                              \
        known arguments;                                                                               \
    }

// The headers' types, spelled out (including them would give these definitions the headers' default
// visibility): EGLBoolean, EGLenum, GLenum, GLuint, GLbitfield are 32-bit unsigned; EGLint, GLint, GLsizei
// 32-bit signed; displays, configs, contexts and surfaces pointers; EGLAttrib is intptr_t.
typedef void *Handle;
typedef void (*Procedure)(void);

FORWARD(1, unsigned, eglBindAPI, (unsigned api), (api))
FORWARD(1, unsigned, eglChooseConfig, (Handle display, const int32_t *attributes, Handle *configs, int32_t size,
                                       int32_t *count), (display, attributes, configs, size, count))
FORWARD(1, Handle, eglCreateContext, (Handle display, Handle config, Handle share, const int32_t *attributes),
        (display, config, share, attributes))
FORWARD(1, Handle, eglCreatePbufferSurface, (Handle display, Handle config, const int32_t *attributes),
        (display, config, attributes))
FORWARD(1, unsigned, eglDestroyContext, (Handle display, Handle context), (display, context))
FORWARD(1, unsigned, eglDestroySurface, (Handle display, Handle surface), (display, surface))
FORWARD(1, Handle, eglGetCurrentContext, (void), ())
FORWARD(1, Handle, eglGetDisplay, (Handle native), (native))
FORWARD(1, int32_t, eglGetError, (void), ())
FORWARD(1, Handle, eglGetPlatformDisplay, (unsigned platform, Handle native, const intptr_t *attributes),
        (platform, native, attributes))
FORWARD(1, Procedure, eglGetProcAddress, (const char *name), (name))
FORWARD(1, unsigned, eglInitialize, (Handle display, int32_t *major, int32_t *minor), (display, major, minor))
FORWARD(1, unsigned, eglMakeCurrent, (Handle display, Handle draw, Handle read, Handle context),
        (display, draw, read, context))
FORWARD(1, const char *, eglQueryString, (Handle display, int32_t name), (display, name))

FORWARD_VOID(0, glBindBuffer, (unsigned target, unsigned buffer), (target, buffer))
FORWARD_VOID(0, glBindFramebuffer, (unsigned target, unsigned framebuffer), (target, framebuffer))
FORWARD_VOID(0, glBindRenderbuffer, (unsigned target, unsigned renderbuffer), (target, renderbuffer))
FORWARD_VOID(0, glBlitFramebuffer,
             (int32_t x0, int32_t y0, int32_t x1, int32_t y1, int32_t dx0, int32_t dy0, int32_t dx1, int32_t dy1,
              unsigned mask, unsigned filter),
             (x0, y0, x1, y1, dx0, dy0, dx1, dy1, mask, filter))
FORWARD(0, unsigned, glCheckFramebufferStatus, (unsigned target), (target))
FORWARD_VOID(0, glClear, (unsigned mask), (mask))
FORWARD_VOID(0, glClearColor, (float red, float green, float blue, float alpha), (red, green, blue, alpha))
FORWARD_VOID(0, glDeleteFramebuffers, (int32_t count, const unsigned *names), (count, names))
FORWARD_VOID(0, glDeleteRenderbuffers, (int32_t count, const unsigned *names), (count, names))
FORWARD_VOID(0, glFlush, (void), ())
FORWARD_VOID(0, glFramebufferRenderbuffer, (unsigned target, unsigned attachment, unsigned kind, unsigned name),
             (target, attachment, kind, name))
FORWARD_VOID(0, glFramebufferTexture2D,
             (unsigned target, unsigned attachment, unsigned kind, unsigned texture, int32_t level),
             (target, attachment, kind, texture, level))
FORWARD_VOID(0, glGenFramebuffers, (int32_t count, unsigned *names), (count, names))
FORWARD_VOID(0, glGenRenderbuffers, (int32_t count, unsigned *names), (count, names))
FORWARD_VOID(0, glGetIntegerv, (unsigned name, int32_t *values), (name, values))
FORWARD_VOID(0, glPixelStorei, (unsigned name, int32_t value), (name, value))
FORWARD_VOID(0, glReadPixels,
             (int32_t x, int32_t y, int32_t width, int32_t height, unsigned format, unsigned type, void *pixels),
             (x, y, width, height, format, type, pixels))
FORWARD_VOID(0, glRenderbufferStorage, (unsigned target, unsigned format, int32_t width, int32_t height),
             (target, format, width, height))
FORWARD_VOID(0, glViewport, (int32_t x, int32_t y, int32_t width, int32_t height), (x, y, width, height))

#pragma GCC visibility pop
