import Emulation
import CLua
import CLuaShim
import Foundation
import LuaRuntime

/// Calling into a script from the host outside the frame's events (the control socket), with Lua
/// values turned into JSON-compatible ones.
extension Script {
    /// Calls the global function `name` with no arguments; its first result (nil: `NSNull`).
    public func callGlobal(_ name: String) -> Result<Any, ScriptError> {
        let L = lua.L
        // A raw lookup: a metatable on the globals must not run (and possibly raise) outside a pcall.
        lua_rawgeti(L, lh_registryindex(), lua_Integer(LUA_RIDX_GLOBALS))
        lua_pushstring(L, name)
        let type = lua_rawget(L, -2)
        lua_rotate(L, -2, 1)
        lh_pop(L, 1)
        guard type == LUA_TFUNCTION else {
            lh_pop(L, 1)
            return .failure(ScriptError(script: self.name, message: "\(self.name) defines no function '\(name)'"))
        }
        do {
            try lua.call(nargs: 0, nresults: 1)
        } catch {
            let failure = ScriptError(script: self.name, message: error.message)
            fail(error.message)
            return .failure(failure)
        }
        defer { lh_pop(L, 1) }
        return .success(Script.jsonValue(L, -1, depth: 0))
    }

    /// Runs a chunk of Lua; its results.
    func evaluate(_ source: String) -> Result<[Any], ScriptError> {
        let L = lua.L
        let base = lua_gettop(L)
        do {
            try lua.load(source, name: "=control")
            try lua.call(nargs: 0, nresults: LUA_MULTRET)
        } catch {
            lua_settop(L, base)
            return .failure(ScriptError(script: name, message: error.message))
        }
        let values = (base + 1...max(base + 1, lua_gettop(L))).prefix(Int(lua_gettop(L) - base)).map {
            Script.jsonValue(L, $0, depth: 0)
        }
        lua_settop(L, base)
        return .success(values)
    }

    /// nil → NSNull, booleans, integers, floats, strings, and tables (sequences → arrays, others →
    /// objects with string keys), 32 levels deep; anything else as its type name.
    static func jsonValue(_ L: OpaquePointer, _ index: Int32, depth: Int) -> Any {
        let index = lua_absindex(L, index)
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return NSNull()
        case LUA_TBOOLEAN: return lua_toboolean(L, index) != 0
        case LUA_TNUMBER:
            return lua_isinteger(L, index) != 0 ? Int(lua_tointegerx(L, index, nil)) : lua_tonumberx(L, index, nil)
        case LUA_TSTRING:
            var length = 0
            let pointer = lua_tolstring(L, index, &length)!
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        case LUA_TTABLE where depth < 32:
            let count = Int(lua_rawlen(L, index))
            if count > 0 {
                return (1...count).map { position -> Any in
                    lua_rawgeti(L, index, lua_Integer(position))
                    defer { lh_pop(L, 1) }
                    return jsonValue(L, -1, depth: depth + 1)
                }
            }
            var object: [String: Any] = [:]
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                if lua_type(L, -2) == LUA_TSTRING || lua_type(L, -2) == LUA_TNUMBER {
                    lua_pushvalue(L, -2)
                    let key = String(cString: lua_tolstring(L, -1, nil))
                    lh_pop(L, 1)
                    object[key] = jsonValue(L, -1, depth: depth + 1)
                }
                lh_pop(L, 1)
            }
            return object
        default:
            return String(cString: lua_typename(L, lua_type(L, index)))
        }
    }
}
