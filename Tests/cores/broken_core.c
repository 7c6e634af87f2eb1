/* A libretro core that misbehaves in one way, chosen at compile time with -DMODE_<NAME>: the host
 * must survive each (BrokenCoreTests builds one library per mode). Without a mode it is a tiny,
 * well-behaved core: a 64x48 XRGB8888 picture, 64 bytes of save RAM, states, content "*.brk". */
#include <libretro-common/libretro.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define W 64
#define H 48

static retro_environment_t env;
static retro_video_refresh_t video;
static retro_audio_sample_batch_t audio_batch;
static retro_input_poll_t input_poll;
static retro_input_state_t input_state;
static uint32_t picture[W * H];
static uint8_t save_ram[64];
static int16_t sound[800 * 2];
static unsigned frame_count;
__attribute__((unused)) static unsigned power_on_noise;

/* One readable page right before an unreadable one: a size that runs past it would fault. */
__attribute__((unused)) static uint8_t *guarded_page(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    mprotect(p + page, page, PROT_NONE);
    memset(p, 0x40, page);
    return p;
}

__attribute__((unused)) static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Two pages of a file that holds ten bytes: touching the second page raises SIGBUS (mGBA 0.7's video RAM
 * on Game Boy content is like this). */
__attribute__((unused)) static uint8_t *file_short(void) {
    static uint8_t *mapped;
    if (mapped) return mapped;
    char name[] = "/tmp/broken-core-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0) abort();
    unlink(name);
    if (write(fd, "0123456789", 10) != 10) abort();
    mapped = mmap(NULL, page_size() * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED) abort();
    return mapped;
}

/* Every command the host might answer, with NULL data (SHUTDOWN excepted: it needs none). */
__attribute__((unused)) static void environment_with_null(void) {
    for (unsigned command = 0; command < 128; command++) {
        if (command == RETRO_ENVIRONMENT_SHUTDOWN) continue;
        env(command, NULL);
        env(command | RETRO_ENVIRONMENT_EXPERIMENTAL, NULL);
    }
}

static void check_variable(const char *when) {
    struct retro_variable variable = {"broken_opt", NULL};
    int answered = env(RETRO_ENVIRONMENT_GET_VARIABLE, &variable);
    fprintf(stderr, "broken: GET_VARIABLE %s %s=%s\n", when, answered ? "ok" : "refused",
            variable.value ? variable.value : "(null)");
}

#ifdef MODE_HANG_CONSTRUCTOR
__attribute__((constructor)) static void hang_on_load(void) { for (;;) pause(); }
#endif

void retro_set_environment(retro_environment_t cb) {
    env = cb;
    static struct retro_variable variables[] = {{"broken_opt", "Option; one|two"}, {NULL, NULL}};
    env(RETRO_ENVIRONMENT_SET_VARIABLES, variables);
#ifdef MODE_ENV_NULL_SETENV
    environment_with_null();
#endif
#ifdef MODE_NULL_QUERIES
    /* libretro.h: these calls with NULL data ask whether the frontend supports them. */
    fprintf(stderr, "broken: queries savestate_context=%d av_enable=%d fastforwarding=%d throttle=%d\n",
            env(RETRO_ENVIRONMENT_GET_SAVESTATE_CONTEXT, NULL), env(RETRO_ENVIRONMENT_GET_AUDIO_VIDEO_ENABLE, NULL),
            env(RETRO_ENVIRONMENT_GET_FASTFORWARDING, NULL), env(RETRO_ENVIRONMENT_GET_THROTTLE_STATE, NULL));
#endif
#ifdef MODE_OPTIONS_NULL
    static struct retro_variable no_value[] = {{"broken_null", NULL}, {NULL, NULL}};
    env(RETRO_ENVIRONMENT_SET_VARIABLES, no_value);
    struct retro_core_options_v2 empty = {NULL, NULL};
    env(RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2, &empty);
    struct retro_core_options_intl intl = {NULL, NULL};
    env(RETRO_ENVIRONMENT_SET_CORE_OPTIONS_INTL, &intl);
    struct retro_variable nothing = {NULL, NULL};
    env(RETRO_ENVIRONMENT_SET_VARIABLE, &nothing);
    env(RETRO_ENVIRONMENT_GET_VARIABLE, &nothing);
#endif
}
void retro_set_video_refresh(retro_video_refresh_t cb) { video = cb; }
void retro_set_audio_sample(retro_audio_sample_t cb) { (void)cb; }
void retro_set_audio_sample_batch(retro_audio_sample_batch_t cb) { audio_batch = cb; }
void retro_set_input_poll(retro_input_poll_t cb) { input_poll = cb; }
void retro_set_input_state(retro_input_state_t cb) { input_state = cb; }

