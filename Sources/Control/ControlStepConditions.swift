import Emulation

/// A JSON step's stop conditions (`until`, `watch`, `until_lua`; docs/guides/control-socket.md): read and
/// checked before any frame runs, so a bad one refuses the step with the field's name; then looked at after
/// each frame, against what the memory held just before it.
struct StepConditions {
    enum Op: String, CaseIterable {
        case eq, ne, lt, gt, le, ge, changed, increased, decreased
        case bitsSet = "bits_set"
        case bitsClear = "bits_clear"

        /// The ops that compare with the value before the frame take no `value`; the others need one.
        var needsValue: Bool { ![.changed, .increased, .decreased].contains(self) }

        /// The RAM search's comparison this op is (nil: the bits ops, which it does not have).
        var comparison: RAMSearch.Comparison? {
            switch self {
            case .eq: .equal
            case .ne: .notEqual
            case .lt: .less
            case .gt: .greater
            case .le: .lessEqual
            case .ge: .greaterEqual
            case .changed: .changed
            case .increased: .increased
            case .decreased: .decreased
            case .bitsSet, .bitsClear: nil
            }
        }

        static let names = allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// `{"domain", "address", "size", "big_endian", "op", "value"}`: an unsigned value in memory against
    /// `value` (a mask for the bits ops), or against itself before the frame.
    struct Until {
        let domain: MemoryAccess.Domain
        let address: Int
        let size: Int
        let bigEndian: Bool
        let op: Op
        let value: UInt64
        var before: UInt64?

        func holds(now: UInt64) -> Bool {
            if let comparison = op.comparison {
                // changed/increased/decreased need the value before the frame; values are at most 4 bytes.
                if !op.needsValue && before == nil { return false }
                return comparison.holds(
                    Int64(truncatingIfNeeded: now), before: Int64(truncatingIfNeeded: before ?? 0),
                    operand: Int64(truncatingIfNeeded: value))
            }
            return op == .bitsSet ? now & value == value : now & value == 0
        }
    }

    /// `{"domain", "address", "length"}`: bytes that stop the step when any of them changes in a frame.
    struct Watch {
        let domain: MemoryAccess.Domain
        let name: String
        let address: Int
        let length: Int
        var before: [UInt8]?
    }

    /// Why the step stopped early.
    enum Stop {
        case until(index: Int)
        case watch(index: Int, domain: String, address: Int, old: UInt8, new: UInt8)
        case lua
        /// `until_lua` raised an error (its message): the step fails.
        case luaFailed(String)
    }

    static let maxConditions = 16
    static let maxWatchLength = 256
    static let maxLuaCharacters = 4096

    private(set) var until: [Until] = []
    private(set) var watches: [Watch] = []
    private var lua: (() -> Result<Bool, ControlError>)?

    var isEmpty: Bool { until.isEmpty && watches.isEmpty && lua == nil }

    init(_ request: ControlRequest, session: ControlSession) throws(ControlError) {
        let memory = session.emulator.memory
        for (index, table) in try Self.objects(request, "until").enumerated() {
            until.append(try Self.until(Fields(table, "until[\(index)]"), memory))
        }
        for (index, table) in try Self.objects(request, "watch").enumerated() {
            let fields = Fields(table, "watch[\(index)]")
            try fields.allow(["domain", "address", "length"])
            let length = try fields.integer("length", in: 1...Self.maxWatchLength) ?? 1
            let (domain, address) = try fields.place(memory, width: length)
            watches.append(Watch(domain: domain, name: memory.name(domain), address: address, length: length))
        }
        if let expression = try request.string("until_lua") {
            guard !expression.isEmpty, expression.utf8.count <= 4 * Self.maxLuaCharacters,
                expression.unicodeScalars.count <= Self.maxLuaCharacters
            else {
                throw ControlRequest.wrong(
                    "until_lua", "a Lua expression of 1 to \(Self.maxLuaCharacters) characters", expression)
            }
            guard let scripts = session.scripts else { throw ControlError("\"until_lua\" needs scripts") }
            switch scripts.predicate(expression) {
            case .success(let call): lua = call
            case .failure(let error): throw ControlError("\"until_lua\" does not compile: \(error.description)")
            }
        }
    }

    /// Before each frame: the values `changed`/`increased`/`decreased` and the watches compare with.
    mutating func beforeFrame(_ memory: MemoryAccess) {
        for index in until.indices where !until[index].op.needsValue {
            until[index].before = Self.value(of: until[index], in: memory)
        }
        for index in watches.indices {
            let watch = watches[index]
            watches[index].before = try? memory.read(watch.domain, address: watch.address, count: watch.length)
        }
    }

    /// After each frame: the first condition that holds (`until` in order, then the watches, then
    /// `until_lua`), or nil to go on.
    func afterFrame(_ memory: MemoryAccess) -> Stop? {
        for (index, condition) in until.enumerated() {
            if let now = Self.value(of: condition, in: memory), condition.holds(now: now) {
                return .until(index: index)
            }
        }
        for (index, watch) in watches.enumerated() {
            guard let before = watch.before,
                let now = try? memory.read(watch.domain, address: watch.address, count: watch.length),
                now.count == before.count, let offset = now.indices.first(where: { now[$0] != before[$0] })
            else { continue }
            return .watch(
                index: index, domain: watch.name, address: watch.address + offset, old: before[offset], new: now[offset]
            )
        }
        guard let lua else { return nil }
        switch lua() {
        case .success(let holds): return holds ? .lua : nil
        case .failure(let error): return .luaFailed(error.description)
        }
    }

