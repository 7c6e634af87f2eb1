#define _GNU_SOURCE
#include "retro_shim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

static rs_log_sink_t log_sink;

void rs_set_log_sink(rs_log_sink_t sink) { log_sink = sink; }

void rs_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

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

int rs_is_readable(const void *pointer, size_t length) {
    if (!pointer) return 0;
    if (length == 0) return 1;
    uintptr_t start = (uintptr_t)pointer;
    if (start + length < start) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = start & ~(page - 1), last = (start + length - 1) & ~(page - 1);
    uintptr_t pages = (last - first) / page + 1;
    // One byte of every page, read through the kernel: a page that is not readable stops the copy short
    // instead of faulting.
    char scratch[64];
    struct iovec local = {scratch, sizeof scratch};
    struct iovec remote[64];
    pid_t self = getpid();
    for (uintptr_t done = 0; done < pages;) {
        int count = 0;
        while (count < 64 && done < pages) {
            uintptr_t at = done == 0 ? start : first + done * page;
            remote[count].iov_base = (void *)at;
            remote[count].iov_len = 1;
            count++;
            done++;
        }
        ssize_t got = process_vm_readv(self, &local, 1, remote, (unsigned long)count, 0);
        // Where the kernel forbids the call (seccomp), nothing can be checked: trust the core.
        if (got < 0) return errno == EPERM || errno == ENOSYS ? 1 : 0;
        if (got != count) return 0;
    }
    return 1;
}
