#include <SDL2/SDL.h>
#include <dlfcn.h>

/* ALSA's error handler is variadic, which Swift cannot write; this one says nothing. */
static void retrolua_alsa_quiet_handler(const char *file, int line, const char *function, int error,
                                        const char *format, ...) {
    (void)file; (void)line; (void)function; (void)error; (void)format;
}

/* Before SDL opens audio: libasound (the library SDL's ALSA backend loads) prints its configuration errors
 * straight to stderr — eight lines on a machine without a sound card, before SDL's own one-line reason,
 * which the caller reports. The library stays loaded, so the handler holds when SDL loads it again. */
static inline void retrolua_quiet_alsa(void) {
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!alsa) return;
    typedef void (*handler_t)(const char *, int, const char *, int, const char *, ...);
    int (*set_handler)(handler_t) = (int (*)(handler_t))dlsym(alsa, "snd_lib_error_set_handler");
    if (set_handler) set_handler(retrolua_alsa_quiet_handler);
}
