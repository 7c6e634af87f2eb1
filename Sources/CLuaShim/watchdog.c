#include "lua_shim_private.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The watchdog. While any count hook is set, Lua 5.4 traces every VM instruction, which made hosted
 * Lua about twice as slow as a stock interpreter. So the threads the host enters run without a hook,
 * and a watchdog thread arms the count hook only on an entry that has run for ARM_AFTER_NS: from then
 * on the instruction budget counts as before. Arming happens in a signal handler on the Lua thread
 * itself (as lua.c stops scripts on SIGINT), never from another thread. Coroutines that scripts
 * create always carry the hook (see hooked_create), since the watchdog only knows the host's entries.
 *
 * Runaways always end. Past the soft deadline in one entry (or at a stop request for an entry begun
 * before it) the handler re-arms the hook on every tick to fire at the next instruction, so clearing
 * it with debug.sethook does not help. A C function never runs the hook (a backtracking string.find),
 * nor does a `__gc` finalizer (Lua turns hooks off in them): past the hard deadline — or a second after
 * a stop request — the watchdog thread calls the host's emergency handler (save RAM, movies) and ends
 * the process with a message and LH_EXIT_RUNAWAY. Closing a state (lh_close) is watched the same way.
 *
 * Host work for a script (a binding running frames, an fsync) pauses the clocks of the entries it runs
 * inside: entries below `clock_base` wait; entries begun during the work (the callbacks its frames fire)
 * are watched from their own start. */
#define ARM_AFTER_NS 20000000ull
#define STOP_GRACE_NS 1000000000ull
#define WATCH_DEPTH 64
#define WATCH_SIGNAL SIGURG

typedef struct {
    lua_State *thread; /* NULL for a state being closed: only the deadlines stop it */
    uint64_t started;  /* when its clock started, moved on by host work */
    uint64_t entered;  /* when it was entered (what a stop request compares) */
    int armed;
} watch_entry;
static watch_entry entries[WATCH_DEPTH];
static atomic_int depth;                   /* entries in use; written by the Lua thread only */
static atomic_int clock_base;              /* entries below it are paused by host work */
static _Atomic uint64_t innermost_started; /* clock of the innermost running entry, 0 when none runs */
static _Atomic uint64_t segment_started;   /* clock of the first running entry (entries[clock_base]), or 0 */
static _Atomic uint64_t outermost_entered; /* when the outermost entry was entered, 0 when none */
static _Atomic uint64_t stop_requested;    /* when a stop was requested, 0 when none */
static _Atomic uint64_t soft_deadline_ns = 2000000000ull;
static _Atomic uint64_t hard_deadline_ns = 4000000000ull;
static _Atomic(lh_emergency) emergency;
static atomic_int closing;                 /* states being closed now (for the message) */
static _Atomic pthread_t lua_thread;
static pthread_once_t watchdog_once = PTHREAD_ONCE_INIT;

#define WORK_DEPTH 64
typedef struct { int base; int depth; uint64_t began; } host_work;
static host_work work[WORK_DEPTH];
static int work_depth; /* Lua thread only */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* On the Lua thread, after any change to the entries or the clock base: what the watchdog thread reads. */
static void publish_clocks(void) {
    int d = atomic_load(&depth), base = atomic_load(&clock_base);
    int top = d < WATCH_DEPTH ? d : WATCH_DEPTH;
    int running = d > base && base < WATCH_DEPTH;
    atomic_store(&segment_started, running ? entries[base].started : 0);
    atomic_store(&innermost_started, running ? entries[top - 1].started : 0);
    atomic_store(&outermost_entered, d > 0 ? entries[0].entered : 0);
}

/* On the Lua thread: arm the innermost entry if it is overdue; stop it past the soft deadline or at a
 * stop request it began before. */
static void arm_overdue(int signal) {
    (void)signal;
    int d = atomic_load(&depth), base = atomic_load(&clock_base);
    if (d <= base || d > WATCH_DEPTH) return;
    watch_entry *entry = &entries[d - 1];
    uint64_t now = now_ns();
    if (!entry->thread || now - entry->started < ARM_AFTER_NS) return;
    uint64_t stop = atomic_load(&stop_requested);
    lh_limits *limits = lh_limits_of(entry->thread);
    if (stop && entries[0].entered <= stop) {
        limits->stop_reason = STOP_SIGNAL;
    } else if (now - entries[base].started >= atomic_load(&soft_deadline_ns) && limits->stop_reason == STOP_NONE) {
        limits->stop_reason = STOP_TIME;
    }
    if (limits->stop_reason != STOP_NONE) {
        entry->armed = 1;
        lua_sethook(entry->thread, lh_count_hook, LUA_MASKCOUNT, 1);
        return;
    }
    if (entry->armed) return;
    entry->armed = 1;
    lua_sethook(entry->thread, lh_count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
}

static void end_runaway(const char *message, int status) {
    fprintf(stderr, "retrolua: %s\n", message);
    lh_emergency handler = atomic_load(&emergency);
    if (handler) handler(message);
    fflush(stderr);
    _exit(status);
}

static void *watchdog(void *unused) {
    (void)unused;
    for (;;) {
        struct timespec pause = {0, 10000000};  /* 10 ms */
        nanosleep(&pause, NULL);
        uint64_t outer = atomic_load(&outermost_entered);
        uint64_t segment = atomic_load(&segment_started);
        uint64_t started = atomic_load(&innermost_started);
        uint64_t stop = atomic_load(&stop_requested);
        uint64_t now = now_ns();
        if (!outer) continue;
        int closing_now = atomic_load(&closing) > 0;
        if (segment && now - segment >= atomic_load(&hard_deadline_ns)) {
            end_runaway(closing_now
                            ? "a script's state did not finish closing by its hard deadline (a __gc finalizer that "
                              "never returns?); ending the run after writing save RAM and movies"
                            : "a script ran past its hard deadline without returning (a long C call such as a "
                              "backtracking string.find?); ending the run after writing save RAM and movies",
                        LH_EXIT_RUNAWAY);
        }
        /* Only what was running when the stop came: exit callbacks and teardown after it run on their clocks. */
        if (stop && outer <= stop && now - stop >= STOP_GRACE_NS) {
            end_runaway(closing_now
                            ? "a script's state did not finish closing within a second of SIGINT/SIGTERM (a __gc "
                              "finalizer that never returns?); ending the run after writing save RAM and movies"
                            : "a script did not stop within a second of SIGINT/SIGTERM; ending the run after "
                              "writing save RAM and movies",
                        LH_EXIT_RUNAWAY);
        }
        if (started && (now - started >= ARM_AFTER_NS || stop)) pthread_kill(atomic_load(&lua_thread), WATCH_SIGNAL);
    }
    return NULL;
}

static void start_watchdog(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = arm_overdue;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(WATCH_SIGNAL, &action, NULL);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attributes, watchdog, NULL);
    pthread_attr_destroy(&attributes);
}

