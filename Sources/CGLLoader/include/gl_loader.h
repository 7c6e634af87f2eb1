#ifndef GL_LOADER_H
#define GL_LOADER_H

#include <stddef.h>

/// Loads the system's OpenGL entry points (glvnd's libOpenGL.so.0, else libGL.so.1) the first time a
/// hardware-rendering core asks for them, so the binary starts on machines with no GL at all (a headless
/// server): 0 when loaded, else -1 with why (the library and dlerror's text) in `error`.
int gl_loader_load_gl(char *error, size_t size);

/// The same for EGL (libEGL.so.1), which the offscreen contexts need besides the GL entry points.
int gl_loader_load_egl(char *error, size_t size);

#endif
