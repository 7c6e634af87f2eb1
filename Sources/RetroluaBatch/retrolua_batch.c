#define _GNU_SOURCE
#include "retrolua_batch.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The layout (python/retrolua/_batch.py): page 0's words, then each lane's control block. */
enum { HEADER = 4096, GENERATION = 0, COMPLETED = 64, WAKE_AT = 192 };
enum { REQUEST = 0, DONE = 4, TICKET = 8, LENGTH = 12, REQUEST_AT = 64, MASK_AT = REQUEST_AT + 32 };
enum { REPLY_AT = REQUEST_AT + 1024, REPLY_SIZE = 72, MAX_INFO = 16384 };

int32_t rb_version(void) { return 3; }

static _Atomic uint32_t *word(const uint8_t *at) { return (_Atomic uint32_t *)(uintptr_t)at; }

static uint8_t *lane_at(uint8_t *base, int64_t stride, int64_t lane) { return base + HEADER + lane * stride; }

static int64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* One lane's step: its header again where another request overwrote it, its mask, its request number bumped. */
static void post_lane(uint8_t *base, int64_t stride, int64_t index, uint16_t mask, const uint32_t *header,
                      uint8_t *foreign) {
    uint8_t *lane = lane_at(base, stride, index);
    if (foreign[index]) {  // the env's own path wrote another request here: the step's header again
        memcpy(lane + REQUEST_AT, header, 16);
        atomic_store_explicit(word(lane + LENGTH), 34, memory_order_relaxed);
        foreign[index] = 0;
    }
    memcpy(lane + MASK_AT, &mask, 2);
    uint32_t next = atomic_load_explicit(word(lane + REQUEST), memory_order_relaxed) + 1;
    atomic_store_explicit(word(lane + REQUEST), next, memory_order_release);
}

