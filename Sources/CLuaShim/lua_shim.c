#include "lua_shim.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The count hook runs every HOOK_INTERVAL VM instructions: cheap, and fine-grained enough to stop
 * a runaway loop promptly. */
#define HOOK_INTERVAL 10000

static void count_hook(lua_State *L, lua_Debug *ar);
static _Atomic uint64_t soft_deadline_ns; /* defined with the watchdog below */

static lh_limits *limits_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (lh_limits *)ud;
}

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lh_limits *limits = (lh_limits *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        limits->memory_used -= old;
        return NULL;
    }
    if (limits->memory_limit && nsize > old && limits->memory_used + limits->host_held - old + nsize > limits->memory_limit) {
        limits->over_memory_limit = 1;
        /* Inside a Swift binding a failure would longjmp over Swift frames: allow it, and let the
         * trampoline raise once the binding has returned. */
        if (!limits->in_binding) return NULL;
    }
    void *block = realloc(ptr, nsize);
    if (block) limits->memory_used = limits->memory_used - old + nsize;
    return block;
}

/* What stops a running entry, set on the Lua thread (hook, signal handler) and read by the hook. */
enum { STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_SIGNAL };

static void hook_every_instruction(lua_State *L);

static void raise_stop(lua_State *L, lh_limits *limits) {
    /* Once stopped, the hook fires on every instruction until control is back in the host: a script
     * that catches the error with pcall (or in a coroutine it resumed) fails again at its next
     * instruction, so it cannot loop on. */
    hook_every_instruction(L);
    limits->over_instruction_budget = 1;
    luaL_where(L, 0);  /* level 0 is the running Lua function (a hook is not a call level) */
    switch (limits->stop_reason) {
    case STOP_SIGNAL:
        lua_pushstring(L, "script interrupted: the run is stopping (SIGINT/SIGTERM)");
        break;
    case STOP_TIME:
        lua_pushfstring(L, "script ran for %d seconds without returning to the emulator (runaway loop?)",
                        (int)(atomic_load(&soft_deadline_ns) / 1000000000ull));
        break;
    default:
        lua_pushfstring(L, "script ran %I instructions without returning to the emulator (runaway loop?)",
                        (lua_Integer)limits->instruction_budget);
    }
    lua_concat(L, 2);
    lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lh_limits *limits = limits_of(L);
    if (limits->stop_reason != STOP_NONE) raise_stop(L, limits);
    if (!limits->instruction_budget) return;
    limits->instructions_left -= HOOK_INTERVAL;
    if (limits->instructions_left <= 0) {
        limits->stop_reason = STOP_BUDGET;
        raise_stop(L, limits);
    }
}

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
    lh_limits *limits = limits_of(entry->thread);
    if (stop && entries[0].entered <= stop) {
        limits->stop_reason = STOP_SIGNAL;
    } else if (now - entries[base].started >= atomic_load(&soft_deadline_ns) && limits->stop_reason == STOP_NONE) {
        limits->stop_reason = STOP_TIME;
    }
    if (limits->stop_reason != STOP_NONE) {
        entry->armed = 1;
        lua_sethook(entry->thread, count_hook, LUA_MASKCOUNT, 1);
        return;
    }
    if (entry->armed) return;
    entry->armed = 1;
    lua_sethook(entry->thread, count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
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

static void watch_enter(lua_State *thread) {
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

static void watch_leave(void) {
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
static void hook_every_instruction(lua_State *L) {
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    int d = atomic_load(&depth);
    if (d <= 0 || d > WATCH_DEPTH) return;
    watch_entry *entry = &entries[d - 1];
    if (!entry->thread) return;
    entry->armed = 1;  /* watch_leave takes the hook off again */
    lua_sethook(entry->thread, count_hook, LUA_MASKCOUNT, 1);
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
    watch_enter(NULL);  /* finalizers run with hooks off: only the deadlines can stop them */
    lua_close(L);
    watch_leave();
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

/* coroutine.create and coroutine.wrap with the count hook set on the new thread. */
static int hooked_create(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    lua_State *co = lua_tothread(L, -1);
    if (co) lua_sethook(co, count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
    return lua_gettop(L);
}

static int hooked_wrap(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    /* The wrapper is a C closure whose first upvalue is its coroutine. */
    if (lua_getupvalue(L, -1, 1)) {
        lua_State *co = lua_tothread(L, -1);
        if (co) lua_sethook(co, count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
        lua_pop(L, 1);
    }
    return 1;
}

static void hook_coroutine_library(lua_State *L) {
    if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
        lua_getfield(L, -1, "create");
        lua_pushcclosure(L, hooked_create, 1);
        lua_setfield(L, -2, "create");
        lua_getfield(L, -1, "wrap");
        lua_pushcclosure(L, hooked_wrap, 1);
        lua_setfield(L, -2, "wrap");
    }
    lua_pop(L, 1);
}

static int on_panic(lua_State *L) {
    /* Only reachable for errors outside any protected call, which the host never makes. */
    const char *message = lua_tostring(L, -1);
    fprintf(stderr, "retrolua: unprotected Lua error: %s\n", message ? message : "?");
    abort();
}

lua_State *lh_newstate(lh_limits *limits) {
    atomic_store(&lua_thread, pthread_self());  /* states are made and entered on the Lua thread */
    lua_State *L = lua_newstate(limited_alloc, limits);
    if (!L) return NULL;
    lua_atpanic(L, on_panic);
    return L;
}

void lh_refill_budget(lh_limits *limits) {
    limits->instructions_left = limits->instruction_budget;
    limits->stop_reason = 0;
}

static int trampoline(lua_State *L) {
    lh_binding fn = (lh_binding)(uintptr_t)lua_touserdata(L, lua_upvalueindex(1));
    void *context = lua_touserdata(L, lua_upvalueindex(2));
    lh_limits *limits = limits_of(L);
    limits->in_binding++;
    int results = fn(L, context);
    limits->in_binding--;
    if (limits->memory_limit && limits->memory_used + limits->host_held > limits->memory_limit && !limits->in_binding) {
        limits->over_memory_limit = 1;
        lua_pushfstring(L, "script exceeded its memory limit of %d MB", (int)(limits->memory_limit >> 20));
        return lua_error(L);
    }
    if (results == LH_RAISE) return lua_error(L);
    if (results == LH_YIELD) return lua_yield(L, 0);
    return results;
}

void lh_push_binding(lua_State *L, lh_binding fn, void *context, const char *name) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushlightuserdata(L, context);
    lua_pushstring(L, name);
    lua_pushcclosure(L, trampoline, 3);
}

void lh_push_tagged_binding(lua_State *L, lh_binding fn, void *context, const char *name, lua_Integer tag) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushlightuserdata(L, context);
    lua_pushstring(L, name);
    lua_pushinteger(L, tag);
    lua_pushcclosure(L, trampoline, 4);
}

const char *lh_binding_name(lua_State *L) { return lua_tostring(L, lua_upvalueindex(3)); }

lua_Integer lh_binding_tag(lua_State *L) { return lua_tointegerx(L, lua_upvalueindex(4), NULL); }

static int traceback_message(lua_State *L) {
    const char *message = lua_tostring(L, 1);
    if (!message) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, message, 1);
    return 1;
}

static int traceback_handler(lua_State *L) {
    /* The error may be the memory cap itself: lift it while the message is built. */
    lh_limits *limits = limits_of(L);
    size_t limit = limits->memory_limit;
    limits->memory_limit = 0;
    int results = traceback_message(L);
    limits->memory_limit = limit;
    return results;
}

int lh_pcall_traceback(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    watch_enter(L);
    int status = lua_pcall(L, nargs, nresults, base);
    watch_leave();
    lua_remove(L, base);
    return status;
}

static int tostring_of(lua_State *L) {
    if (luaL_callmeta(L, 1, "__tostring")) return 1;
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    return 1;
}

/* A non-string error object from a coroutine, as text: its __tostring (run on `from`, protected and
 * watched, since the errored coroutine cannot run code), else its type. The text stays on top of `from`'s
 * stack, for the caller to pop once the traceback is built. */
static const char *describe_error(lua_State *co, lua_State *from) {
    lua_pushcfunction(from, tostring_of);
    lua_pushvalue(co, -1);
    lua_xmove(co, from, 1);
    watch_enter(from);
    int status = lua_pcall(from, 1, 1, 0);
    watch_leave();
    if (status == LUA_OK && lua_type(from, -1) == LUA_TSTRING) return lua_tostring(from, -1);
    lua_pop(from, 1);
    lua_pushvalue(co, -1);
    lua_xmove(co, from, 1);
    const char *text = lua_pushfstring(from, "(error object is a %s value)", luaL_typename(from, -1));
    lua_remove(from, -2);
    return text;
}

int lh_resume_traceback(lua_State *co, lua_State *from, int nargs, int *nresults) {
    watch_enter(co);
    int status = lua_resume(co, from, nargs, nresults);
    watch_leave();
    if (status != LUA_OK && status != LUA_YIELD) {
        /* Outside any protected call here: lift the memory cap so building the message cannot fail. */
        lh_limits *limits = limits_of(co);
        size_t limit = limits->memory_limit;
        limits->memory_limit = 0;
        const char *message = lua_tostring(co, -1);
        int described = message == NULL;
        if (described) message = describe_error(co, from);
        luaL_traceback(co, co, message, 0);
        lua_remove(co, -2);
        if (described) lua_pop(from, 1);
        limits->memory_limit = limit;
    }
    return status;
}

void lh_pop(lua_State *L, int n) { lua_pop(L, n); }
int lh_registryindex(void) { return LUA_REGISTRYINDEX; }
const char *lh_tostring(lua_State *L, int index) { return lua_tostring(L, index); }
int lh_isyieldable(lua_State *L) { return lua_isyieldable(L); }
void lh_gc_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }

int lh_loadbuffer(lua_State *L, const char *buffer, size_t size, const char *chunkname) {
    return luaL_loadbufferx(L, buffer, size, chunkname, "t");
}

static int open_libs(lua_State *L) {
    luaL_openlibs(L);
    hook_coroutine_library(L);
    return 0;
}

int lh_openlibs(lua_State *L) {
    lua_pushcfunction(L, open_libs);
    return lh_pcall_traceback(L, 0, 0);
}
