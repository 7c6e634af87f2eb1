// EGL for contexts without a display, and the OpenGL entry points (glvnd's libOpenGL dispatches them
// to whichever context is current, EGL's or SDL's).
#define GL_GLEXT_PROTOTYPES 1
#define EGL_EGLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