/* Starts every posted lane: `generation` bumped, every emulator woken with one futex call. */
static void wake_all(uint8_t *base) {
    atomic_fetch_add_explicit(word(base + GENERATION), 1, memory_order_seq_cst);
    syscall(SYS_futex, base + GENERATION, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

void rb_post(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, const uint16_t *masks,
             const uint32_t *header, uint8_t *foreign) {
    for (int32_t row = 0; row < n; row++) post_lane(base, stride, lanes[row], masks[row], header, foreign);
    if (n > 0) wake_all(base);
}

/* How many of `lanes` (NULL: 0..n-1) are answered; the answered ones into `ready` when it is not NULL. */
static int32_t answered(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, int64_t *ready) {
    int32_t count = 0;
    for (int32_t row = 0; row < n; row++) {
        int64_t index = lanes ? lanes[row] : row;
        uint8_t *lane = lane_at(base, stride, index);
        uint32_t done = atomic_load_explicit(word(lane + DONE), memory_order_acquire);
        if (done == atomic_load_explicit(word(lane + REQUEST), memory_order_relaxed)) {
            if (ready) ready[count] = index;
            count++;
        }
    }
    return count;
}

typedef struct {
    uint32_t ticket;
    int64_t lane;
} Finished;

static int by_ticket(const void *left, const void *right) {
    const Finished *a = left, *b = right;
    int32_t difference = (int32_t)(a->ticket - b->ticket);  // tickets wrap: a signed difference orders them
    if (difference != 0) return difference < 0 ? -1 : 1;
    return a->lane < b->lane ? -1 : a->lane > b->lane;
}

/* Until `need` of `lanes` are answered (spinning first for `spin_ns`); -1 when `timeout_ns` passed first. */
static int32_t wait_for(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, int32_t need,
                        int64_t spin_ns, int64_t timeout_ns) {
    int64_t start = now_ns();
    _Atomic uint32_t *completed = word(base + COMPLETED);
    for (;;) {
        uint32_t seen = atomic_load_explicit(completed, memory_order_seq_cst);
        int32_t count = answered(base, stride, lanes, n, NULL);
        if (count >= need) break;
        int64_t elapsed = now_ns() - start;
        if (elapsed < spin_ns) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
            continue;
        }
        if (elapsed >= timeout_ns) return -1;
        // Woken once, by the last emulator needed (the emulators compare `completed` with this word).
        atomic_store_explicit(word(base + WAKE_AT), seen + (uint32_t)(need - count), memory_order_seq_cst);
        int64_t left = timeout_ns - elapsed;
        struct timespec timeout = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        syscall(SYS_futex, completed, FUTEX_WAIT, seen, &timeout, NULL, 0);
    }
    return 0;
}

int32_t rb_wait(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, int32_t need, int64_t spin_ns,
                int64_t timeout_ns, int64_t *ready) {
    if (need > n) need = n;
    if (wait_for(base, stride, lanes, n, need, spin_ns, timeout_ns) < 0) return -1;
    int32_t count = answered(base, stride, lanes, n, ready);
    if (ready && count > 1) {
        Finished stack[64];
        Finished *order = count <= 64 ? stack : malloc(sizeof(Finished) * (size_t)count);
        if (order) {
            for (int32_t row = 0; row < count; row++) {
                order[row].lane = ready[row];
                order[row].ticket = atomic_load_explicit(word(lane_at(base, stride, ready[row]) + TICKET),
                                                         memory_order_relaxed);
            }
            qsort(order, (size_t)count, sizeof(Finished), by_ticket);
            for (int32_t row = 0; row < count; row++) ready[row] = order[row].lane;
            if (order != stack) free(order);
        }
    }
    return count;
}

typedef struct {
    uint32_t status, length;
    int64_t frame, frames, lag, done, width, height, bytes;
    double reward;
} Reply;
_Static_assert(sizeof(Reply) == REPLY_SIZE, "the reply header is 72 bytes");

int32_t rb_collect(const uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, double *rewards,
                   uint8_t *terminated, uint8_t *truncated, int64_t *steps, int64_t max_steps, int64_t *counters,
                   int64_t *sizes, int64_t *lengths) {
    int32_t failed = -1;
    for (int32_t row = 0; row < n; row++) {
        Reply reply;
        memcpy(&reply, base + HEADER + lanes[row] * stride + REPLY_AT, sizeof reply);
        if (reply.status != 0 && failed < 0) failed = row;
        rewards[row] = reply.reward;
        terminated[row] = reply.done != 0;
        int64_t count = steps[lanes[row]] + 1;
        steps[lanes[row]] = count;
        truncated[row] = reply.done == 0 && count >= max_steps;
        counters[2 * row] = reply.frame;
        counters[2 * row + 1] = reply.lag;
        sizes[2 * row] = reply.height;
        sizes[2 * row + 1] = reply.width;
        lengths[row] = reply.length > MAX_INFO ? MAX_INFO : reply.length;
    }
    return failed;
}

static const char *blank(const char *at, const char *end) {
    while (at < end && (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')) at++;
    return at;
}

/* One value: true, false or a JSON number (an integer that fits 64 bits stays one, as Python's json keeps it). */
static const char *value(const char *at, const char *end, int64_t *integer, double *real, uint8_t *kind) {
    if (end - at >= 4 && memcmp(at, "true", 4) == 0) {
        *integer = 1, *kind = 0;
        return at + 4;
    }
    if (end - at >= 5 && memcmp(at, "false", 5) == 0) {
        *integer = 0, *kind = 0;
        return at + 5;
    }
    const char *start = at;
    if (at < end && *at == '-') at++;
    if (at >= end || *at < '0' || *at > '9') return NULL;
    if (*at == '0' && at + 1 < end && at[1] >= '0' && at[1] <= '9') return NULL;  // no leading zeros in JSON
    while (at < end && *at >= '0' && *at <= '9') at++;
    int whole = 1;
    if (at < end && *at == '.') {
        whole = 0, at++;
        if (at >= end || *at < '0' || *at > '9') return NULL;
        while (at < end && *at >= '0' && *at <= '9') at++;
    }
    if (at < end && (*at == 'e' || *at == 'E')) {
        whole = 0, at++;
        if (at < end && (*at == '+' || *at == '-')) at++;
        if (at >= end || *at < '0' || *at > '9') return NULL;
        while (at < end && *at >= '0' && *at <= '9') at++;
    }
    char text[64];
    size_t length = (size_t)(at - start);
    if (length >= sizeof text) return NULL;
    memcpy(text, start, length);
    text[length] = 0;
    errno = 0;
    if (whole) {
        long long parsed = strtoll(text, NULL, 10);
        if (errno == ERANGE) return NULL;  // a bigger integer: Python's own int
        *integer = parsed, *kind = 1;
    } else {
        *real = strtod(text, NULL), *kind = 2;
    }
    return at;
}

/* Row `row` of n: one reply's info() as the keys' cells (rb_infos); 0, or -1 when it is not such an object. */
static int32_t info_row(const uint8_t *reply, int32_t row, int32_t n, const char *keys, int32_t nkeys,
                        int64_t *ints, double *reals, uint8_t *kinds, uint8_t *range) {
    uint32_t length;
    memcpy(&length, reply + 4, 4);
    if (length > MAX_INFO) length = MAX_INFO;
    const char *at = (const char *)reply + REPLY_SIZE, *end = at + length;
    if (length == 0) return nkeys == 0 ? 0 : -1;
    at = blank(at, end);
    if (at >= end || *at++ != '{') return -1;
    const char *key = keys;
    for (int32_t column = 0; column < nkeys; column++) {
        at = blank(at, end);
        if (column > 0) {
            if (at >= end || *at++ != ',') return -1;
            at = blank(at, end);
        }
        if (at >= end || *at++ != '"') return -1;
        size_t size = strlen(key);
        // The name as written (no escapes: a name with any is left to Python's parser).
        if ((size_t)(end - at) < size + 1 || memcmp(at, key, size) != 0 || at[size] != '"') return -1;
        at = blank(at + size + 1, end);
        if (at >= end || *at++ != ':') return -1;
        at = blank(at, end);
        size_t cell = (size_t)column * (size_t)n + (size_t)row;  // a key's values side by side: one array
        ints[cell] = 0, reals[cell] = 0;
        at = value(at, end, &ints[cell], &reals[cell], &kinds[cell]);
        if (!at) return -1;
        if (kinds[cell] > range[column]) range[column] = kinds[cell];
        if (kinds[cell] < range[nkeys + column]) range[nkeys + column] = kinds[cell];
        key += size + 1;
    }
    at = blank(at, end);
    if (at >= end || *at++ != '}') return -1;
    return blank(at, end) == end ? 0 : -1;
}

int32_t rb_infos(const uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, const char *keys,
                 int32_t nkeys, int64_t *ints, double *reals, uint8_t *kinds, uint8_t *range) {
    for (int32_t column = 0; column < nkeys; column++) range[column] = 0, range[nkeys + column] = 2;
    for (int32_t row = 0; row < n; row++) {
        const uint8_t *reply = base + HEADER + lanes[row] * stride + REPLY_AT;
        if (info_row(reply, row, n, keys, nkeys, ints, reals, kinds, range) < 0) return row;
    }
    return -1;
}

/* Row `row`'s button mask (its action checked by `refused_row` first). */
static uint16_t mask_of(const rb_batch *batch, int32_t row) {
    if (batch->action_kind == 0) return ((const uint16_t *)batch->actions)[row];
    if (batch->action_kind == 1) return batch->table[((const int64_t *)batch->actions)[row]];
    const uint8_t *pressed = (const uint8_t *)batch->actions + (int64_t)row * batch->table_size;
    uint16_t mask = 0;
    for (int64_t column = 0; column < batch->table_size; column++)
        if (pressed[column]) mask |= batch->table[column];
    return mask;
}

/* The first row whose action is no index of the table, or -1. */
static int32_t refused_row(const rb_batch *batch) {
    if (batch->action_kind != 1) return -1;
    const int64_t *indices = batch->actions;
    for (int32_t row = 0; row < batch->n; row++)
        if (indices[row] < 0 || indices[row] >= batch->table_size) return row;
    return -1;
}

/* The replies into the outputs (rb_collect's work for lanes 0..n-1); whether every screen is the expected size. */
static int32_t read_replies(rb_batch *batch) {
    int32_t sized = 1;
    batch->failed = -1;
    for (int32_t row = 0; row < batch->n; row++) {
        Reply reply;
        memcpy(&reply, lane_at(batch->base, batch->stride, row) + REPLY_AT, sizeof reply);
        if (reply.status != 0 && batch->failed < 0) batch->failed = row;
        batch->rewards[row] = reply.reward;
        batch->terminated[row] = reply.done != 0;
        int64_t count = ++batch->steps[row];
        batch->truncated[row] = reply.done == 0 && count >= batch->max_steps;
        batch->frames[row] = reply.frame;
        batch->lags[row] = reply.lag;
        batch->lengths[row] = reply.length > MAX_INFO ? MAX_INFO : reply.length;
        batch->sizes[2 * row] = reply.height, batch->sizes[2 * row + 1] = reply.width;
        if (batch->expected_height && (reply.height != batch->expected_height || reply.width != batch->expected_width))
            sized = 0;
    }
    return sized;
}

/* The infos and the observations of lanes 0..n-1, once their replies are read. */
static void read_infos_and_observations(rb_batch *batch) {
    int32_t n = batch->n, nkeys = batch->nkeys;
    batch->infos_read = nkeys >= 0;
    if (nkeys >= 0) {
        for (int32_t column = 0; column < nkeys; column++) batch->range[column] = 0, batch->range[nkeys + column] = 2;
        for (int32_t row = 0; row < n && batch->infos_read; row++)
            if (info_row(lane_at(batch->base, batch->stride, row) + REPLY_AT, row, n, batch->keys, nkeys, batch->ints,
                         batch->reals, batch->kinds, batch->range) < 0)
                batch->infos_read = 0;
    }
    if (!batch->sized) return;  // a screen of another size: the envs' own path copies (and says what is wrong)
    for (int32_t kind = 0; kind < batch->copies; kind++) {
        const rb_copy *copy = &batch->copy[kind];
        uint8_t *out = copy->out;
        for (int32_t row = 0; row < n; row++) {
            const uint8_t *from = lane_at(batch->base, batch->stride, row) + copy->offset;
            for (int64_t line = 0; line < copy->rows; line++, out += copy->row_bytes)
                memcpy(out, from + line * copy->pitch, (size_t)copy->row_bytes);
        }
    }
}

int32_t rb_step(rb_batch *batch) {
    int32_t n = batch->n;
    if (!batch->posted) {
        batch->refused = refused_row(batch);
        if (batch->refused >= 0) return -2;
        for (int32_t row = 0; row < n; row++)
            post_lane(batch->base, batch->stride, row, mask_of(batch, row), batch->header, batch->foreign);
        if (n > 0) wake_all(batch->base);
        batch->posted = 1;
        batch->spin_ns = batch->spin ? (int64_t)(batch->mean_ns < 2e6 ? batch->mean_ns : 2e6) : 0;
        batch->started_ns = batch->spin ? now_ns() : 0;
        if (batch->post_only) return 1;
    }
    if (wait_for(batch->base, batch->stride, NULL, n, n, batch->spin_ns, batch->timeout_ns) < 0) {
        batch->spin_ns = 0;  // the caller looks at the emulators, then waits again without spinning
        return -1;
    }
    batch->posted = 0;
    if (batch->spin) batch->mean_ns += ((double)(now_ns() - batch->started_ns) - batch->mean_ns) / 8;
    batch->sized = read_replies(batch);
    if (batch->failed < 0) read_infos_and_observations(batch);
    return 0;
}
