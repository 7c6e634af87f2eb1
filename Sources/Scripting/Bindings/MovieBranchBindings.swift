import CLua
import Emulation
import LuaRuntime

extension Bindings {
    /// The header, verification and named branches.
    static let movieBranches: [LuaFunction] = [
        LuaFunction(
            "info", returns: "table?",
            doc:
                """
                The active movie's header: `{path=, core=, core_version=, system=, content=, content_sha1=, \
                author=, rerecords=, length=, start= (\"power\" or \"state\"), guid=, verify= (boolean), \
                unsaved= (boolean), readonly=, ports=}`; nil without a movie.
                """
        ) { run($0, $1, movieInfo) },
        LuaFunction(
            "desync", returns: "table?",
            doc:
                """
                The first frame where playback's RAM (or lag) differed from the movie's verification log: \
                `{frame=, what=}`; nil while in sync.
                """
        ) { run($0, $1, movieDesync) },
        LuaFunction(
            "branch_save", "name: string", returns: "boolean?, string?",
            doc:
                """
                Saves a named branch: the current state with the movie's input up to now, and a thumbnail (in \
                `MOVIE.branches/`). Not allowed during the input poll.
                """
        ) { run($0, $1, movieBranchSave) },
        LuaFunction(
            "branch_load", "name: string", returns: "boolean?, string?",
            doc:
                """
                Loads a branch: its state, and its input replaces the movie's (a rerecord). In read-only mode \
                the movie then plays to the branch's end. Not allowed during the input poll.
                """
        ) { run($0, $1, movieBranchLoad) },
        LuaFunction(
            "branch_delete", "name: string", returns: "boolean?, string?",
            doc: "Deletes a branch and its thumbnail."
        ) { run($0, $1, movieBranchDelete) },
        LuaFunction(
            "branches", returns: "table?, string?",
            doc:
                """
                The movie's branches, by name: a list of `{name=, frame=, thumbnail= (PNG path or nil)}`; \
                `nil, message` without a movie file.
                """
        ) { run($0, $1, movieBranchList) },
    ]

    private static func movieInfo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        guard let movie = engine.movie else { call.pushNil(); return 1 }
        call.newTable(fields: 14)
        if let path = engine.path { call.set("path", path) }
        call.set("core", movie.coreName)
        call.set("core_version", movie.coreVersion)
        call.set("system", movie.system)
        call.set("content", movie.contentName)
        call.set("content_sha1", movie.contentSHA1)
        call.set("author", movie.author)
        call.set("rerecords", movie.rerecords)
        call.set("length", movie.length)
        call.set("start", movie.startState == nil ? "power" : "state")
        call.set("guid", movie.guid)
        call.set("verify", movie.hasVerification)
        call.set("unsaved", engine.hasUnsavedChanges)
        call.set("readonly", engine.readOnly)
        call.set("ports", movie.log.ports)
        return 1
    }

    private static func movieDesync(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let desync = script.emulator.movie.firstDesync else { call.pushNil(); return 1 }
        call.newTable(fields: 2)
        call.set("frame", desync.frame)
        call.set("what", desync.what)
        return 1
    }

    private static func movieBranchSave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.string(1, "name")
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.saveBranch(name) }
    }

    private static func movieBranchLoad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.string(1, "name")
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.loadBranch(name) }
    }

    private static func movieBranchDelete(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let name = try call.string(1, "name")
        return try emulatorCall(call, script) { emulator throws(Refusal) in try emulator.deleteBranch(name) }
    }

    private static func movieBranchList(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let engine = script.emulator.movie
        let branches: [MovieEngine.Branch]
        do { branches = try engine.branches() } catch { return call.failure("\(error)") }
        call.pushList(branches) { branch in
            call.newTable(fields: 3)
            call.set("name", branch.name)
            call.set("frame", branch.frame)
            if let thumbnail = branch.thumbnailPath { call.set("thumbnail", thumbnail) }
        }
        return 1
    }
}
