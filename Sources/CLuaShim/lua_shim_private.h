/* What the shim's files share and the host does not see: the count hook, the watchdog's entry and exit,
 * and the stop reasons they agree on. */
#ifndef LUA_SHIM_PRIVATE_H
#define LUA_SHIM_PRIVATE_H

#include "lua_shim.h"

#include <stdint.h>

/* The count hook runs every HOOK_INTERVAL VM instructions: cheap, and fine-grained enough to stop
 * a runaway loop promptly. */
#define HOOK_INTERVAL 10000

/* What stops a running entry, set on the Lua thread (hook, signal handler) and read by the hook. */
enum { STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_SIGNAL };

/* limits.c: the state's limits (its allocator's userdata) and the hook that enforces them. */
lh_limits *lh_limits_of(lua_State *L);
void lh_count_hook(lua_State *L, lua_Debug *ar);
void lh_hook_coroutine_library(lua_State *L);

/* watchdog.c: every host entry into Lua is watched; a stopped script fails at its next instruction. */
void lh_watch_enter(lua_State *thread);
void lh_watch_leave(void);
void lh_hook_every_instruction(lua_State *L);
void lh_note_lua_thread(void);
uint64_t lh_soft_deadline_seconds(void);

#endif
