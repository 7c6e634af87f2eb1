import CLua
import CLuaShim
import Emulation
import Foundation
import LuaRuntime
import Support
import Synchronization

/// The run's Lua console: chunks a person types (in the terminal, through `retrolua attach`, in the window)
/// run in one console state under the scripts' security profile, between frames. An expression shows its
/// values, what the chunk prints comes back with its answer, and the state persists between chunks.
/// `lua/host/repl.lua` compiles the chunks, shows the values and completes names.
public final class ScriptConsole {
    public enum Status: String, Sendable { case done, incomplete, error }

    /// A line the chunk wrote: `print`/`console.log` (out) or `console.warn`/`console.error` (err).
    public struct Line: Sendable {
        public let text: String
        public let isError: Bool
    }

    /// What a chunk gave: its values as the console shows them, or why it failed, and what it wrote.
    public struct Reply: Sendable {
        public var status: Status
        public var values: [String] = []
        public var output: [Line] = []
        public var error: String?
        /// The chunk's values as JSON, when asked for (`evaluate(_:json:)`).
        public var json: [JSONValue]?

        static func failed(_ why: String, output: [Line] = []) -> Reply {
            Reply(status: .error, output: output, error: why)
        }
    }

    /// How long a chunk may keep running frames (`emu.frameadvance()` in a loop) before it is stopped:
    /// while it runs, the window and the socket wait for it.
    public static let frameSeconds = 10.0
    /// Set from any thread (the terminal's Ctrl-C): a chunk running frames stops before the next one.
    public static let interrupt = Atomic<Bool>(false)

    unowned let host: ScriptHost
    private var script: Script?
    /// The table lua/host/repl.lua returned, in the console state's registry.
    private var repl = LUA_NOREF
    private var isEvaluating = false
    /// Requests from scripts (the window's console), answered by `runQueued` between frames.
    private var queued: [(request: Request, from: Script, reply: Int32)] = []

    enum Request {
        case evaluate(String)
        case complete(String)
    }

    init(host: ScriptHost) { self.host = host }

    // MARK: Evaluating

    /// Runs a chunk (between frames only: never during the core's part of a frame, never inside another);
    /// `json`: its values also as JSON (one that has no JSON form makes the reply an error).
    public func evaluate(_ chunk: String, json: Bool = false) -> Reply {
        if host.emulator.phase == .inputPoll {
            return .failed("the console runs between frames, not during the core's part of one")
        }
        guard !isEvaluating else { return .failed("the console is already running a chunk") }
        isEvaluating = true
        defer { isEvaluating = false }
        var output: [Line] = []
        let script: Script
        do {
            let note: Line?
            (script, note) = try consoleScript()
            if let note { output.append(note) }
        } catch {
            return .failed(error.message)
        }
        let L = script.lua.L
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        do {
            guard try compile(chunk, in: script) else {
                let why = lh_tostring(L, -1).map { String(cString: $0) } ?? "cannot compile"
                return why == "incomplete" ? Reply(status: .incomplete, output: output) : .failed(why, output: output)
            }
            script.outputSink = { output.append(Line(text: $0, isError: $1)) }
            defer { script.outputSink = nil }
            if let stopped = try runCompiled(in: script) { return .failed(stopped, output: output) }
            let converted = json ? try jsonValues(in: script) : nil
            var reply = Reply(status: .done, values: try strings(calling: "results", in: script), output: output)
            switch converted {
            case .success(let values)?: reply.json = values
            case .failure(let problem)?: (reply.status, reply.error) = (.error, problem.message)
            case nil: break
            }
            return reply
        } catch {
            // What the failed chunk held is garbage now; collected at once, so the next chunk has the memory
            // (Lua's buffers, string.rep's among them, allocate without an emergency collection).
            if error.kind == .memory { lh_gc_collect(L) }
            return .failed(Self.firstUsefulLines(script.explained(error.message, on: L)), output: output)
        }
    }

    /// The completions of the dotted name that ends `text`, from the console's globals and the API.
    public func complete(_ text: String) -> [String] {
        guard !isEvaluating, let (script, _) = try? consoleScript() else { return [] }
        let L = script.lua.L
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        return (try? strings(calling: "complete", with: text, in: script)) ?? []
    }

