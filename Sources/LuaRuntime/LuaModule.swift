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
}

// In an extension, so that the memberwise initializer they call is kept.
extension LuaFunction {
    public init(
        _ name: String, _ parameters: String = "", returns: String = "", doc: String, tag: Int? = nil,
        _ body: lh_binding
    ) {
        self.init(
            name: name, parameters: parameters, returns: returns, doc: doc, body: body, tag: tag, native: true)
    }

    /// Documents a function the host defines in Lua.
    public init(lua name: String, _ parameters: String = "", returns: String = "", doc: String) {
        self.init(
            name: name, parameters: parameters, returns: returns, doc: doc, body: { _, _ in 0 }, tag: nil,
            native: false)
    }
}

/// A value a module holds beside its functions (`joypad.BUTTONS`), documented like them.
public struct LuaConstant: Sendable {
    public let name: String
    /// Its LuaLS type: `"table<string, integer>"`.
    public let type: String
    public let doc: String
    /// Pushes the value, once per state, when the module is registered.
    public let push: @Sendable (OpaquePointer) -> Void

    public init(_ name: String, type: String, doc: String, push: @escaping @Sendable (OpaquePointer) -> Void) {
        self.name = name
        self.type = type
        self.doc = doc
        self.push = push
    }
}

/// A Lua module (a global table of functions) or a class (a userdata metatable), with its documentation.
public struct LuaModule: Sendable {
    public let name: String
    public let doc: String
    public let functions: [LuaFunction]
    /// A module's values (a class has none), set on its table before its functions.
    public var constants: [LuaConstant] = []
    /// For a class: the registry name of its metatable. Its functions are methods (`state:load()`).
    public let metatable: LuaTypeName?
    public var isClass: Bool { metatable != nil }
}

// In an extension, so that the memberwise initializer they call is kept.
extension LuaModule {
    public init(_ name: String, doc: String, constants: [LuaConstant] = [], functions: [LuaFunction]) {
        self.init(name: name, doc: doc, functions: functions, constants: constants, metatable: nil)
    }

    /// A userdata type: `__`-named functions are its metamethods, the others its methods.
    public init(class name: String, metatable: LuaTypeName, doc: String, functions: [LuaFunction]) {
        self.init(name: name, doc: doc, functions: functions, metatable: metatable)
    }

    /// A module sets the global `name` to a table of its functions; a class creates its metatable with
    /// the metamethods on it and the methods in `__index`. Each is called with `context`.
    /// Runs before any script code, on a fresh state.
    public func register(in L: OpaquePointer, context: UnsafeMutableRawPointer) {
        if let metatable {
            luaL_newmetatable(L, metatable.cString)
            let methods = functions.filter { $0.native && !$0.name.hasPrefix("__") }
            lua_createtable(L, 0, Int32(methods.count))
            for method in methods { push(method, separator: ":", in: L, context: context) }
            lua_setfield(L, -2, "__index")
            for metamethod in functions where metamethod.native && metamethod.name.hasPrefix("__") {
                push(metamethod, separator: ":", in: L, context: context)
            }
            lh_pop(L, 1)
            return
        }
        lua_getglobal(L, name)
        if lua_type(L, -1) != LUA_TTABLE {
            lh_pop(L, 1)
            lua_createtable(L, 0, Int32(functions.count))
        }
        for constant in constants {
            constant.push(L)
            lua_setfield(L, -2, constant.name)
        }
        for function in functions where function.native { push(function, separator: ".", in: L, context: context) }
        lua_setglobal(L, name)
    }

    /// Sets `table[function.name]` (the table on top of the stack) to the function's binding.
    private func push(_ function: LuaFunction, separator: String, in L: OpaquePointer, context: UnsafeMutableRawPointer)
    {
        let qualified = name + separator + function.name
        if let tag = function.tag {
            lh_push_tagged_binding(L, function.body, context, qualified, lua_Integer(tag))
        } else {
            lh_push_binding(L, function.body, context, qualified)
        }
        lua_setfield(L, -2, function.name)
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
