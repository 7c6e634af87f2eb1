#ifndef LUA_SHIM_H
#define LUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stddef.h>

/* Swift cannot import Lua's function-like macros, and must never be unwound by a Lua error.
 * Everything here is a prefixed (lh_) function with a one-line reason. */

/// A Swift binding. Returns the number of results pushed, `LH_RAISE` after pushing an error message
/// (the trampoline raises it once the Swift frame has returned), or `LH_YIELD` to yield the coroutine.
typedef int (*lh_binding)(lua_State *L, void *context);
#define LH_RAISE (-1)
#define LH_YIELD (-2)

/// Per-script limits, shared by all coroutines of a state through the allocator's userdata.
typedef struct lh_limits {
    size_t memory_used;
    size_t host_held;             /* bytes the host keeps for the script (images, savestate.data, results) */
    size_t memory_limit;          /* 0 = unlimited */
    int over_memory_limit;        /* set when an allocation was refused or deferred */
    int in_binding;               /* >0 while a Swift binding runs: allocations may not fail there */
    long long instructions_left;  /* refilled by the host before every entry into Lua */
    long long instruction_budget; /* 0 = unlimited */
    int over_instruction_budget;  /* set once the entry was stopped (budget, deadline or stop request) */
    int stop_reason;              /* why the running entry is being stopped; 0 = it is not */
} lh_limits;

/// The exit status of a run ended because a script never returned (see lh_set_emergency).
#define LH_EXIT_RUNAWAY 3

/// Called on the watchdog thread just before the process ends a runaway: write what must not be lost.
typedef void (*lh_emergency)(const char *message);

/// Stops the running entry into Lua (and any begun before now) at its next instruction: SIGINT/SIGTERM.
/// A second later, if Lua is still running (a long C call), the emergency handler runs and the process ends.
void lh_request_stop(void);

/// An entry is stopped past `soft_seconds` even when its instruction budget is not spent (its hook was
/// cleared); past `hard_seconds` the process ends through the emergency handler. 0 keeps a value.
void lh_set_deadlines(double soft_seconds, double hard_seconds);

/// Around the host's own work for a script (a binding running frames, a durable write's fsync on a busy
/// disk): that time does not count towards the deadlines of the entries it runs inside; entries begun
/// during it (callbacks its frames fire) are watched from their own start. Nests. Only the Lua thread's
/// work counts. Stop requests still end the run.
void lh_host_work_begin(void);
void lh_host_work_end(void);

/// lua_close under the watchdog: a `__gc` finalizer that never returns ends the run at the hard deadline
/// (or a second after a stop request) through the emergency handler, instead of hanging the process.
void lh_close(lua_State *L);

/// The handler for runaways that only ending the process can stop (NULL: none).
void lh_set_emergency(lh_emergency handler);

/// A new state whose allocator enforces `limits` (which must outlive the state). Its instruction budget is
/// enforced by a count hook that a watchdog arms on entries running longer than 20 ms (see lua_shim.c).
lua_State *lh_newstate(lh_limits *limits);

/// Refills the instruction budget before the host enters Lua.
void lh_refill_budget(lh_limits *limits);

/// Pushes a closure that calls `fn(L, context)` through the raising trampoline; `name` (`memory.read_u8`)
/// is kept with it so error messages name the function without the body spelling it again.
void lh_push_binding(lua_State *L, lh_binding fn, void *context, const char *name);

/// Like lh_push_binding, with an integer tag as a fourth upvalue (one Swift body serving many functions).
void lh_push_tagged_binding(lua_State *L, lh_binding fn, void *context, const char *name, lua_Integer tag);

/// The name the running binding was registered under.
const char *lh_binding_name(lua_State *L);

/// The tag of the running tagged binding.
lua_Integer lh_binding_tag(lua_State *L);

/// lua_pcall (a macro) with a message handler that appends debug.traceback; returns the status.
int lh_pcall_traceback(lua_State *L, int nargs, int nresults);

/// lua_resume of a coroutine; on error replaces the message with message + traceback of `co`.
int lh_resume_traceback(lua_State *co, lua_State *from, int nargs, int *nresults);

/// Macros, as functions.
void lh_pop(lua_State *L, int n);
int lh_registryindex(void);
const char *lh_tostring(lua_State *L, int index);
int lh_isyieldable(lua_State *L);
void lh_gc_collect(lua_State *L);         /* lua_gc is variadic */

/// luaL_loadbufferx with a chunk name; never raises (syntax errors come back as a status).
int lh_loadbuffer(lua_State *L, const char *buffer, size_t size, const char *chunkname);

/// Opens the standard libraries in protected mode (opening them allocates, which may raise).
int lh_openlibs(lua_State *L);

#endif