    /// repl.compile(chunk): true with the chunk's function (wrapped to keep its values) on the stack, or
    /// false with the reason ("incomplete" or a syntax error).
    private func compile(_ chunk: String, in script: Script) throws(LuaError) -> Bool {
        let L = script.lua.L
        pushRepl("compile", in: L)
        // With its length: a chunk's NUL bytes reach the compiler (and fail there), they do not cut it short.
        chunk.withCString { _ = lua_pushlstring(L, $0, chunk.utf8.count) }
        try script.lua.call(nargs: 1, nresults: 2)
        guard lua_type(L, -2) == LUA_TFUNCTION else { return false }
        lh_pop(L, 1)
        pushRepl("wrap", in: L)
        lua_rotate(L, -2, 1)
        try script.lua.call(nargs: 1, nresults: 1)
        return true
    }

    /// Runs the wrapped chunk on the stack as a coroutine; each `emu.frameadvance()` runs one frame.
    /// A message when it was stopped while running frames.
    private func runCompiled(in script: Script) throws(LuaError) -> String? {
        let L = script.lua.L
        let thread = lua_newthread(L)!
        let reference = luaL_ref(L, lh_registryindex())
        defer { luaL_unref(L, lh_registryindex(), reference) }
        lua_xmove(L, thread, 1)
        script.evaluatingThread = thread
        defer { script.evaluatingThread = nil }
        Self.interrupt.store(false, ordering: .relaxed)
        let started = Date()
        var frames = 0
        while try resume(thread, of: script) {
            let elapsed = Date().timeIntervalSince(started)
            if Self.interrupt.load(ordering: .relaxed) || StopSignals.isRequested || elapsed > Self.frameSeconds {
                let why =
                    elapsed > Self.frameSeconds ? "it ran frames for \(Int(Self.frameSeconds)) seconds" : "interrupted"
                return "stopped after \(frames) frame\(frames == 1 ? "" : "s"): \(why) (event.on runs work every frame)"
            }
            host.emulator.runFrame()
            frames += 1
        }
        return nil
    }

    private func resume(_ thread: OpaquePointer, of script: Script) throws(LuaError) -> Bool {
        script.activeThread = thread
        defer { script.activeThread = nil }
        return try script.lua.resume(thread)
    }

    /// The last chunk's values (repl.values()) as JSON, or which one has no JSON form and why.
    private func jsonValues(in script: Script) throws(LuaError) -> Result<[JSONValue], LuaJSON.Problem> {
        let L = script.lua.L
        pushRepl("values", in: L)
        try script.lua.call(nargs: 0, nresults: 1)
        defer { lh_pop(L, 1) }
        guard lua_type(L, -1) == LUA_TTABLE else { return .success([]) }
        lua_getfield(L, -1, "n")
        let count = Int(lua_tointegerx(L, -1, nil))
        lh_pop(L, 1)
        var values: [JSONValue] = []
        for index in 0..<max(0, min(count, 256)) {
            lua_rawgeti(L, -1, lua_Integer(index + 1))
            defer { lh_pop(L, 1) }
            do { values.append(try LuaJSON.value(L, at: -1)) } catch {
                return .failure(LuaJSON.Problem(message: "value \(index + 1) has no JSON form: \(error.message)"))
            }
        }
        return .success(values)
    }

    /// Calls repl[name](argument) and reads the list of strings it returns.
    private func strings(
        calling name: String, with argument: String? = nil, in script: Script
    ) throws(LuaError)
        -> [String]
    {
        let L = script.lua.L
        pushRepl(name, in: L)
        if let argument { lua_pushstring(L, argument) }
        try script.lua.call(nargs: argument == nil ? 0 : 1, nresults: 1)
        guard lua_type(L, -1) == LUA_TTABLE else { return [] }
        return (0..<Int(lua_rawlen(L, -1))).compactMap { index in
            lua_rawgeti(L, -1, lua_Integer(index + 1))
            defer { lh_pop(L, 1) }
            return lh_tostring(L, -1).map { String(cString: $0) }
        }
    }

