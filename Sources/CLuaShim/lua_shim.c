#include "lua_shim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The count hook runs every HOOK_INTERVAL VM instructions: cheap, and fine-grained enough to stop
 * a runaway loop promptly. */
#define HOOK_INTERVAL 10000

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
    if (limits->memory_limit && nsize > old && limits->memory_used - old + nsize > limits->memory_limit) {
        limits->over_memory_limit = 1;
        /* Inside a Swift binding a failure would longjmp over Swift frames: allow it, and let the
         * trampoline raise once the binding has returned. */
        if (!limits->in_binding) return NULL;
    }
    void *block = realloc(ptr, nsize);
    if (block) limits->memory_used = limits->memory_used - old + nsize;
    return block;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lh_limits *limits = limits_of(L);
    if (!limits->instruction_budget) return;
    limits->instructions_left -= HOOK_INTERVAL;
    if (limits->instructions_left <= 0) {
        limits->over_instruction_budget = 1;
        /* Level 0 is the running Lua function (a hook is not a call level), so name its line. */
        luaL_where(L, 0);
        lua_pushfstring(L, "script ran %I instructions without returning to the emulator (runaway loop?)",
                        (lua_Integer)limits->instruction_budget);
        lua_concat(L, 2);
        lua_error(L);
    }
}

static int on_panic(lua_State *L) {
    /* Only reachable for errors outside any protected call, which the host never makes. */
    const char *message = lua_tostring(L, -1);
    fprintf(stderr, "retrolua: unprotected Lua error: %s\n", message ? message : "?");
    abort();
}

lua_State *lh_newstate(lh_limits *limits) {
    lua_State *L = lua_newstate(limited_alloc, limits);
    if (!L) return NULL;
    lua_atpanic(L, on_panic);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_INTERVAL);
    return L;
}

void lh_refill_budget(lh_limits *limits) {
    limits->instructions_left = limits->instruction_budget;
}

static int trampoline(lua_State *L) {
    lh_binding fn = (lh_binding)(uintptr_t)lua_touserdata(L, lua_upvalueindex(1));
    void *context = lua_touserdata(L, lua_upvalueindex(2));
    lh_limits *limits = limits_of(L);
    limits->in_binding++;
    int results = fn(L, context);
    limits->in_binding--;
    if (limits->memory_limit && limits->memory_used > limits->memory_limit && !limits->in_binding) {
        limits->over_memory_limit = 1;
        lua_pushfstring(L, "script exceeded its memory limit of %d MB", (int)(limits->memory_limit >> 20));
        return lua_error(L);
    }
    if (results == LH_RAISE) return lua_error(L);
    if (results == LH_YIELD) return lua_yield(L, 0);
    return results;
}

void lh_push_binding(lua_State *L, lh_binding fn, void *context) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushlightuserdata(L, context);
    lua_pushcclosure(L, trampoline, 2);
}

void lh_push_tagged_binding(lua_State *L, lh_binding fn, void *context, lua_Integer tag) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushlightuserdata(L, context);
    lua_pushinteger(L, tag);
    lua_pushcclosure(L, trampoline, 3);
}

lua_Integer lh_binding_tag(lua_State *L) { return lua_tointegerx(L, lua_upvalueindex(3), NULL); }

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
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return status;
}

int lh_resume_traceback(lua_State *co, lua_State *from, int nargs, int *nresults) {
    int status = lua_resume(co, from, nargs, nresults);
    if (status != LUA_OK && status != LUA_YIELD) {
        /* Outside any protected call here: lift the memory cap so building the message cannot fail. */
        lh_limits *limits = limits_of(co);
        size_t limit = limits->memory_limit;
        limits->memory_limit = 0;
        const char *message = lua_tostring(co, -1);
        luaL_traceback(co, co, message ? message : "(error object is not a string)", 0);
        lua_remove(co, -2);
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
    return 0;
}

int lh_openlibs(lua_State *L) {
    lua_pushcfunction(L, open_libs);
    return lh_pcall_traceback(L, 0, 0);
}
