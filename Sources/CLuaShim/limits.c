/* A script's limits: its memory cap (the allocator), its instruction budget (the count hook, also set on
 * the coroutines scripts create), and a new state. */
#include "lua_shim_private.h"

#include <stdio.h>
#include <stdlib.h>

lh_limits *lh_limits_of(lua_State *L) {
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

static void raise_stop(lua_State *L, lh_limits *limits) {
    /* Once stopped, the hook fires on every instruction until control is back in the host: a script
     * that catches the error with pcall (or in a coroutine it resumed) fails again at its next
     * instruction, so it cannot loop on. */
    lh_hook_every_instruction(L);
    limits->over_instruction_budget = 1;
    luaL_where(L, 0);  /* level 0 is the running Lua function (a hook is not a call level) */
    switch (limits->stop_reason) {
    case STOP_SIGNAL:
        lua_pushstring(L, "script interrupted: the run is stopping (SIGINT/SIGTERM)");
        break;
    case STOP_TIME:
        lua_pushfstring(L, "script ran for %d seconds without returning to the emulator (runaway loop?)",
                        (int)lh_soft_deadline_seconds());
        break;
    default:
        lua_pushfstring(L, "script ran %I instructions without returning to the emulator (runaway loop?)",
                        (lua_Integer)limits->instruction_budget);
    }
    lua_concat(L, 2);
    lua_error(L);
}

void lh_count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lh_limits *limits = lh_limits_of(L);
    if (limits->stop_reason != STOP_NONE) raise_stop(L, limits);
    if (!limits->instruction_budget) return;
    limits->instructions_left -= HOOK_INTERVAL;
    if (limits->instructions_left <= 0) {
        limits->stop_reason = STOP_BUDGET;
        raise_stop(L, limits);
    }
}

/* coroutine.create and coroutine.wrap with the count hook set on the new thread. */
static int hooked_create(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    lua_State *co = lua_tothread(L, -1);
    if (co) lua_sethook(co, lh_count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
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
        if (co) lua_sethook(co, lh_count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
        lua_pop(L, 1);
    }
    return 1;
}

void lh_hook_coroutine_library(lua_State *L) {
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
    lh_note_lua_thread();  /* states are made and entered on the Lua thread */
    lua_State *L = lua_newstate(limited_alloc, limits);
    if (!L) return NULL;
    lua_atpanic(L, on_panic);
    return L;
}

void lh_refill_budget(lh_limits *limits) {
    limits->instructions_left = limits->instruction_budget;
    limits->stop_reason = 0;
}
