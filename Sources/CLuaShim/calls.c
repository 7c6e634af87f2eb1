/* Protected calls and resumes with tracebacks, watched by the watchdog, and the small wrappers of Lua's
 * macros Swift cannot call. */
#include "lua_shim_private.h"

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
    lh_limits *limits = lh_limits_of(L);
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
    lh_watch_enter(L);
    int status = lua_pcall(L, nargs, nresults, base);
    lh_watch_leave();
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
    lh_watch_enter(from);
    int status = lua_pcall(from, 1, 1, 0);
    lh_watch_leave();
    if (status == LUA_OK && lua_type(from, -1) == LUA_TSTRING) return lua_tostring(from, -1);
    lua_pop(from, 1);
    lua_pushvalue(co, -1);
    lua_xmove(co, from, 1);
    const char *text = lua_pushfstring(from, "(error object is a %s value)", luaL_typename(from, -1));
    lua_remove(from, -2);
    return text;
}

int lh_resume_traceback(lua_State *co, lua_State *from, int nargs, int *nresults) {
    lh_watch_enter(co);
    int status = lua_resume(co, from, nargs, nresults);
    lh_watch_leave();
    if (status != LUA_OK && status != LUA_YIELD) {
        /* Outside any protected call here: lift the memory cap so building the message cannot fail. */
        lh_limits *limits = lh_limits_of(co);
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
    lh_hook_coroutine_library(L);
    return 0;
}

int lh_openlibs(lua_State *L) {
    lua_pushcfunction(L, open_libs);
    return lh_pcall_traceback(L, 0, 0);
}