void retro_init(void) {
#ifdef MODE_HANG_INIT
    for (;;) pause();
#endif
#ifdef MODE_ENV_NULL_INIT
    environment_with_null();
#endif
}
void retro_deinit(void) {}
unsigned retro_api_version(void) { return RETRO_API_VERSION; }

void retro_get_system_info(struct retro_system_info *info) {
#ifdef MODE_HANG_SYSINFO
    for (;;) pause();
#endif
#ifdef MODE_CRASH_SYSINFO
    *(volatile int *)0 = 1;
#endif
    memset(info, 0, sizeof *info);
    info->library_name = "broken";
    info->library_version = "1";
    info->valid_extensions = "brk";
#ifdef MODE_HANG_INIT
    info->valid_extensions = "hang"; /* Chosen only for its own content: it hangs when started. */
#endif
}

void retro_get_system_av_info(struct retro_system_av_info *info) {
    memset(info, 0, sizeof *info);
    info->geometry = (struct retro_game_geometry){W, H, W, H, 4.0f / 3.0f};
    info->timing = (struct retro_system_timing){60.0, 48000.0};
#ifdef MODE_FPS_TINY
    info->timing = (struct retro_system_timing){1e-300, NAN};
#endif
#ifdef MODE_GEOMETRY_ZERO
    info->geometry = (struct retro_game_geometry){0, 0, 0, 0, NAN};
#endif
}

static void frame_time(retro_usec_t usec) { (void)usec; }

static void set_memory_map(void) {
    static struct retro_memory_descriptor descriptors[2];
    struct retro_memory_map map = {descriptors, 2};
    descriptors[0] = (struct retro_memory_descriptor){.ptr = save_ram, .start = 0x6000, .len = sizeof save_ram};
    struct retro_memory_descriptor *bad = &descriptors[1];
    (void)bad;
#ifdef MODE_MMAP_OVERFLOW
    *bad = (struct retro_memory_descriptor){.ptr = save_ram, .start = (size_t)-0x1000, .len = 0x2000};
#endif
#ifdef MODE_MMAP_LEN_HUGE
    *bad = (struct retro_memory_descriptor){.ptr = save_ram, .start = 0x8000, .len = (size_t)1 << 40};
#endif
#ifdef MODE_MMAP_SHORT
    *bad = (struct retro_memory_descriptor){.ptr = guarded_page(), .start = 0x8000, .len = 1 << 20};
#endif
#ifdef MODE_FILE_SHORT
    *bad = (struct retro_memory_descriptor){.ptr = file_short(), .start = 0x8000, .len = 0x2000};
#endif
#ifdef MODE_MMAP_OFFSET_HUGE
    *bad = (struct retro_memory_descriptor){.ptr = save_ram, .offset = (size_t)-16, .start = 0x8000, .len = 64};
#endif
#ifdef MODE_MMAP_SELECT
    *bad = (struct retro_memory_descriptor){
        .ptr = save_ram, .start = 0x8000, .select = 0, .disconnect = (size_t)-1, .len = 3};
#endif
#ifdef MODE_MMAP_COUNT_HUGE
    map.num_descriptors = 0xFFFFFFFFu;
#endif
#ifdef MODE_MMAP_COUNT_PAST
    /* The last descriptor of a page, claiming 500. */
    uint8_t *page = guarded_page();
    struct retro_memory_descriptor *last =
        (struct retro_memory_descriptor *)(page + page_size() - sizeof(struct retro_memory_descriptor));
    *last = descriptors[0];
    map.descriptors = last;
    map.num_descriptors = 500;
#endif
#ifdef MODE_MMAP_NULL
    map.descriptors = NULL;
    map.num_descriptors = 3;
#endif
    env(RETRO_ENVIRONMENT_SET_MEMORY_MAPS, &map);
}

static void environment_nonsense(void) {
#ifdef MODE_PIXEL_FORMAT_BAD
    enum retro_pixel_format format = (enum retro_pixel_format)77;
    env(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format);
    return;
#endif
    enum retro_pixel_format xrgb = RETRO_PIXEL_FORMAT_XRGB8888;
    env(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &xrgb);
#ifdef MODE_AV_NAN
    struct retro_system_av_info av = {{W, H, 0xFFFFFFFFu, 0xFFFFFFFFu, NAN}, {NAN, -1.0}};
    env(RETRO_ENVIRONMENT_SET_SYSTEM_AV_INFO, &av);
#endif
#ifdef MODE_GEOMETRY_HUGE
    struct retro_game_geometry geometry = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, INFINITY};
    env(RETRO_ENVIRONMENT_SET_GEOMETRY, &geometry);