    /// The condition's bytes as an unsigned number; nil when they cannot be read (a bus block unmapped since).
    private static func value(of condition: Until, in memory: MemoryAccess) -> UInt64? {
        guard let bytes = try? memory.read(condition.domain, address: condition.address, count: condition.size) else {
            return nil
        }
        let ordered = condition.bigEndian ? bytes : bytes.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }

    // MARK: Reading the request

    /// A field that holds a list of 1 to 16 objects (none when absent).
    private static func objects(_ request: ControlRequest, _ key: String) throws(ControlError) -> [[String: Any]] {
        guard let list = try request.list(key) else { return [] }
        guard (1...maxConditions).contains(list.count) else {
            throw ControlError("\"\(key)\" must be a list of 1 to \(maxConditions) objects, got \(list.count)")
        }
        var tables: [[String: Any]] = []
        for (index, item) in list.enumerated() {
            guard let table = item as? [String: Any] else {
                throw ControlRequest.wrong("\(key)[\(index)]", "an object", item)
            }
            tables.append(table)
        }
        return tables
    }

    private static func until(_ fields: Fields, _ memory: MemoryAccess) throws(ControlError) -> Until {
        try fields.allow(["domain", "address", "size", "big_endian", "op", "value"])
        let size = try fields.integer("size", in: 1...4) ?? 1
        guard [1, 2, 4].contains(size) else {
            throw ControlRequest.wrong(fields.name("size"), "1, 2 or 4", fields.table["size"] ?? size)
        }
        let bigEndian = try fields.boolean("big_endian") ?? false
        guard let opName = try fields.string("op") else {
            throw ControlError("\"\(fields.name("op"))\" is missing: one of \(Op.names)")
        }
        guard let op = Op(rawValue: opName) else {
            throw ControlRequest.wrong(fields.name("op"), "one of \(Op.names)", opName)
        }
        let largest = (1 << (8 * size)) - 1
        let value = try fields.integer("value", in: 0...largest)
        if op.needsValue && value == nil {
            throw ControlError(
                "\"\(fields.name("value"))\" is missing: op \(op.rawValue) needs an integer in 0…\(largest)")
        }
        if !op.needsValue && value != nil {
            throw ControlError(
                "\"\(fields.name("value"))\" is not used by op \(op.rawValue) (it compares with the value before the frame)"
            )
        }
        let (domain, address) = try fields.place(memory, width: size)
        return Until(
            domain: domain, address: address, size: size, bigEndian: bigEndian, op: op, value: UInt64(value ?? 0))
    }
}

/// A condition object's fields, read as strictly as a request's, their errors naming `until[2].op`.
private struct Fields {
    let table: [String: Any]
    let prefix: String

    init(_ table: [String: Any], _ prefix: String) {
        self.table = table
        self.prefix = prefix
    }

    func name(_ key: String) -> String { prefix + "." + key }

    /// Refuses a field the condition does not have (a misspelt `value` would otherwise be ignored).
    func allow(_ keys: [String]) throws(ControlError) {
        guard let unknown = table.keys.sorted().first(where: { !keys.contains($0) }) else { return }
        throw ControlError(
            "\"\(prefix)\" has no field \"\(unknown.prefix(40))\" (fields: \(keys.joined(separator: ", ")))")
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let value = table[key] else { return nil }
        guard !ControlRequest.isBoolean(value), let number = value as? Int, range.contains(number) else {
            throw ControlRequest.wrong(name(key), "an integer in \(range.lowerBound)…\(range.upperBound)", value)
        }
        return number
    }

    func string(_ key: String) throws(ControlError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value as? String else { throw ControlRequest.wrong(name(key), "a string", value) }
        return text
    }

    func boolean(_ key: String) throws(ControlError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = ControlRequest.boolean(value) else {
            throw ControlRequest.wrong(name(key), "true or false", value)
        }
        return flag
    }

    /// `domain` (default: the default domain) and `address`, with `width` bytes there inside it and readable.
    func place(_ memory: MemoryAccess, width: Int) throws(ControlError) -> (MemoryAccess.Domain, Int) {
        let named = try string("domain")
        let domain: MemoryAccess.Domain
        do { domain = try memory.domain(named: named) } catch {
            throw ControlError("\"\(name("domain"))\": \(error.reason)")
        }
        guard domain.size >= width else {
            throw ControlError("\"\(name("address"))\": domain '\(memory.name(domain))' is smaller than \(width) bytes")
        }
        guard let address = try integer("address", in: 0...(domain.size - width)) else {
            throw ControlError("\"\(name("address"))\" is missing: an integer in 0…\(domain.size - width)")
        }
        // On a bus, the bytes must be mapped now (a condition on unmapped bytes would never hold).
        do { _ = try memory.read(domain, address: address, count: width) } catch {
            throw ControlError("\"\(name("address"))\": \(error.reason)")
        }
        return (domain, address)
    }
}
