import CLua
import CLuaShim
import LuaRuntime

/// The default frontend's hotkeys as its Lua lists them (lua/retrolua/hotkeys.lua and the tools' keys in
/// lua/retrolua/tools.lua), for `retrolua help run`, the man page and the CLI reference: read by running
/// those modules in a bare Lua state, so the Lua table stays their one source.
public enum DefaultHotkeys {
    public struct Binding: Equatable, Sendable {
        public let key: String
        public let action: String
    }

    /// The menu and RAM tools first, then hotkeys.actions in the menu's order, then the held keys.
    /// Settings files are not read: these are the defaults (`settings.load` answers with them).
    static let listing = """
        local folder = ...
        package.path = folder .. "/?.lua"
        package.preload["retrolua.settings"] = function()
          return { load = function(_, defaults) return defaults end }
        end
        local hotkeys, tools = require("retrolua.hotkeys"), require("retrolua.tools")
        local list = {
          { tools.menu().key, "the menu: hotkeys, core options, save slots, cheats, achievements, scripts" },
          { tools.ramtools().panel_key, "the RAM tools: search, watch list, memory viewer" },
        }
        for _, action in ipairs(hotkeys.actions) do list[#list + 1] = { action[2], action[3] } end
        list[#list + 1] = { hotkeys.REWIND.key, "rewind while held" }
        for _, turbo in ipairs(hotkeys.TURBO) do
          list[#list + 1] = { turbo.key, "turbo " .. tostring(turbo.button) .. " while held" }
        end
        return list
        """

    /// The default bindings under `luaFolder`; a failure says which file and why.
    public static func load(luaFolder: String?) -> Result<[Binding], LuaError> {
        guard let luaFolder else {
            return .failure(LuaError(message: "no lua/ folder found (set RETROLUA_LUA_DIR)"))
        }
        let state = LuaState(memoryLimit: 16 << 20, instructionBudget: 10_000_000)
        defer { state.close() }
        let L = state.L
        do {
            try state.load(listing, name: "retrolua/hotkey-listing")
            lua_pushstring(L, luaFolder)
            try state.call(nargs: 1, nresults: 1)
        } catch {
            return .failure(error)
        }
        defer { lh_pop(L, 1) }
        var bindings: [Binding] = []
        for index in stride(from: 1, through: Int(lua_rawlen(L, -1)), by: 1) {
            lua_rawgeti(L, -1, lua_Integer(index))
            lua_rawgeti(L, -1, 1)
            lua_rawgeti(L, -2, 2)
            if let key = string(L, -2), let action = string(L, -1) {
                bindings.append(Binding(key: key, action: action))
            }
            lh_pop(L, 3)
        }
        return .success(bindings)
    }

    private static func string(_ L: OpaquePointer, _ index: Int32) -> String? {
        guard lua_type(L, index) == LUA_TSTRING, let text = lua_tolstring(L, index, nil) else { return nil }
        return String(validatingCString: text)
    }
}
