import CLua
import Emulation
import Libretro
import LuaRuntime

extension Bindings {
    /// An optional frame count argument (default 1).
    private static func tasCount(_ call: LuaCall, _ index: Int32) throws(LuaCallError) -> Int {
        let count = try call.optionalInteger(index, "count") ?? 1
        guard count >= 1, count <= MovieEngine.maxInsert else {
            throw call.badArgument(index, "count", "must be 1…\(MovieEngine.maxInsert)")
        }
        return count
    }

    private static func frames(_ call: LuaCall) throws(LuaCallError) -> Range<Int> {
        let frame = try tasFrame(call, 1), count = try tasCount(call, 2)
        return frame..<frame &+ count
    }

    private static func pushMarkers(_ call: LuaCall, _ markers: [Int: String], _ L: OpaquePointer?) {
        let frames = markers.keys.sorted()
        call.pushList(frames) { frame in
            call.newTable(fields: 2)
            call.set("frame", frame)
            call.set("note", markers[frame]!)
        }
    }

    static let tastudioEdits: [LuaFunction] = tastudioFrameEdits + tastudioUndo + tastudioMarkers

    /// Edits of frames: buttons, inserting, cloning, deleting, clearing.
    private static let tastudioFrameEdits: [LuaFunction] = [
        LuaFunction(
            "set_button", "frame: integer, port: integer, button: string, pressed: boolean, count?: integer",
            returns: "integer|boolean|nil, string?",
            doc:
                """
                Holds (`pressed` true) or releases `button` on `port` for `count` frames (default 1) from `frame`; \
                frames past the end are appended.
                """
        ) { run($0, $1, tastudioEditSetButton) },
        LuaFunction(
            "set_input", "frame: integer, port: integer, buttons: table|integer",
            returns: "integer|boolean|nil, string?",
            doc:
                """
                Replaces the buttons of `frame` on `port`: a table `{a=true, …}` (absent = released) or a RetroPad bit \
                mask (as `get_mask` gives).
                """
        ) { run($0, $1, tastudioEditSetInput) },
        LuaFunction(
            "insert", "frame: integer, count?: integer", returns: "integer|boolean|nil, string?",
            doc: "Inserts `count` (default 1) empty frames before `frame` (0…length); later markers move down."
        ) { run($0, $1, tastudioEditInsert) },
        LuaFunction(
            "clone", "frame: integer, count?: integer", returns: "integer|boolean|nil, string?",
            doc: "Inserts a copy of the `count` frames (default 1) from `frame` right after them."
        ) { run($0, $1, tastudioEditClone) },
        LuaFunction(
            "delete", "frame: integer, count?: integer", returns: "integer|boolean|nil, string?",
            doc: "Deletes `count` frames (default 1) from `frame`; their markers go, later ones move up."
        ) { run($0, $1, tastudioEditDelete) },
        LuaFunction(
            "clear", "frame: integer, count?: integer", returns: "integer|boolean|nil, string?",
            doc: "Releases every button of `count` frames (default 1) from `frame` (and drops their resets)."
        ) { run($0, $1, tastudioEditClear) },
    ]

    /// Undo steps.
    private static let tastudioUndo: [LuaFunction] = [
        LuaFunction(
            "begin", "name?: string", returns: "boolean?, string?",
            doc: "Gathers the edits until `tastudio.apply()` into one undo step named `name`."
        ) { run($0, $1, tastudioEditBegin) },
        LuaFunction(
            "apply", "cancel?: boolean", returns: "integer|boolean",
            doc:
                """
                Ends the group `begin` opened: its edits become one undo step; returns the first changed frame or \
                `false`. With `cancel` true they are undone instead and forgotten.
                """
        ) { run($0, $1, tastudioEditApply) },
        LuaFunction(
            "undo", returns: "integer|boolean",
            doc: "Undoes the last edit step; returns its first changed frame, `false` when there is nothing to undo."
        ) { run($0, $1, tastudioEditUndo) },
        LuaFunction(
            "redo", returns: "integer|boolean",
            doc: "Redoes the last undone step; returns its first changed frame, `false` when there is none."
        ) { run($0, $1, tastudioEditRedo) },
        LuaFunction(
            "history", returns: "table",
            doc: "`{undo= (boolean: a step to undo), redo=, gathering= (a `begin` group is open)}`."
        ) { run($0, $1, tastudioEditHistory) },
    ]

    /// Markers and the selection.
    private static let tastudioMarkers: [LuaFunction] = [
        LuaFunction(
            "set_marker", "frame: integer, note?: string", returns: "integer|boolean|nil, string?",
            doc: "Puts a marker with `note` (default empty) on `frame` (0…length), replacing one there (an undo step)."
        ) { run($0, $1, tastudioEditSetMarker) },
        LuaFunction(
            "remove_marker", "frame: integer", returns: "integer|boolean|nil, string?",
            doc: "Removes the marker of `frame` (an undo step); `false` when there was none."
        ) { run($0, $1, tastudioEditRemoveMarker) },
        LuaFunction(
            "marker", "frame: integer", returns: "string?",
            doc: "The note of the marker on `frame`, nil when it has none."
        ) { run($0, $1, tastudioEditMarker) },
        LuaFunction(
            "markers", returns: "table",
            doc: "Every marker, by frame: a list of `{frame=, note=}` (empty without a movie)."
        ) { run($0, $1, tastudioEditMarkers) },
        LuaFunction(
            "selection", returns: "table",
            doc: "The selected frames, ascending (a list of integers; shared by every script)."
        ) { run($0, $1, tastudioEditSelection) },
        LuaFunction(
            "set_selection", "frames: table",
            doc: "Selects exactly `frames` (a list of frame numbers; `{}` clears the selection)."
        ) { run($0, $1, tastudioEditSetSelection) },
        movieFrameFunction, movieLengthFunction,
    ]

