/* A hardware-rendered (OpenGL) libretro core for the tests: it draws a known picture into the
 * frontend's framebuffer with glClear and scissor boxes only, so every GL version and ES serve it.
 * Its context comes from GL_CORE_CONTEXT at load time: "gl" (default, compatibility), "core33",
 * "gles2", "gles3", "vulkan" (refused by the host), "core99" (a version no one has).
 * GL_CORE_ORIGIN=top asks for a top-left origin; GL_CORE_LIE=1 reports 100000x100000 frames. No content ("no game"); states hold 16 bytes.
 * GL_CORE_ASK_AGAIN asks for a context once more in its first retro_run, as melonDS does: "1" the same
 * one, or a GL_CORE_CONTEXT name for another; refused, it reports it and draws nothing from then on.
 *
 * The picture (image rows top first), W x H = 160 x 120:
 *   background: red = frame * 8 (mod 256), green 0x40, blue 0xFF while B is held else 0
 *   a red 16x16 square at (x, 8), x = 8 + presses of Right (mod 128)
 *   a green 8x8 square in the bottom-right corner */
#include <libretro-common/libretro.h>

#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 160
#define H 120

typedef void (*glBindFramebuffer_t)(GLenum, GLuint);
typedef void (*glViewport_t)(GLint, GLint, GLsizei, GLsizei);
typedef void (*glScissor_t)(GLint, GLint, GLsizei, GLsizei);
typedef void (*glEnable_t)(GLenum);
typedef void (*glClearColor_t)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*glClear_t)(GLbitfield);
typedef const GLubyte *(*glGetString_t)(GLenum);

static glBindFramebuffer_t p_glBindFramebuffer;
static glViewport_t p_glViewport;
static glScissor_t p_glScissor;
static glEnable_t p_glEnable, p_glDisable;
static glClearColor_t p_glClearColor;
static glClear_t p_glClear;
static glGetString_t p_glGetString;

static retro_environment_t env;
static retro_video_refresh_t video;
static retro_audio_sample_batch_t audio_batch;
static retro_input_poll_t input_poll;
static retro_input_state_t input_state;
static struct retro_hw_render_callback hw;
static int16_t sound[800 * 2];
static int context_live, context_resets, top_origin;

/* Everything a state holds (also exposed as system RAM). */
static struct {
    uint32_t frame;
    uint32_t x;
    uint32_t right_held;
    uint32_t blue;
} ram;

static void set_kind(const char *kind);

static void context_reset(void) {
    p_glBindFramebuffer = (glBindFramebuffer_t)hw.get_proc_address("glBindFramebuffer");
    p_glViewport = (glViewport_t)hw.get_proc_address("glViewport");
    p_glScissor = (glScissor_t)hw.get_proc_address("glScissor");
    p_glEnable = (glEnable_t)hw.get_proc_address("glEnable");
    p_glDisable = (glEnable_t)hw.get_proc_address("glDisable");
    p_glClearColor = (glClearColor_t)hw.get_proc_address("glClearColor");
    p_glClear = (glClear_t)hw.get_proc_address("glClear");
    p_glGetString = (glGetString_t)hw.get_proc_address("glGetString");
    context_live = p_glBindFramebuffer && p_glClear && p_glScissor && p_glGetString && p_glGetString(GL_VERSION);
    context_resets++;
    fprintf(stderr, "gl_core: context_reset %d: %s\n", context_resets,
            context_live ? (const char *)p_glGetString(GL_VERSION) : "no GL functions");
}

static void context_destroy(void) {
    fprintf(stderr, "gl_core: context_destroy\n");
    context_live = 0;
}

/* A box in image coordinates (top row 0), drawn with GL's bottom-left scissor unless asked otherwise. */
static void box(int x, int y, int w, int h, float r, float g, float b) {
    p_glScissor(x, top_origin ? y : H - y - h, w, h);
    p_glClearColor(r, g, b, 1.0f);
    p_glClear(GL_COLOR_BUFFER_BIT);
}

void retro_run(void) {
    const char *again = getenv("GL_CORE_ASK_AGAIN");
    if (again && ram.frame == 0 && context_resets <= 1) {
        if (strcmp(again, "1") != 0) set_kind(again);
        if (!env(RETRO_ENVIRONMENT_SET_HW_RENDER, &hw)) {
            fprintf(stderr, "gl_core: SET_HW_RENDER refused in retro_run\n");
            context_live = 0;
        }
    }
    input_poll();
    int right = input_state(0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_RIGHT) != 0;
    if (right && !ram.right_held) ram.x = (ram.x + 1) % 128;
    ram.right_held = right;
    ram.blue = input_state(0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_B) != 0;
    ram.frame++;
    if (!context_live) {
        fprintf(stderr, "gl_core: retro_run without a live context\n");
        video(NULL, W, H, 0);
    } else {
        p_glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)hw.get_current_framebuffer());
        p_glViewport(0, 0, W, H);
        p_glEnable(GL_SCISSOR_TEST);
        box(0, 0, W, H, (float)((ram.frame * 8) & 0xFF) / 255.0f, 64.0f / 255.0f, ram.blue ? 1.0f : 0.0f);
        box(8 + (int)ram.x, 8, 16, 16, 1.0f, 0.0f, 0.0f);
        box(W - 8, H - 8, 8, 8, 0.0f, 1.0f, 0.0f);
        p_glDisable(GL_SCISSOR_TEST);
        int lie = getenv("GL_CORE_LIE") != NULL;
        video(RETRO_HW_FRAME_BUFFER_VALID, lie ? 100000 : W, lie ? 100000 : H, 0);
    }
    audio_batch(sound, 800);
}

