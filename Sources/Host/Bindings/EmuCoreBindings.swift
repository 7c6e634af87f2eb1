import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// `emu` functions about the running core and content: info and core options.
    static let coreInfoFunctions: [LuaFunction] = [
        LuaFunction(
            "info", returns: "table",
            doc:
                """
                The running core and content: `{core=, core_version=, core_path=, system=, extensions=, fps=, \
                sample_rate=, width=, height=, max_width=, max_height=, aspect=, pixel_format=, rom={path=, \
                name=, size=, sha1=, crc32=}}`. `width`/`height` are the last frame's.
                """
        ) { L, context in
            LuaCall.run(L) { call in
                let session = Script.from(context).emulator.session
                let core = session.core
                call.newTable(fields: 16)
                call.set("core", session.coreName)
                call.set("core_name", core.systemInfo.libraryName)
                call.set("core_version", core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces))
                call.set("core_path", core.path)
                call.set("extensions", core.systemInfo.validExtensions.joined(separator: "|"))
                if let av = core.avInfo {
                    call.set("fps", av.fps)
                    call.set("sample_rate", av.sampleRate)
                    call.set("max_width", av.maxWidth)
                    call.set("max_height", av.maxHeight)
                    call.set("aspect", av.aspectRatio)
                    call.set("width", core.frameWidth > 0 ? core.frameWidth : av.baseWidth)
                    call.set("height", core.frameHeight > 0 ? core.frameHeight : av.baseHeight)
                }
                call.set("pixel_format", core.pixelFormat.description)
                if let system = session.systemName { call.set("system", system) }
                if let content = session.content {
                    call.newTable(fields: 5)
                    call.set("path", content.path)
                    call.set("name", content.baseName)
                    call.set("size", content.size)
                    call.set("sha1", content.sha1)
                    call.set("crc32", content.crc32)
                    lua_setfield(L, -2, "rom")
                }
                return 1
            }
        },
        LuaFunction(
            "option", "key: string, value?: string", returns: "string?, string?",
            doc:
                """
                Gets a core option's value, or sets it (the core sees the change at its next check). Returns \
                the value in effect, or `nil, message` for an unknown key or a value the core does not offer.
                """
        ) { L, context in
            LuaCall.run(L) { call in
                let options = Script.from(context).emulator.session.core.options
                let key = try call.string(1, "key")
                guard options.definitions.contains(where: { $0.key == key }) else {
                    return call.failure("the core has no option '\(key)'")
                }
                if let value = try call.optionalString(2, "value"), let problem = options.set(key, value) {
                    return call.failure(problem)
                }
                call.push(options.value(key) ?? "")
                return 1
            }
        },
        LuaFunction(
            "options", returns: "table",
            doc: "Every core option: a list of `{key=, description=, values={…}, default=, value=}`."
        ) { L, context in
            LuaCall.run(L) { call in
                let options = Script.from(context).emulator.session.core.options
                call.newTable(array: options.definitions.count)
                for (index, definition) in options.definitions.enumerated() {
                    call.newTable(fields: 5)
                    call.set("key", definition.key)
                    call.set("description", definition.description)
                    call.set("default", definition.defaultValue)
                    call.set("value", options.value(definition.key) ?? definition.defaultValue)
                    call.newTable(array: definition.values.count)
                    for (position, value) in definition.values.enumerated() {
                        call.push(value)
                        lua_rawseti(L, -2, lua_Integer(position + 1))
                    }
                    lua_setfield(L, -2, "values")
                    lua_rawseti(L, -2, lua_Integer(index + 1))
                }
                return 1
            }
        },
    ]
}
