/* The baseline for scripts/bench: a bare libretro loop with trivial callbacks, so the benchmark
 * can print the host's frames/s as a ratio of what the core alone costs.
 * usage: bare_loop CORE.so ROM FRAMES           → prints "fps <value>"
 *        bare_loop CORE.so ROM FRAMES states N  → after FRAMES, N serialize+unserialize round trips:
 *                                                  prints "us_per_roundtrip <value>"
 *        bare_loop CORE.so ROM FRAMES from STATE → FRAMES from a core state (a file of retro_serialize's
 *                                                  bytes), so the loop runs the same frames as a peer */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libretro-common/libretro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Cores that strcmp a variable without a NULL check (genesis_plus_gx) need GET_VARIABLE answered:
 * each key declared through SET_VARIABLES ("Description; default|other|...") gets its default, or
 * the value $BARE_OPTIONS gives it ("key=value,key=value": the options the measured host runs with). */
static char keys[256][128], values[256][128];
static int variables;

static void declare(const struct retro_variable *list) {
    for (; list->key && variables < 256; list++) {
        const char *choices = list->value ? strstr(list->value, "; ") : NULL;
        if (!choices) continue;
        choices += 2;
        size_t length = strcspn(choices, "|");
        snprintf(keys[variables], sizeof keys[0], "%s", list->key);
        snprintf(values[variables], sizeof values[0], "%.*s", (int)length, choices);
        const char *given = getenv("BARE_OPTIONS");
        size_t key_length = strlen(list->key);
        for (const char *at = given; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL) {
            if (strncmp(at, list->key, key_length) == 0 && at[key_length] == '=') {
                const char *value = at + key_length + 1;
                snprintf(values[variables], sizeof values[0], "%.*s", (int)strcspn(value, ","), value);
            }
        }
        variables++;
    }
}

static bool answer(struct retro_variable *variable) {
    for (int i = 0; i < variables; i++) {
        if (strcmp(keys[i], variable->key) == 0) { variable->value = values[i]; return true; }
    }
    variable->value = NULL;
    return false;
}

static bool environment(unsigned cmd, void *data) {
    if (cmd == RETRO_ENVIRONMENT_SET_PIXEL_FORMAT) return true;
    if (cmd == RETRO_ENVIRONMENT_SET_VARIABLES && data) { declare(data); return true; }
    if (cmd == RETRO_ENVIRONMENT_GET_VARIABLE && data) return answer(data);
    if (cmd == RETRO_ENVIRONMENT_GET_CAN_DUPE) { *(bool *)data = true; return true; }
    /* Some cores (nestopia) refuse content when they get no system folder. */
    if (cmd == RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY || cmd == RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY) {
        *(const char **)data = "/tmp";
        return true;
    }
    return false;
}
static void video(const void *data, unsigned w, unsigned h, size_t pitch) { (void)data; (void)w; (void)h; (void)pitch; }
static void sample(int16_t l, int16_t r) { (void)l; (void)r; }
static size_t batch(const int16_t *data, size_t frames) { (void)data; return frames; }
static void poll(void) {}
static int16_t state(unsigned port, unsigned device, unsigned index, unsigned id) { (void)port; (void)device; (void)index; (void)id; return 0; }

#define SYM(name) void *name##_ptr = dlsym(core, #name); if (!name##_ptr) { fprintf(stderr, "missing %s\n", #name); return 1; }

int main(int argc, char **argv) {
    bool from = argc == 6 && strcmp(argv[4], "from") == 0;
    if (argc != 4 && !(argc == 6 && (from || strcmp(argv[4], "states") == 0))) {
        fprintf(stderr, "usage: bare_loop CORE ROM FRAMES [states N | from STATE]\n");
        return 2;
    }
    void *core = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!core) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    SYM(retro_set_environment) SYM(retro_set_video_refresh) SYM(retro_set_audio_sample)
    SYM(retro_set_audio_sample_batch) SYM(retro_set_input_poll) SYM(retro_set_input_state)
    SYM(retro_init) SYM(retro_load_game) SYM(retro_run)
    SYM(retro_serialize_size) SYM(retro_serialize) SYM(retro_unserialize)
    ((void (*)(retro_environment_t))retro_set_environment_ptr)(environment);
    ((void (*)(retro_video_refresh_t))retro_set_video_refresh_ptr)(video);
    ((void (*)(retro_audio_sample_t))retro_set_audio_sample_ptr)(sample);
    ((void (*)(retro_audio_sample_batch_t))retro_set_audio_sample_batch_ptr)(batch);
    ((void (*)(retro_input_poll_t))retro_set_input_poll_ptr)(poll);
    ((void (*)(retro_input_state_t))retro_set_input_state_ptr)(state);
    ((void (*)(void))retro_init_ptr)();

    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 1; }
    static unsigned char rom[8 << 20];
    size_t size = fread(rom, 1, sizeof rom, file);
    fclose(file);
    struct retro_game_info game = { argv[2], rom, size, NULL };
    if (!((bool (*)(const struct retro_game_info *))retro_load_game_ptr)(&game)) { fprintf(stderr, "load failed\n"); return 1; }

    if (from) {
        FILE *saved = fopen(argv[5], "rb");
        if (!saved) { perror(argv[5]); return 1; }
        static unsigned char bytes[64 << 20];
        size_t length = fread(bytes, 1, sizeof bytes, saved);
        fclose(saved);
        bool (*load)(const void *, size_t) = (bool (*)(const void *, size_t))retro_unserialize_ptr;
        if (!load(bytes, length)) { fprintf(stderr, "%s: the core refused the state\n", argv[5]); return 1; }
    }
    long frames = atol(argv[3]);
    void (*run)(void) = (void (*)(void))retro_run_ptr;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < frames; i++) run();
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    if (argc == 4 || from) {
        printf("fps %.1f\n", (double)frames / seconds);
        return 0;
    }
    long rounds = atol(argv[5]);
    size_t state_size = ((size_t (*)(void))retro_serialize_size_ptr)();
    void *state = malloc(state_size);
    bool (*save)(void *, size_t) = (bool (*)(void *, size_t))retro_serialize_ptr;
    bool (*load)(const void *, size_t) = (bool (*)(const void *, size_t))retro_unserialize_ptr;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < rounds; i++) {
        if (!save(state, state_size) || !load(state, state_size)) { fprintf(stderr, "state round trip failed\n"); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("us_per_roundtrip %.3f (state %zu bytes)\n", seconds * 1e6 / (double)rounds, state_size);
    return 0;
}
