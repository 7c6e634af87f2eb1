import CLua
import CLuaShim

/// One Lua function: its binding and the documentation that the API reference and the LuaLS stubs
/// are generated from, so the docs cannot drift from what is registered.
public struct LuaFunction: Sendable {
    public let name: String
    /// Parameters as `name: type` pairs, `?` marking optional ones: `"address: integer, domain?: string"`.
    public let parameters: String
    /// Result types, comma-separated (`"integer"`, `"string?, string?"`), empty for none.
    public let returns: String
    public let doc: String
    public let body: lh_binding
    /// Passed to `body` through `lh_binding_tag`, when one body serves several functions.
    public let tag: Int?
    /// False for functions defined in Lua by the host's prelude: documented here, not registered.
    public let native: Bool

    public init(_ name: String, _ parameters: String = "", returns: String = "", doc: String, tag: Int? = nil, _ body: lh_binding) {
        self.name = name
        self.parameters = parameters
        self.returns = returns
        self.doc = doc
        self.tag = tag
        self.body = body
        native = true
    }

    /// Documents a function the host defines in Lua.
    public init(lua name: String, _ parameters: String = "", returns: String = "", doc: String) {
        self.name = name
        self.parameters = parameters
        self.returns = returns
        self.doc = doc
        tag = nil
        body = { _, _ in 0 }
        native = false
    }
}

/// A Lua module (a global table of functions) with its documentation.
public struct LuaModule: Sendable {
    public let name: String
    public let doc: String
    public let functions: [LuaFunction]
    /// A userdata type whose functions are methods (`state:load()`), not a global table.
    public let isClass: Bool

    public init(_ name: String, doc: String, isClass: Bool = false, functions: [LuaFunction]) {
        self.name = name
        self.doc = doc
        self.isClass = isClass
        self.functions = functions
    }

    /// Sets the global `name` to a table of the functions, each called with `context`.
    /// Runs before any script code, on a fresh state.
    public func register(in L: OpaquePointer, context: UnsafeMutableRawPointer) {
        lua_getglobal(L, name)
        if lua_type(L, -1) != LUA_TTABLE {
            lh_pop(L, 1)
            lua_createtable(L, 0, Int32(functions.count))
        }
        for function in functions where function.native {
            if let tag = function.tag {
                lh_push_tagged_binding(L, function.body, context, lua_Integer(tag))
            } else {
                lh_push_binding(L, function.body, context)
            }
            lua_setfield(L, -2, function.name)
        }
        lua_setglobal(L, name)
    }
}

/// A metatable name as a C string that lives forever: passing a Swift `String` to
/// `luaL_testudata` would build a temporary C string on every call.
public struct LuaTypeName: @unchecked Sendable {
    public let cString: UnsafePointer<CChar>

    public init(_ name: StaticString) {
        cString = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