void lh_watch_enter(lua_State *thread) {
    pthread_once(&watchdog_once, start_watchdog);
    int d = atomic_load(&depth);
    if (d >= WATCH_DEPTH) { atomic_store(&depth, d + 1); return; }  /* too deep to watch: counted only */
    entries[d].thread = thread;
    entries[d].armed = 0;
    entries[d].started = entries[d].entered = now_ns();
    atomic_store(&lua_thread, pthread_self());
    atomic_store(&depth, d + 1);
    publish_clocks();
}

void lh_watch_leave(void) {
    int d = atomic_load(&depth) - 1;
    atomic_store(&depth, d);  /* from here on the handler cannot touch the entry */
    if (d < WATCH_DEPTH) {
        watch_entry *entry = &entries[d];
        if (entry->armed) {
            int outer_armed = 0;  /* the same thread entered again further out keeps its hook */
            for (int i = 0; i < d; i++) if (entries[i].thread == entry->thread && entries[i].armed) outer_armed = 1;
            if (!outer_armed) lua_sethook(entry->thread, NULL, 0, 0);
        }
        entry->thread = NULL;
        entry->armed = 0;
    }
    publish_clocks();
}

/* On the Lua thread: `L` and the innermost entry's thread stop at their next instruction. */
void lh_hook_every_instruction(lua_State *L) {
    lua_sethook(L, lh_count_hook, LUA_MASKCOUNT, 1);
    int d = atomic_load(&depth);
    if (d <= 0 || d > WATCH_DEPTH) return;
    watch_entry *entry = &entries[d - 1];
    if (!entry->thread) return;
    entry->armed = 1;  /* watch_leave takes the hook off again */
    lua_sethook(entry->thread, lh_count_hook, LUA_MASKCOUNT, 1);
}

static int on_lua_thread(void) {
    pthread_t thread = atomic_load(&lua_thread);
    return thread && pthread_equal(thread, pthread_self());
}

void lh_host_work_begin(void) {
    if (!on_lua_thread()) return;  /* another thread's work pauses no script */
    int w = work_depth++;
    if (w >= WORK_DEPTH) return;  /* too deep: counted only, the outer work already pauses the clocks */
    work[w].base = atomic_load(&clock_base);
    work[w].depth = atomic_load(&depth);
    work[w].began = now_ns();
    atomic_store(&clock_base, work[w].depth);
    publish_clocks();
}

/* The paused entries' clocks move on by the time the host worked, so it never counts as the script's. */
void lh_host_work_end(void) {
    if (!on_lua_thread() || work_depth == 0) return;
    int w = --work_depth;
    if (w >= WORK_DEPTH) return;
    uint64_t spent = now_ns() - work[w].began;
    for (int i = work[w].base; i < work[w].depth && i < WATCH_DEPTH; i++) entries[i].started += spent;
    atomic_store(&clock_base, work[w].base);
    publish_clocks();
}

void lh_close(lua_State *L) {
    atomic_fetch_add(&closing, 1);
    lh_watch_enter(NULL);  /* finalizers run with hooks off: only the deadlines can stop them */
    lua_close(L);
    lh_watch_leave();
    atomic_fetch_sub(&closing, 1);
}

void lh_request_stop(void) {
    uint64_t expected = 0;
    atomic_compare_exchange_strong(&stop_requested, &expected, now_ns());
}

void lh_set_deadlines(double soft_seconds, double hard_seconds) {
    if (soft_seconds > 0) atomic_store(&soft_deadline_ns, (uint64_t)(soft_seconds * 1e9));
    if (hard_seconds > 0) atomic_store(&hard_deadline_ns, (uint64_t)(hard_seconds * 1e9));
}

void lh_set_emergency(lh_emergency handler) { atomic_store(&emergency, handler); }


void lh_note_lua_thread(void) { atomic_store(&lua_thread, pthread_self()); }

uint64_t lh_soft_deadline_seconds(void) { return atomic_load(&soft_deadline_ns) / 1000000000ull; }