bool retro_load_game(const struct retro_game_info *game) {
    (void)game;
    enum retro_pixel_format format = RETRO_PIXEL_FORMAT_XRGB8888;
    env(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format);
    const char *kind = getenv("GL_CORE_CONTEXT");
    const char *origin = getenv("GL_CORE_ORIGIN");
    top_origin = origin && strcmp(origin, "top") == 0;
    memset(&hw, 0, sizeof hw);
    set_kind(kind);
    hw.context_reset = context_reset;
    hw.context_destroy = context_destroy;
    hw.depth = true;
    hw.stencil = true;
    hw.bottom_left_origin = !top_origin;
    if (!env(RETRO_ENVIRONMENT_SET_HW_RENDER, &hw)) {
        fprintf(stderr, "gl_core: SET_HW_RENDER refused\n");
        return false;
    }
    return true;
}

static void set_kind(const char *kind) {
    hw.context_type = RETRO_HW_CONTEXT_OPENGL;
    hw.version_major = hw.version_minor = 0;
    if (kind && strcmp(kind, "core33") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_OPENGL_CORE, hw.version_major = 3, hw.version_minor = 3;
    } else if (kind && strcmp(kind, "core99") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_OPENGL_CORE, hw.version_major = 9, hw.version_minor = 9;
    } else if (kind && strcmp(kind, "gles2") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_OPENGLES2;
    } else if (kind && strcmp(kind, "gles3") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_OPENGLES3;
    } else if (kind && strcmp(kind, "vulkan") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_VULKAN;
    } else if (kind && strcmp(kind, "core31") == 0) {
        hw.context_type = RETRO_HW_CONTEXT_OPENGL_CORE, hw.version_major = 3, hw.version_minor = 1;
    }
}

void retro_unload_game(void) {
    if (context_live) fprintf(stderr, "gl_core: unload with the context still live\n");
}

void retro_set_environment(retro_environment_t cb) {
    env = cb;
    bool no_game = true;
    env(RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME, &no_game);
}
void retro_set_video_refresh(retro_video_refresh_t cb) { video = cb; }
void retro_set_audio_sample(retro_audio_sample_t cb) { (void)cb; }
void retro_set_audio_sample_batch(retro_audio_sample_batch_t cb) { audio_batch = cb; }
void retro_set_input_poll(retro_input_poll_t cb) { input_poll = cb; }
void retro_set_input_state(retro_input_state_t cb) { input_state = cb; }
unsigned retro_api_version(void) { return RETRO_API_VERSION; }
void retro_init(void) {}
void retro_deinit(void) {}

void retro_get_system_info(struct retro_system_info *info) {
    memset(info, 0, sizeof *info);
    info->library_name = "GL test core";
    info->library_version = "1";
    info->valid_extensions = "glt";
}

void retro_get_system_av_info(struct retro_system_av_info *info) {
    memset(info, 0, sizeof *info);
    info->geometry.base_width = W;
    info->geometry.base_height = H;
    info->geometry.max_width = W * 2;
    info->geometry.max_height = H * 2;
    info->geometry.aspect_ratio = 4.0f / 3.0f;
    info->timing.fps = 60.0;
    info->timing.sample_rate = 48000.0;
}

void retro_set_controller_port_device(unsigned port, unsigned device) { (void)port, (void)device; }
void retro_reset(void) { memset(&ram, 0, sizeof ram); }
size_t retro_serialize_size(void) { return sizeof ram; }
bool retro_serialize(void *data, size_t size) {
    if (size < sizeof ram) return false;
    memcpy(data, &ram, sizeof ram);
    return true;
}
bool retro_unserialize(const void *data, size_t size) {
    if (size != sizeof ram) return false;
    memcpy(&ram, data, sizeof ram);
    return true;
}
void retro_cheat_reset(void) {}
void retro_cheat_set(unsigned index, bool enabled, const char *code) { (void)index, (void)enabled, (void)code; }
bool retro_load_game_special(unsigned type, const struct retro_game_info *info, size_t num) {
    (void)type, (void)info, (void)num;
    return false;
}
unsigned retro_get_region(void) { return RETRO_REGION_NTSC; }
void *retro_get_memory_data(unsigned id) { return id == RETRO_MEMORY_SYSTEM_RAM ? &ram : NULL; }
size_t retro_get_memory_size(unsigned id) { return id == RETRO_MEMORY_SYSTEM_RAM ? sizeof ram : 0; }