#endif
#ifdef MODE_INPUT_DESC_UNTERMINATED
    /* A page full of descriptors and no terminator. */
    uint8_t *page = guarded_page();
    size_t count = page_size() / sizeof(struct retro_input_descriptor);
    struct retro_input_descriptor *list = (struct retro_input_descriptor *)(page + page_size()) - count;
    for (size_t i = 0; i < count; i++) list[i] = (struct retro_input_descriptor){0, 1, 0, 0, "Button"};
    env(RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS, list);
#endif
#ifdef MODE_CONTROLLER_HUGE
    uint8_t *page = guarded_page();
    struct retro_controller_description *type =
        (struct retro_controller_description *)(page + page_size()) - 1;
    *type = (struct retro_controller_description){"Pad", 1};
    static struct retro_controller_info ports[2];
    ports[0] = (struct retro_controller_info){type, 0xFFFFFFFFu};
    env(RETRO_ENVIRONMENT_SET_CONTROLLER_INFO, ports);
#endif
#ifdef MODE_LOG_NULL
    struct retro_log_callback log = {NULL};
    if (env(RETRO_ENVIRONMENT_GET_LOG_INTERFACE, &log) && log.log) {
        log.log(RETRO_LOG_WARN, NULL);
        log.log(RETRO_LOG_WARN, "%s\n", "broken: logged");
        log.log((enum retro_log_level)99, "odd level\n");
    }
#endif
#ifdef MODE_MESSAGE_NULL
    struct retro_message message = {NULL, 60};
    env(RETRO_ENVIRONMENT_SET_MESSAGE, &message);
    struct retro_message_ext ext = {NULL, 60, 0, RETRO_LOG_WARN, RETRO_MESSAGE_TARGET_ALL, 0, -1};
    env(RETRO_ENVIRONMENT_SET_MESSAGE_EXT, &ext);
#endif
    struct retro_frame_time_callback timing = {frame_time, 16666};
    env(RETRO_ENVIRONMENT_SET_FRAME_TIME_CALLBACK, &timing);
}

bool retro_load_game(const struct retro_game_info *game) {
    (void)game;
#ifdef MODE_LOAD_FAILS
    return false;
#endif
#ifdef MODE_ENV_NULL_LOAD
    environment_with_null();
#endif
    environment_nonsense();
    set_memory_map();
    check_variable("load");
#ifdef MODE_POWER_ON_RANDOM
    /* Memory no one initialises, as some consoles power on: other bytes in every process. */
    power_on_noise = (unsigned)getpid() * 2654435761u;
#endif
    return true;
}
void retro_unload_game(void) {
#ifdef MODE_LOAD_FAILS
    fprintf(stderr, "broken: retro_unload_game called after a failed load\n");
    abort();
#endif
}

static void send_audio(void) {
    const int16_t *samples = sound;
    size_t frames = 800;
#ifdef MODE_AUDIO_HUGE
    frames = (size_t)1 << 40;
#endif
#ifdef MODE_AUDIO_NEGATIVE
    frames = (size_t)-1;
#endif
#ifdef MODE_AUDIO_SHORT
    static uint8_t *page;
    if (!page) page = guarded_page();
    samples = (const int16_t *)page;
    frames = 4000;
#endif
#ifdef MODE_AUDIO_NULL
    samples = NULL;
#endif
    audio_batch(samples, frames);
}

static void send_video(void) {
    const void *data = picture;
    unsigned width = W, height = H;
    size_t pitch = W * 4;
#ifdef MODE_HUGE_PITCH
    pitch = (size_t)1 << 40;
#endif
#ifdef MODE_PITCH_SMALL
    pitch = 4;
#endif
#ifdef MODE_NEGATIVE_PITCH
    pitch = (size_t)-(W * 4);
#endif
#ifdef MODE_NULL_ALWAYS
    data = NULL;
#endif
#ifdef MODE_NULL_ALTERNATE
    if (frame_count % 2 == 0) data = NULL;
#endif
#ifdef MODE_SHORT_BUFFER
    static uint8_t *page;
    if (!page) page = guarded_page();
    data = page;
#endif
#ifdef MODE_HUGE_SIZE
    width = 1u << 30;
    height = 1u << 30;
#endif
#ifdef MODE_ZERO_SIZE
    width = 0;
    height = 0;
#endif
#ifdef MODE_BEYOND_GEOMETRY
    width = 4096;
    height = 4096;
    pitch = 4096 * 4;
#endif
    video(data, width, height, pitch);
}

