/* Swift bindings as Lua C closures: the trampoline that calls them and turns their results into Lua's. */
#include "lua_shim_private.h"

#include <stdint.h>

static int trampoline(lua_State *L) {
    lh_binding fn = (lh_binding)(uintptr_t)lua_touserdata(L, lua_upvalueindex(1));
    void *context = lua_touserdata(L, lua_upvalueindex(2));
    lh_limits *limits = lh_limits_of(L);
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
