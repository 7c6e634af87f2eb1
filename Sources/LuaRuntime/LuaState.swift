import CLua
import CLuaShim

/// A failure coming out of Lua, already formatted with its traceback.
public struct LuaError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case syntax, runtime, memory, instructionBudget }
    public let kind: Kind
    public let message: String
    public var description: String { message }

    public init(kind: Kind = .runtime, message: String) {
        self.kind = kind
        self.message = message
    }
}

/// One Lua state with a memory cap and an instruction budget (the watchdog), entered only through
/// protected calls. Each script gets its own.
public final class LuaState {
    public let L: OpaquePointer
    private let limits: UnsafeMutablePointer<lh_limits>

    /// `memoryLimit` in bytes and `instructionBudget` in VM instructions per entry; 0 = unlimited.
    public init(memoryLimit: Int, instructionBudget: Int) {
        limits = .allocate(capacity: 1)
        limits.initialize(to: lh_limits())
        limits.pointee.memory_limit = memoryLimit
        limits.pointee.instruction_budget = Int64(instructionBudget)
        guard let state = lh_newstate(limits) else { fatalError("LuaState: out of memory creating a state") }
        L = state
        limits.pointee.memory_limit = 0  // Opening the libraries never counts against the script.
        if lh_openlibs(L) != LUA_OK { fatalError("LuaState: cannot open the standard libraries") }
        limits.pointee.memory_limit = memoryLimit
    }

    private var closed = false

    /// Closes the state now (collecting everything: `__gc` metamethods run), while their owner is whole.
    /// Watched like an entry: a finalizer that never returns ends the run at the hard deadline, or a second
    /// after SIGINT/SIGTERM, with save RAM and movies written (lua_shim.c), instead of hanging it.
    public func close() {
        guard !closed else { return }
        closed = true
        lh_close(L)
    }

    deinit {
        close()
        limits.deallocate()
    }

    public var memoryUsed: Int { limits.pointee.memory_used }

    /// Bytes the host keeps on the script's behalf, counted against its memory cap with its Lua heap.
    public var hostHeld: Int { Int(limits.pointee.host_held) }

    /// Charges `bytes` the host is about to keep for the script; false (nothing charged) when the script's
    /// Lua heap and what the host already holds for it would pass its cap.
    public func hold(_ bytes: Int) -> Bool {
        let limit = Int(limits.pointee.memory_limit)
        let used = Int(limits.pointee.memory_used + limits.pointee.host_held)
        guard bytes >= 0, limit == 0 || (bytes <= limit && used <= limit - bytes) else { return false }
        limits.pointee.host_held += bytes
        return true
    }

    /// Gives back what `hold` charged.
    public func release(_ bytes: Int) {
        limits.pointee.host_held -= min(limits.pointee.host_held, max(bytes, 0))
    }

    /// The cap in MB, for messages.
    public var memoryLimitMB: Int { Int(limits.pointee.memory_limit >> 20) }

    /// Compiles a chunk and leaves it on the stack.
    public func load(_ source: String, name: String) throws(LuaError) {
        try load(Array(source.utf8), name: name)
    }

    /// Compiles a chunk given as bytes (any encoding: Lua strings are bytes) and leaves it on the stack.
    public func load(_ source: [UInt8], name: String) throws(LuaError) {
        let status = source.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { lh_loadbuffer(L, $0.baseAddress, $0.count, "@" + name) }
        }
        if status != LUA_OK { throw popError(kind: status == LUA_ERRSYNTAX ? .syntax : .memory) }
    }

    /// Calls the function below `nargs` arguments with a traceback handler and a fresh instruction budget.
    /// `thread` is the state's thread to run on: the one currently executing when called from a binding.
    public func call(nargs: Int32, nresults: Int32, on thread: OpaquePointer? = nil) throws(LuaError) {
        let thread = thread ?? L
        enter()
        let status = lh_pcall_traceback(thread, nargs, nresults)
        if status != LUA_OK {
            let error = Self.errorFrom(thread, kind: .runtime, limits: limits.pointee)
            lh_pop(thread, 1)
            reset(error.kind)
            throw error
        }
    }

    /// Resumes a coroutine; returns true when it yielded, false when it finished.
    public func resume(_ thread: OpaquePointer, nargs: Int32 = 0) throws(LuaError) -> Bool {
        enter()
        var results: Int32 = 0
        let status = lh_resume_traceback(thread, L, nargs, &results)
        if status == LUA_YIELD {
            lua_settop(thread, 0)
            return true
        }
        if status != LUA_OK {
            let error = Self.errorFrom(thread, kind: .runtime, limits: limits.pointee)
            lua_settop(thread, 0)
            reset(error.kind)
            throw error
        }
        lua_settop(thread, 0)
        return false
    }

    private func enter() {
        lh_refill_budget(limits)
        limits.pointee.over_instruction_budget = 0
        limits.pointee.over_memory_limit = 0
    }

    private func popError(kind: LuaError.Kind) -> LuaError {
        let error = Self.errorFrom(L, kind: kind, limits: limits.pointee)
        lh_pop(L, 1)
        reset(error.kind)
        return error
    }

    private func reset(_ kind: LuaError.Kind) {
        if kind == .memory { lh_gc_collect(L) }
    }

    private static func errorFrom(_ L: OpaquePointer, kind: LuaError.Kind, limits: lh_limits) -> LuaError {
        var text = lh_tostring(L, -1).map { String(cString: $0) } ?? "(error object is not a string)"
        var kind = kind
        if limits.over_instruction_budget != 0 {
            kind = .instructionBudget
        } else if limits.over_memory_limit != 0 {
            kind = .memory
            if text.hasPrefix("not enough memory") {
                text = "script exceeded its memory limit of \(limits.memory_limit >> 20) MB"
            }
        }
        return LuaError(kind: kind, message: text)
    }
}
