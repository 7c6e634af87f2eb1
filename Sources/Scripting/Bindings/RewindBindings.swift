import CLua
import CLuaShim
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    static let rewindMetatable = LuaTypeName("retrolua.rewind")

    private static func selfBuffer(_ call: LuaCall, _ script: Script) throws(LuaCallError) -> RewindBuffer {
        let memory = try call.userdata(1, rewindMetatable, "self", expected: "rewind buffer")
        guard let buffer = script.rewindBuffers[memory.load(as: Int.self)] else {
            throw call.error("the rewind buffer was freed")
        }
        return buffer
    }

    static let rewind = LuaModule(
        "rewind",
        doc: """
            Rewind history, native and compact: each entry is a savestate stored as the zstd-compressed XOR against \
            the next newer one, so a frame of a typical game costs a few hundred bytes. The policy (when to record, \
            when to step back) belongs to the script; see `buffer:push()` and `buffer:step()`. Stepping back restores \
            the core and the frame/lag counters (not `savestate.data`) and fires no event.
            """,
        functions: [
            LuaFunction(
                "new", "options?: table", returns: "rewind_buffer",
                doc:
                    """
                    A rewind buffer holding at most `memory_mb` megabytes (default 64); the oldest entries are \
                    forgotten first.
                    """
            ) { run($0, $1, rewindNew) }
        ])

    static let rewindMethods: [LuaFunction] = [
        LuaFunction("push", doc: "Records the current state as the newest entry. Not allowed during the input poll.") {
            run($0, $1, rewindPush)
        },
        LuaFunction(
            "step", returns: "boolean",
            doc:
                """
                Restores the newest entry and removes it, so repeated calls walk back in time; `false` when the \
                history is empty. Not allowed during the input poll.
                """
        ) { run($0, $1, rewindStep) },
        LuaFunction("count", returns: "integer", doc: "Entries `step` can return to.") { run($0, $1, rewindCount) },
        LuaFunction("memory", returns: "integer", doc: "Bytes the history holds.") { run($0, $1, rewindMemory) },
        LuaFunction("clear", doc: "Forgets the whole history.") { run($0, $1, rewindClear) },
        LuaFunction("__gc", doc: "Frees the history when the buffer is collected.") {
            collectHandle($0, $1, rewindMetatable) { script, id in script.rewindBuffers[id] = nil }
        },
    ]

    // MARK: - The functions

    private static func rewindNew(_ call: LuaCall, _ script: Script) throws -> Int32 {
        var megabytes = 64.0
        if try call.optionalTable(1, "options"),
            let value = try call.numberField(1, "memory_mb", argument: 1)
        {
            guard value > 0, value <= 4096 else {
                throw call.badField(1, "memory_mb", "must be more than 0 and at most 4096")
            }
            megabytes = value
        }
        let id = script.takeID()
        script.rewindBuffers[id] = RewindBuffer(memoryLimit: Int(megabytes * 1_048_576))
        let memory = lua_newuserdatauv(call.L, MemoryLayout<Int>.size, 0)!
        memory.storeBytes(of: id, as: Int.self)
        luaL_setmetatable(call.L, rewindMetatable.cString)
        return 1
    }

    private static func rewindPush(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let buffer = try selfBuffer(call, script)
        // Every failure here is the caller's to see as an error (a core without states).
        do throws(Refusal) { try script.emulator.pushRewind(to: buffer) } catch {
            throw call.error(error.reason)
        }
        return 0
    }

    private static func rewindStep(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let buffer = try selfBuffer(call, script)
        let stepped: Bool
        do throws(Refusal) { stepped = try script.emulator.stepRewind(buffer) } catch
            where error.kind == .failed
        { throw call.error(error.reason) }
        return call.returning(stepped)
    }

    private static func rewindCount(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try selfBuffer(call, script).count)
    }

    private static func rewindMemory(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try selfBuffer(call, script).memoryUsed)
    }

    private static func rewindClear(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try selfBuffer(call, script).clear()
        return 0
    }
}
