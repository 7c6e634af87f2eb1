import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// A slot number or a file path, as `savestate.save`/`load` take them.
    private static func target(_ call: LuaCall) throws(LuaCallError) -> StateTarget {
        if call.type(1) == LUA_TNUMBER {
            let slot = try call.integer(1, "slot")
            guard Emulator.slots.contains(slot) else { throw call.badArgument(1, "slot", "must be 0…999") }
            return .slot(slot)
        }
        guard call.type(1) == LUA_TSTRING else {
            throw call.badArgument(1, "slot_or_path", "integer or string expected, got \(call.typeName(1))")
        }
        return .file(try call.string(1, "path"))
    }

    static let savestate = LuaModule(
        "savestate",
        doc: """
            Savestates: numbered slots (`~/.local/share/retrolua/states/GAME/slotN.state`), files, and in-memory \
            state objects for bots. Every state carries the frame and lag counters and the scripts' `savestate.data`, \
            restored on load. States from another core or other content are refused with a message. Saving and \
            loading are not allowed during the input poll.
            """,
        functions: [
            LuaFunction(
                "save", "slot_or_path: integer|string", returns: "boolean?, string?",
                doc:
                    """
                    Saves to a slot or a file (written durably: a failed write keeps the old file). Fires \
                    `state_saved(slot_or_path)`. Returns `true`, or `nil, message`.
                    """
            ) { run($0, $1, savestateSave) },
            LuaFunction(
                "load", "slot_or_path: integer|string", returns: "boolean?, string?",
                doc:
                    """
                    Loads a slot or a file (Retrolua states, or a bare state of the same core). Fires \
                    `state_loaded(slot_or_path)`. Returns `true`, or `nil, message` (missing file, wrong core or \
                    content, corrupt state: the game is left as it was).
                    """
            ) { run($0, $1, savestateLoad) },
            LuaFunction(
                "slot_info", "slot: integer", returns: "table?",
                doc:
                    """
                    What a slot holds, for menus: `{path=, size= (bytes), modified= (seconds since 1970)}`, or \
                    `nil` for an empty slot. Reads only the file's attributes.
                    """
            ) { run($0, $1, savestateSlotInfo) },
            LuaFunction(
                "create", returns: "state",
                doc:
                    """
                    Captures the current state in memory and returns a state object: `state:load()`, \
                    `state:save()`, `state:bytes()`, `state:size()`, `state:frame()`.
                    """
            ) { run($0, $1, savestateCreate) },
            LuaFunction(
                "from_bytes", "bytes: string", returns: "state?, string?",
                doc:
                    """
                    A state object from `state:bytes()` or a state file's contents; `nil, message` when they are \
                    not a state.
                    """
            ) { run($0, $1, savestateFromBytes) },
            LuaFunction(
                "data", "key: string, value?: any", returns: "any",
                doc:
                    """
                    Script data stored with every savestate: with a value (nil, boolean, number, string or table \
                    of those) stores it; without, returns what is stored (after a state load: what was stored \
                    when that state was made). Shared by all scripts: prefix your keys.
                    """
            ) { run($0, $1, savestateData) },
        ])

    /// Methods of state objects (the `retrolua.state` metatable).
    static let stateMethods: [LuaFunction] = [
        LuaFunction(
            "load", "options?: table", returns: "boolean?, string?",
            doc:
                """
                Restores this state; `nil, message` if the core refuses it. Fires `state_loaded(nil)` — unless \
                `{quiet = true}`, which also keeps queued sound (run-ahead's undo).
                """
        ) { run($0, $1, stateObjectLoad) },
        LuaFunction(
            "save", returns: "boolean?, string?",
            doc:
                """
                Captures the current state into this object again, reusing its memory (for bots that branch every \
                frame). Returns `true`, or `nil, message` when the state no longer fits (make a new one with \
                `savestate.create()`).
                """
        ) { run($0, $1, stateObjectResave) },
        LuaFunction("bytes", returns: "string", doc: "The state as a string (the same bytes as a state file).") {
            run($0, $1, savestateBytes)
        },
        LuaFunction("size", returns: "integer", doc: "The state's size in bytes.") { run($0, $1, savestateSize) },
        LuaFunction(
            "hash", returns: "string",
            doc:
                """
                The SHA-1 (hex) of the core's own state inside this one — not the frame counters or `savestate.data` \
                — so two runs that reached the same emulated state hash the same (netplay's desync check).
                """
        ) { run($0, $1, savestateHash) },
        LuaFunction(
            "frame", returns: "integer?", doc: "The frame count when the state was made (nil for a bare core state)."
        ) { run($0, $1, savestateFrame) },
    ]

    // MARK: - The functions

    private static func savestateSave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let target = try target(call)
        if case .file(let path) = target { try script.checkFileAccess(path, write: true) }
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.saveState(to: target) }
    }

    private static func savestateLoad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let target = try target(call)
        if case .file(let path) = target { try script.checkFileAccess(path, write: false) }
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.loadState(from: target) }
    }

    private static func savestateSlotInfo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let slot = try call.integer(1, "slot")
        guard Emulator.slots.contains(slot) else { throw call.badArgument(1, "slot", "must be 0…999") }
        let path = script.emulator.slotPath(slot)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else {
            call.pushNil()
            return 1
        }
        call.newTable(fields: 3)
        call.set("path", path)
        call.set("size", (attributes[.size] as? NSNumber)?.intValue ?? 0)
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        call.set("modified", Int(exactly: modified.rounded(.down)) ?? 0)
        return 1
    }

    private static func savestateCreate(_ call: LuaCall, _ script: Script) throws -> Int32 {
        do throws(Refusal) { try script.host.pushNewState(call.L) } catch {
            throw call.error(error.reason)
        }
        return 1
    }

    private static func savestateFromBytes(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let bytes = try call.bytes(1, "bytes")
        do { try script.host.pushState(call.L, copying: bytes) } catch {
            return call.failure("not a savestate: \(error)")
        }
        return 1
    }

    private static func savestateData(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        let key = try call.string(1, "key")
        if call.count >= 2 {
            if call.isNoneOrNil(2) {
                try script.hold(0, as: "data " + key, for: "")
                emulator.scriptData[key] = nil
            } else {
                let encoded: [UInt8]
                do { encoded = try LuaSerializer.encode(call.L, 2) } catch {
                    throw call.badArgument(2, "value", "\(error)")
                }
                // The host keeps it (and copies it into every state): it counts against the cap.
                try script.hold(
                    encoded.count + key.utf8.count, as: "data " + key, for: "savestate.data: the value")
                emulator.scriptData[key] = encoded
            }
            return 0
        }
        guard let stored = emulator.scriptData[key], LuaSerializer.push(call.L, stored) else {
            call.pushNil()
            return 1
        }
        return 1
    }

    private static func stateObjectLoad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let state = try script.host.stateBytes(call)
        let quiet =
            try call.optionalTable(2, "options")
            ? try call.booleanField(2, "quiet", argument: 2) ?? false : false
        try call.nested(script) { () throws(Refusal) in
            try script.emulator.loadState(state.bytes, trusted: state.trusted, quiet: quiet)
        }
        return call.returning(true)
    }

    private static func stateObjectResave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        _ = try host.stateBytes(call)
        do throws(Refusal) {
            guard try host.resave(call.L, 1) else {
                return call.failure(
                    "the state's size changed; use savestate.create()", kind: Refusal.Kind.failed.name)
            }
        } catch  where error.isMisuse {
            throw error
        } catch {
            return call.failure(error.reason, kind: error.kind.name)
        }
        return call.returning(true)
    }

    private static func savestateBytes(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let state = try script.host.stateBytes(call)
        call.push(bytes: state.bytes)
        return 1
    }

    private static func savestateHash(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let bytes = try script.host.stateBytes(call).bytes
        let core: Range<Int>
        do { core = try StateContainer.decode(bytes).coreState } catch { core = 0..<bytes.count }
        return call.returning(Hashing.sha1(UnsafeRawBufferPointer(rebasing: bytes[core])))
    }

    private static func savestateSize(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let state = try script.host.stateBytes(call)
        return call.returning(state.bytes.count)
    }

    private static func savestateFrame(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let state = try script.host.stateBytes(call)
        guard let frame = StateContainer.frame(of: state.bytes) else { call.pushNil(); return 1 }
        return call.returning(frame)
    }
}
