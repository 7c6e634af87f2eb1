/* The baseline for scripts/bench: a bare libretro loop with trivial callbacks, so the benchmark
 * can print the host's frames/s as a ratio of what the core alone costs.
 * usage: bare_loop CORE.so ROM FRAMES           → prints "fps <value>"
 *        bare_loop CORE.so ROM FRAMES states N  → after FRAMES, N serialize+unserialize round trips:
 *                                                  prints "us_per_roundtrip <value>"
 *        bare_loop CORE.so ROM FRAMES from STATE → FRAMES from a core state (a file of retro_serialize's
 *                                                  bytes), so the loop runs the same frames as a peer
 *        bare_loop CORE.so ROM FRAMES threads N   → N private copies of the core on N threads of one process
 *        bare_loop CORE.so ROM FRAMES processes N → N processes: frames/s of all together (either way) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libretro-common/libretro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* One loaded copy of the core: the functions the loop calls. */
struct instance {
    void (*run)(void);
    size_t (*serialize_size)(void);
    bool (*serialize)(void *, size_t);
    bool (*unserialize)(const void *, size_t);
};

#define SYM(name) void *name##_ptr = dlsym(core, #name); if (!name##_ptr) { fprintf(stderr, "missing %s\n", #name); return false; }

/* dlopen of `path` (a private copy when `private_copy`: a memory file holding the .so's bytes, so this copy
 * has globals of its own: dlopen of the same path twice returns the same library), retro_init, the game. */
static bool load_instance(const char *path, const char *rom_path, bool private_copy, struct instance *out) {
    char copy_path[64];
    if (private_copy) {
        int source = open(path, O_RDONLY), target = memfd_create("core-copy", 0);
        if (source < 0 || target < 0) { perror("core copy"); return false; }
        char buffer[1 << 16];
        ssize_t got;
        while ((got = read(source, buffer, sizeof buffer)) > 0) {
            if (write(target, buffer, (size_t)got) != got) { perror("core copy"); return false; }
        }
        close(source);
        snprintf(copy_path, sizeof copy_path, "/proc/self/fd/%d", target);
        path = copy_path;
    }
    void *core = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!core) { fprintf(stderr, "%s\n", dlerror()); return false; }
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

    FILE *file = fopen(rom_path, "rb");
    if (!file) { perror(rom_path); return false; }
    unsigned char *rom = malloc(8 << 20);  /* kept: some cores read the content after loading it */
    size_t size = fread(rom, 1, 8 << 20, file);
    fclose(file);
    struct retro_game_info game = { rom_path, rom, size, NULL };
    if (!((bool (*)(const struct retro_game_info *))retro_load_game_ptr)(&game)) { fprintf(stderr, "load failed\n"); return false; }
    out->run = (void (*)(void))retro_run_ptr;
    out->serialize_size = (size_t (*)(void))retro_serialize_size_ptr;
    out->serialize = (bool (*)(void *, size_t))retro_serialize_ptr;
    out->unserialize = (bool (*)(const void *, size_t))retro_unserialize_ptr;
    return true;
}

static double now(void) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    return (double)at.tv_sec + (double)at.tv_nsec / 1e9;
}

struct job { struct instance *instance; long frames; double fps; };

static void *run_job(void *argument) {
    struct job *job = argument;
    double start = now();
    for (long i = 0; i < job->frames; i++) job->instance->run();
    job->fps = (double)job->frames / (now() - start);
    return NULL;
}

/* N copies of the core at once, each on a thread of this process (private copies) or in a process of its
 * own: the frames/s of all together, to compare the two ways of running many cores. */
static int many(const char *core_path, const char *rom_path, long frames, int count, bool threads) {
    if (count < 1 || count > 64) { fprintf(stderr, "1…64 copies\n"); return 2; }
    if (!threads) {
        int pipes[64][2];
        for (int i = 0; i < count; i++) {
            if (pipe(pipes[i]) != 0) return 1;
            if (fork() == 0) {
                struct instance instance;
                if (!load_instance(core_path, rom_path, false, &instance)) _exit(1);
                struct job job = { &instance, frames, 0 };
                run_job(&job);
                if (write(pipes[i][1], &job.fps, sizeof job.fps) != sizeof job.fps) _exit(1);
                _exit(0);
            }
        }
        double total = 0, fps;
        for (int i = 0; i < count; i++) if (read(pipes[i][0], &fps, sizeof fps) == sizeof fps) total += fps;
        while (wait(NULL) > 0) {}
        printf("fps %.1f\n", total);
        return 0;
    }
    struct instance instances[64];
    struct job jobs[64];
    pthread_t workers[64];
    for (int i = 0; i < count; i++) {
        if (!load_instance(core_path, rom_path, i > 0, &instances[i])) return 1;
        jobs[i] = (struct job){ &instances[i], frames, 0 };
    }
    for (int i = 0; i < count; i++) pthread_create(&workers[i], NULL, run_job, &jobs[i]);
    double total = 0;
    for (int i = 0; i < count; i++) { pthread_join(workers[i], NULL); total += jobs[i].fps; }
    printf("fps %.1f\n", total);
    return 0;
}

int main(int argc, char **argv) {
    bool from = argc == 6 && strcmp(argv[4], "from") == 0;
    bool threads = argc == 6 && strcmp(argv[4], "threads") == 0;
    bool processes = argc == 6 && strcmp(argv[4], "processes") == 0;
    if (argc != 4 && !(argc == 6 && (from || threads || processes || strcmp(argv[4], "states") == 0))) {
        fprintf(stderr, "usage: bare_loop CORE ROM FRAMES [states N | from STATE | threads N | processes N]\n");
        return 2;
    }
    if (threads || processes) return many(argv[1], argv[2], atol(argv[3]), atoi(argv[5]), threads);
    struct instance core;
    if (!load_instance(argv[1], argv[2], false, &core)) return 1;
    if (from) {
        FILE *saved = fopen(argv[5], "rb");
        if (!saved) { perror(argv[5]); return 1; }
        static unsigned char bytes[64 << 20];
        size_t length = fread(bytes, 1, sizeof bytes, saved);
        fclose(saved);
        if (!core.unserialize(bytes, length)) { fprintf(stderr, "%s: the core refused the state\n", argv[5]); return 1; }
    }
    long frames = atol(argv[3]);
    struct job job = { &core, frames, 0 };
    run_job(&job);
    if (argc == 4 || from) {
        printf("fps %.1f\n", job.fps);
        return 0;
    }
    long rounds = atol(argv[5]);
    size_t state_size = core.serialize_size();
    void *state = malloc(state_size);
    double start = now();
    for (long i = 0; i < rounds; i++) {
        if (!core.serialize(state, state_size) || !core.unserialize(state, state_size)) {
            fprintf(stderr, "state round trip failed\n");
            return 1;
        }
    }
    printf("us_per_roundtrip %.3f (state %zu bytes)\n", (now() - start) * 1e6 / (double)rounds, state_size);
    return 0;
}