    // MARK: - The functions

    private static func tastudioEditSetButton(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1), port = try portArgument(call, 2), button = try tasButton(call, 3)
        let pressed = try call.boolean(4, "pressed"), count = try tasCount(call, 5)
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.setButtons(frame..<frame &+ count, port: port, [(button, pressed)])
        }
    }

    private static func tastudioEditSetInput(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1), port = try portArgument(call, 2)
        var held: [(RetroPadButton, Bool)] = []
        if call.type(3) == LUA_TNUMBER {
            let mask = try call.integer(3, "buttons")
            guard mask >= 0, mask <= 0xFFFF else { throw call.badArgument(3, "buttons", "a mask is 0…65535") }
            held = RetroPadButton.allCases.map { ($0, mask & (1 << $0.rawValue) != 0) }
        } else {
            try call.table(3, "buttons")
            for button in RetroPadButton.allCases {
                held.append((button, try call.booleanField(3, button.name, argument: 3) ?? false))
            }
        }
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.setButtons(frame..<frame + 1, port: port, held)
        }
    }

    private static func tastudioEditInsert(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let range = try frames(call)
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.insertFrames(at: range.lowerBound, count: range.count)
        }
    }

    private static func tastudioEditClone(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let range = try frames(call)
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.insertFrames(at: range.upperBound, count: range.count, copies: range)
        }
    }

    private static func tastudioEditDelete(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let range = try frames(call)
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.deleteFrames(range)
        }
    }

    private static func tastudioEditClear(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let range = try frames(call)
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.clearFrames(range)
        }
    }

    private static func tastudioEditBegin(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.optionalString(1, "name") ?? "changes"
        do { try script.emulator.movie.beginEdit(name) } catch { return call.failure("\(error)") }
        return call.returning(true)
    }

    private static func tastudioEditApply(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let cancel = try call.optionalBoolean(1, "cancel") ?? false
        let engine = script.emulator.movie
        if let first = engine.endEdit(cancel: cancel) { call.push(first) } else { call.push(false) }
        return 1
    }

    private static func tastudioEditUndo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try tasEdit(call, script) { engine in engine.undo() }
    }

    private static func tastudioEditRedo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try tasEdit(call, script) { engine in engine.undo(redo: true) }
    }

    private static func tastudioEditHistory(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        call.newTable(fields: 3)
        call.set("undo", engine.canUndo)
        call.set("redo", engine.canRedo)
        call.set("gathering", engine.editing)
        return 1
    }

    private static func tastudioEditSetMarker(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1), note = try call.optionalString(2, "note") ?? ""
        return try tasEdit(call, script) { engine throws(MovieError) in
            try engine.setMarker(frame, note: note)
        }
    }

    private static func tastudioEditRemoveMarker(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1)
        return try tasEdit(call, script) { engine throws(MovieError) in
            engine.movie?.markers[frame] == nil ? nil : try engine.setMarker(frame, note: nil)
        }
    }

    private static func tastudioEditMarker(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frame = try tasFrame(call, 1)
        if let note = script.emulator.movie.movie?.markers[frame] {
            call.push(note)
        } else {
            call.pushNil()
        }
        return 1
    }

    private static func tastudioEditMarkers(_ call: LuaCall, _ script: Script) throws -> Int32 {
        pushMarkers(call, script.emulator.movie.movie?.markers ?? [:], call.L)
        return 1
    }

    private static func tastudioEditSelection(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let frames = script.emulator.movie.selection.sorted()
        call.pushList(frames) { frame in
            call.push(frame)
        }
        return 1
    }

    private static func tastudioEditSetSelection(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "frames")
        var frames = Set<Int>()
        let count = lua_rawlen(call.L, 1)
        guard count <= 10_000_000 else { throw call.badArgument(1, "frames", "at most 10000000 frames") }
        for index in 0..<Int(count) {
            lua_rawgeti(call.L, 1, lua_Integer(index + 1))
            defer { lua_settop(call.L, 1) }
            guard lua_type(call.L, -1) == LUA_TNUMBER, lua_isinteger(call.L, -1) != 0,
                lua_tointegerx(call.L, -1, nil) >= 0
            else {
                throw call.badArgument(1, "frames", "item \(index + 1) is not a frame number")
            }
            frames.insert(Int(lua_tointegerx(call.L, -1, nil)))
        }
        script.emulator.movie.selection = frames
        return 0
    }
}
