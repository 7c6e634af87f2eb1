import CLua
import CLuaShim
import Emulation
import Libretro
import LuaRuntime

extension Bindings {
    /// `disc`: the disc tray of multi-disc games (`.m3u` playlists, the core's disk control).
    static let disc = LuaModule(
        "disc",
        doc: """
            The disc tray of cores with disk control (multi-disc CD games, FDS disk sides; `.m3u` playlists load \
            their first disc and add the rest). Discs are numbered from 1. Every function returns `nil, message` \
            when the core has no disk control. Changing discs is refused while a movie plays or records (swaps \
            are not part of a movie's input) and, like loading a state, during the input poll. To swap: \
            `disc.eject()`, `disc.select(n)`, `disc.insert()`.
            """,
        functions: [
            LuaFunction(
                "state", returns: "table?, string?",
                doc:
                    """
                    The tray: `{count=, index=, ejected=}` — `index` is the disc in the tray (nil when none is).
                    """
            ) { run($0, $1, discState) },
            LuaFunction("count", returns: "integer?, string?", doc: "How many discs the tray holds.") {
                run($0, $1, discCount)
            },
            LuaFunction(
                "index", "index?: integer", returns: "integer|false|nil, string?",
                doc:
                    """
                    The disc in the tray (from 1), or `false` when none is; with `index`, selects that disc first \
                    (as `disc.select`).
                    """
            ) { run($0, $1, discIndex) },
            LuaFunction(
                "ejected", returns: "boolean?, string?", doc: "True while the tray is open."
            ) { run($0, $1, discEjected) },
            LuaFunction("eject", returns: "boolean?, string?", doc: "Opens the tray.") { run($0, $1, discEject) },
            LuaFunction("insert", returns: "boolean?, string?", doc: "Closes the tray on the selected disc.") {
                run($0, $1, discInsert)
            },
            LuaFunction(
                "select", "index: integer", returns: "boolean?, string?",
                doc:
                    """
                    Puts disc `index` (from 1) in the open tray; `nil, message` while the tray is closed. An index \
                    outside the tray is an error.
                    """
            ) { run($0, $1, discSelect) },
            LuaFunction(
                "list", returns: "table?, string?",
                doc:
                    """
                    Every disc: a list of `{index=, path=, label=}` (`path` and `label` as the core or the \
                    playlist give them; either may be nil).
                    """
            ) { run($0, $1, discList) },
            LuaFunction(
                "add", "path: string", returns: "integer?, string?",
                doc:
                    """
                    Adds a disc image file at the end of the tray and returns its number. The path must be one the \
                    script may read.
                    """
            ) { run($0, $1, discAdd) },
        ])

    // MARK: - The functions

    private static func discState(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let tray = try script.emulator.discState()
        call.newTable(fields: 3)
        call.set("count", tray.count)
        if let index = tray.index { call.set("index", index + 1) }
        call.set("ejected", tray.ejected)
        return 1
    }

    private static func discCount(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try script.emulator.discState().count)
    }

    private static func discIndex(_ call: LuaCall, _ script: Script) throws -> Int32 {
        if let wanted = try call.optionalInteger(1, "index") {
            try script.emulator.selectDisc(wanted)
        }
        if let index = try script.emulator.discState().index {
            call.push(index + 1)
        } else {
            call.push(false)
        }
        return 1
    }

    private static func discEjected(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try script.emulator.discState().ejected)
    }

    private static func discEject(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try script.emulator.setDiscEjected(true)
        return call.returning(true)
    }

    private static func discInsert(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try script.emulator.setDiscEjected(false)
        return call.returning(true)
    }

    private static func discSelect(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let index = try call.integer(1, "index")
        try script.emulator.selectDisc(index)
        return call.returning(true)
    }

    private static func discList(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let images = try script.emulator.discImages()
        call.newTable(array: images.count)
        for image in images {
            call.newTable(fields: 3)
            call.set("index", image.index)
            if let path = image.path { call.set("path", path) }
            if let label = image.label { call.set("label", label) }
            lua_rawseti(call.L, -2, lua_Integer(image.index))
        }
        return 1
    }

    private static func discAdd(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        try script.checkFileAccess(path, write: false)
        return call.returning(try script.emulator.addDisc(path: path))
    }
}
