/* A tiny multi-disc libretro core for the disk-control tests (ContentTests builds it): content "*.dsk",
 * given by path (need_fullpath), a disc tray through SET_DISK_CONTROL_EXT_INTERFACE. Its 16 bytes of
 * system RAM show the tray: [0] disc index, [1] ejected, [2] disc count, [3] the inserted disc's first
 * byte (0 when none); the picture is that byte in every pixel. States hold the tray. */
#include <libretro-common/libretro.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define W 16
#define H 16
#define MAX_DISCS 8

static retro_environment_t env;
static retro_video_refresh_t video;
static retro_input_poll_t input_poll;
static uint32_t picture[W * H];
static uint8_t ram[16];
static char paths[MAX_DISCS][512];
static uint8_t first_byte[MAX_DISCS];
static unsigned count, index_now;
static bool ejected;

static uint8_t read_first_byte(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    int c = fgetc(file);
    fclose(file);
    return c == EOF ? 0 : (uint8_t)c;
}

static bool set_eject(bool value) { ejected = value; return true; }
static bool get_eject(void) { return ejected; }
static unsigned get_index(void) { return index_now; }
static bool set_index(unsigned value) {
    if (!ejected || value > count) return false;
    index_now = value;
    return true;
}
static unsigned get_count(void) { return count; }
static bool replace(unsigned value, const struct retro_game_info *info) {
    if (!ejected || value >= count || !info || !info->path) return false;
    snprintf(paths[value], sizeof paths[value], "%s", info->path);
    first_byte[value] = read_first_byte(info->path);
    return true;
}
static bool add(void) {
    if (!ejected || count >= MAX_DISCS) return false;
    paths[count][0] = 0;
    first_byte[count] = 0;
    count++;
    return true;
}
static bool initial(unsigned value, const char *path) { (void)value; (void)path; return false; }
static bool get_path(unsigned value, char *out, size_t len) {
    if (value >= count || !paths[value][0]) return false;
    snprintf(out, len, "%s", paths[value]);
    return true;
}
static bool get_label(unsigned value, char *out, size_t len) {
    if (value >= count) return false;
    snprintf(out, len, "Disc %u", value + 1);
    return true;
}

void retro_set_environment(retro_environment_t cb) {
    env = cb;
    static struct retro_disk_control_ext_callback tray = {
        set_eject, get_eject, get_index, set_index, get_count, replace, add, initial, get_path, get_label};
    unsigned version = 0;
    if (env(RETRO_ENVIRONMENT_GET_DISK_CONTROL_INTERFACE_VERSION, &version) && version >= 1)
        env(RETRO_ENVIRONMENT_SET_DISK_CONTROL_EXT_INTERFACE, &tray);
}
void retro_set_video_refresh(retro_video_refresh_t cb) { video = cb; }
void retro_set_audio_sample(retro_audio_sample_t cb) { (void)cb; }
void retro_set_audio_sample_batch(retro_audio_sample_batch_t cb) { (void)cb; }
void retro_set_input_poll(retro_input_poll_t cb) { input_poll = cb; }
void retro_set_input_state(retro_input_state_t cb) { (void)cb; }
void retro_init(void) {}
void retro_deinit(void) {}
unsigned retro_api_version(void) { return RETRO_API_VERSION; }
void retro_get_system_info(struct retro_system_info *info) {
    memset(info, 0, sizeof *info);
    info->library_name = "disc";
    info->library_version = "1";
    info->valid_extensions = "dsk";
    info->need_fullpath = true;
}
void retro_get_system_av_info(struct retro_system_av_info *info) {
    memset(info, 0, sizeof *info);
    info->geometry = (struct retro_game_geometry){W, H, W, H, 1.0f};
    info->timing = (struct retro_system_timing){60.0, 48000.0};
}
void retro_set_controller_port_device(unsigned port, unsigned device) { (void)port; (void)device; }
void retro_reset(void) {}
void retro_run(void) {
    input_poll();
    uint8_t shown = !ejected && index_now < count ? first_byte[index_now] : 0;
    ram[0] = (uint8_t)index_now; ram[1] = ejected; ram[2] = (uint8_t)count; ram[3] = shown;
    for (int i = 0; i < W * H; i++) picture[i] = 0xFF000000u | shown * 0x010101u;
    video(picture, W, H, W * 4);
}
size_t retro_serialize_size(void) { return 2; }
bool retro_serialize(void *data, size_t size) {
    if (size < 2) return false;
    ((uint8_t *)data)[0] = (uint8_t)index_now;
    ((uint8_t *)data)[1] = ejected;
    return true;
}
bool retro_unserialize(const void *data, size_t size) {
    if (size < 2 || ((const uint8_t *)data)[0] > count) return false;
    index_now = ((const uint8_t *)data)[0];
    ejected = ((const uint8_t *)data)[1];
    return true;
}
void retro_cheat_reset(void) {}
void retro_cheat_set(unsigned i, bool e, const char *c) { (void)i; (void)e; (void)c; }
bool retro_load_game(const struct retro_game_info *game) {
    if (!game || !game->path) return false;
    enum retro_pixel_format format = RETRO_PIXEL_FORMAT_XRGB8888;
    env(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format);
    count = 1;
    index_now = 0;
    ejected = false;
    snprintf(paths[0], sizeof paths[0], "%s", game->path);
    first_byte[0] = read_first_byte(game->path);
    return true;
}
bool retro_load_game_special(unsigned t, const struct retro_game_info *i, size_t n) { (void)t; (void)i; (void)n; return false; }
void retro_unload_game(void) { count = 0; }
unsigned retro_get_region(void) { return RETRO_REGION_NTSC; }
void *retro_get_memory_data(unsigned id) { return id == RETRO_MEMORY_SYSTEM_RAM ? ram : NULL; }
size_t retro_get_memory_size(unsigned id) { return id == RETRO_MEMORY_SYSTEM_RAM ? sizeof ram : 0; }
