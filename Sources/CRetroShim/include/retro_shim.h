#ifndef RETRO_SHIM_H
#define RETRO_SHIM_H

#include <libretro-common/libretro.h>
#include <stddef.h>
#include <stdint.h>

#include "shared_batch.h"

/// Receives one formatted log line from a core. `level` is a `enum retro_log_level`.
typedef void (*rs_log_sink_t)(int level, const char *message);

/// Sets where formatted core log lines go (Swift cannot implement a variadic callback).
void rs_set_log_sink(rs_log_sink_t sink);

/// The `retro_log_printf_t` handed to cores through RETRO_ENVIRONMENT_GET_LOG_INTERFACE.
void rs_log_printf(enum retro_log_level level, const char *fmt, ...);

/// `rs_log_printf` as a value: Swift cannot name a variadic C function.
retro_log_printf_t rs_log_printf_pointer(void);

/// Makes C's standard output line-buffered: on a pipe stdio holds a core's printf output until 4 KiB
/// gather and writes them cut wherever that fell, mid-line, between the host's own lines.
void rs_line_buffer_stdout(void);

/// 1 when every byte of `length` bytes at `pointer` can be read (checked page by page without
/// touching the memory), 0 when some page is unmapped or unreadable: for sizes cores report.
int rs_is_readable(const void *pointer, size_t length);

/// `count` little-endian RGB565 pixels at `source` as packed 8-bit RGB at `target` (3 × count bytes).
void rs_rgb565_to_rgb(const void *source, size_t count, uint8_t *target);

/// `count` XRGB8888 pixels at `source` as packed 8-bit RGB at `target` (3 × count bytes).
void rs_xrgb8888_to_rgb(const void *source, size_t count, uint8_t *target);

#endif