    private func pushRepl(_ field: String, in L: OpaquePointer) {
        lua_rawgeti(L, lh_registryindex(), lua_Integer(repl))
        lua_getfield(L, -1, field)
        lua_rotate(L, -2, 1)
        lh_pop(L, 1)
    }

    /// The error's first line, and where in the console it happened when the message does not say.
    static func firstUsefulLines(_ message: String) -> String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard let first = lines.first else { return message }
        if first.contains("console:") { return first }
        // The traceback's first line in the console (`console:3: in …`) puts the place in front, as Lua does.
        guard let line = lines.dropFirst().first(where: { $0.contains("console:") }),
            let place = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first
        else { return first }
        return place + " " + first
    }

    // MARK: The console's state

    /// The console state, made at the first chunk; made again, with a note saying so, once a failing
    /// callback of its own or `scripts.unload` ended it.
    func consoleScript() throws(ScriptError) -> (Script, note: Line?) {
        if let script, !script.failed, host.scripts.contains(where: { $0 === script }) { return (script, nil) }
        let note = script.map {
            Line(
                text: "the console started afresh (its state ended: \($0.failure ?? "it was unloaded"))", isError: true)
        }
        script = nil
        let made = try Script(path: "console", host: host, source: "")
        host.scripts.append(made)
        made.resume()  // the empty main chunk ends at once
        do {
            let helpers = try HostPreludes.consoleHelpers(luaFolder: host.options.luaFolder)
            try made.lua.load(helpers.text, name: helpers.chunkName)
            try made.lua.call(nargs: 0, nresults: 1)
        } catch {
            made.detach()
            throw ScriptError(script: "console", message: "\(error)")
        }
        repl = luaL_ref(made.lua.L, lh_registryindex())
        script = made
        return (made, note)
    }

    // MARK: Requests from scripts

    /// Queues a script's request; `reply` (a function reference in its state) gets the answer.
    func submit(_ request: Request, from script: Script, reply: Int32) {
        queued.append((request, script, reply))
    }

    /// Answers the requests scripts queued, between frames (after the window's events are delivered).
    func runQueued() {
        guard !queued.isEmpty else { return }
        let batch = queued
        queued.removeAll()
        for (request, from, reference) in batch {
            defer { luaL_unref(from.lua.L, lh_registryindex(), reference) }
            guard !from.failed else { continue }
            switch request {
            case .evaluate(let chunk):
                let reply = evaluate(chunk)
                from.call(reference: reference) { L in Self.push(reply, L) }
            case .complete(let text):
                let matches = complete(text)
                from.call(reference: reference) { L in
                    lua_createtable(L, Int32(matches.count), 0)
                    for (index, match) in matches.enumerated() {
                        lua_pushstring(L, match)
                        lua_rawseti(L, -2, lua_Integer(index + 1))
                    }
                    return 1
                }
            }
        }
    }

    /// `{status=, values={…}, output={{text=, stream=}, …}, error=}`.
    private static func push(_ reply: Reply, _ L: OpaquePointer) -> Int32 {
        lua_createtable(L, 0, 4)
        lua_pushstring(L, reply.status.rawValue)
        lua_setfield(L, -2, "status")
        lua_createtable(L, Int32(reply.values.count), 0)
        for (index, value) in reply.values.enumerated() {
            lua_pushstring(L, value)
            lua_rawseti(L, -2, lua_Integer(index + 1))
        }
        lua_setfield(L, -2, "values")
        lua_createtable(L, Int32(reply.output.count), 0)
        for (index, line) in reply.output.enumerated() {
            lua_createtable(L, 0, 2)
            lua_pushstring(L, line.text)
            lua_setfield(L, -2, "text")
            lua_pushstring(L, line.isError ? "err" : "out")
            lua_setfield(L, -2, "stream")
            lua_rawseti(L, -2, lua_Integer(index + 1))
        }
        lua_setfield(L, -2, "output")
        if let error = reply.error {
            lua_pushstring(L, error)
            lua_setfield(L, -2, "error")
        }
        return 1
    }
}