void retro_run(void) {
    frame_count++;
    input_poll();
    input_state(0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_A);
#ifdef MODE_CRASH_ON_START
    /* A core that faults inside a frame, on the player's say: one emulator of several crashes mid-step. */
    if (input_state(0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_START)) *(volatile int *)(uintptr_t)8 = 1;
#endif
    for (int i = 0; i < W * H; i++) picture[i] = 0x00336699u + frame_count;
#ifdef MODE_POWER_ON_RANDOM
    picture[W * H - 1] ^= power_on_noise;
#endif
#ifdef MODE_CHATTY
    /* A core that talks on stdout through C's stdio (melonDS does): its buffer is cut wherever it fills. */
    printf("broken: frame %u, a line of the core's own chatter on its standard output\n", frame_count);
#endif
#ifdef MODE_NONDETERMINISTIC
    /* State the savestate leaves out: a replay from a state reaches other RAM (netplay-check must say so). */
    static unsigned hidden;
    save_ram[1] = (uint8_t)(save_ram[1] + (++hidden % 7));
#endif
#ifdef MODE_ENV_NULL_RUN
    if (frame_count == 1) environment_with_null();
    if (frame_count == 2) check_variable("run");
#endif
#ifdef MODE_HANG_AT_10
    if (frame_count == 10)
        for (volatile int spin = 1; spin;) {}
#endif
#ifdef MODE_SHUTDOWN_AT_10
    if (frame_count == 10) {
        save_ram[0] = 0x5A;
        env(RETRO_ENVIRONMENT_SHUTDOWN, NULL);
    }
#endif
    send_video();
    send_audio();
}

void retro_set_controller_port_device(unsigned port, unsigned device) { (void)port; (void)device; }
void retro_reset(void) { frame_count = 0; }

size_t retro_serialize_size(void) {
#ifdef MODE_SERIALIZE_HUGE
    return (size_t)1 << 62;
#endif
#ifdef MODE_SERIALIZE_NEGATIVE
    return (size_t)-1;
#endif
#ifdef MODE_SERIALIZE_GAP
    return sizeof frame_count + sizeof save_ram + 16; /* a reserved tail it never writes, as mGBA's fields */
#endif
    return sizeof frame_count + sizeof save_ram;
}
bool retro_serialize(void *data, size_t size) {
#ifdef MODE_SERIALIZE_FAILS
    return false;
#endif
#ifdef MODE_SERIALIZE_AFTER_FIRST_FRAME
    if (frame_count == 0) return false; /* parallel_n64 cannot serialize before its first frame */
#endif
    if (size < sizeof frame_count + sizeof save_ram) return false;
    memcpy(data, &frame_count, sizeof frame_count);
    memcpy((uint8_t *)data + sizeof frame_count, save_ram, sizeof save_ram);
    return true;
}
bool retro_unserialize(const void *data, size_t size) {
#ifdef MODE_UNSERIALIZE_FAILS
    return false;
#endif
    if (size < sizeof frame_count + sizeof save_ram) return false;
    memcpy(&frame_count, data, sizeof frame_count);
    memcpy(save_ram, (const uint8_t *)data + sizeof frame_count, sizeof save_ram);
    return true;
}

void retro_cheat_reset(void) {}
void retro_cheat_set(unsigned index, bool enabled, const char *code) { (void)index; (void)enabled; (void)code; }
bool retro_load_game_special(unsigned type, const struct retro_game_info *info, size_t num) {
    (void)type; (void)info; (void)num;
    return false;
}
unsigned retro_get_region(void) { return RETRO_REGION_NTSC; }

void *retro_get_memory_data(unsigned id) {
    if (id == RETRO_MEMORY_SAVE_RAM) {
#ifdef MODE_SAVE_RAM_NULL
        return NULL;
#endif
#ifdef MODE_FILE_SHORT
        return file_short();
#endif
#ifdef MODE_SAVE_RAM_SHORT
        static uint8_t *page;
        if (!page) page = guarded_page();
        return page;
#endif
        return save_ram;
    }
    if (id == RETRO_MEMORY_SYSTEM_RAM) return picture;
    return NULL;
}
size_t retro_get_memory_size(unsigned id) {
    if (id == RETRO_MEMORY_SAVE_RAM) {
#ifdef MODE_SAVE_RAM_HUGE
        return (size_t)16 << 30;
#endif
#ifdef MODE_SAVE_RAM_NULL
        return 8192;
#endif
#ifdef MODE_SAVE_RAM_SHORT
        return 1 << 20;
#endif
#ifdef MODE_FILE_SHORT
        return 0x2000;
#endif
#ifdef MODE_SAVE_RAM_NEGATIVE
        return (size_t)-5;
#endif
        return sizeof save_ram;
    }
    if (id == RETRO_MEMORY_SYSTEM_RAM) {
#ifdef MODE_SYSTEM_RAM_HUGE
        return (size_t)1 << 40;
#endif
        return sizeof picture;
    }
    return 0;
}
