#include "retro_shim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static rs_log_sink_t log_sink;

void rs_set_log_sink(rs_log_sink_t sink) { log_sink = sink; }

void rs_log_printf(enum retro_log_level level, const char *fmt, ...) {
    if (!log_sink || !fmt) return;
    char stack_buffer[1024];
    va_list args;
    va_start(args, fmt);
    int needed = vsnprintf(stack_buffer, sizeof stack_buffer, fmt, args);
    va_end(args);
    if (needed < 0) return;
    if ((size_t)needed < sizeof stack_buffer) {
        log_sink((int)level, stack_buffer);
        return;
    }
    // Long lines (some cores dump whole tables) get a heap buffer rather than truncation.
    char *heap_buffer = malloc((size_t)needed + 1);
    if (!heap_buffer) { log_sink((int)level, stack_buffer); return; }
    va_start(args, fmt);
    vsnprintf(heap_buffer, (size_t)needed + 1, fmt, args);
    va_end(args);
    log_sink((int)level, heap_buffer);
    free(heap_buffer);
}

retro_log_printf_t rs_log_printf_pointer(void) { return rs_log_printf; }
