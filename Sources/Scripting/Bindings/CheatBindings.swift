import CLua
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// Pushes one cheat as a table for `cheats.list()`.
    private static func push(_ cheat: Cheat, _ call: LuaCall) {
        call.newTable(fields: 14)
        call.set("id", cheat.id)
        call.set("description", cheat.description)
        call.set("enabled", cheat.enabled)
        switch cheat.kind {
        case .code(let code):
            call.set("code", code)
        case .ram(let ram):
            call.set("address", ram.address)
            call.set("value", Int(ram.value))
            call.set("size", ram.bits)
            call.set("type", ram.operation.name)
            call.set("mask", Int(ram.mask))
            call.set("big_endian", ram.bigEndian)
            call.set("repeat_count", ram.repeatCount)
            call.set("repeat_value_step", Int(ram.repeatValueStep))
            call.set("repeat_address_step", ram.repeatAddressStep)
            if let domain = ram.domain { call.set("domain", domain) }
        }
    }

    private static func cheatID(_ call: LuaCall) throws(LuaCallError) -> Int { try call.integer(1, "id") }

    private static let comparisonNames = RAMSearch.Comparison.allCases.map(\.rawValue).joined(separator: ", ")

    static let cheats = LuaModule(
        "cheats",
        doc: """
            Cheats with RetroArch's semantics: codes the core applies (`retro_cheat_set`: Game Genie, Pro Action \
            Replay, GameShark… whatever the core accepts) and RAM cheats Retrolua applies after every frame (set, \
            increase, decrease, and conditions that run the next cheat; 1–32 bits, masks, big-endian, repeats). \
            `.cht` files load and save. RAM search finds addresses by snapshot and compare. All refused in hardcore \
            mode (see `emu.hardcore`). The default `cheats` script keeps each game's cheats in \
            `~/.config/retrolua/cheats/GAME.cht`.
            """,
        functions: cheatList + cheatSearch)

    /// Core codes and RAM cheats: adding, listing, switching, removing, .cht files.
    private static let cheatList: [LuaFunction] = [
        LuaFunction(
            "add_code", "code: string, options?: table", returns: "integer?, string?",
            doc:
                """
                Adds a core cheat code (`{description=, enabled= (default true)}`); returns its id. The core \
                decides what it accepts (nestopia: Game Genie and Pro Action Rocky; gambatte: Game Genie and \
                GameShark).
                """
        ) { run($0, $1, cheatsAddCode) },
        LuaFunction(
            "add_ram", "cheat: table", returns: "integer?, string?",
            doc:
                """
                Adds a RAM cheat: `{address=, value=, size= (1, 2, 4, 8, 16 or 32 bits; default 8), type= \
                (\"set\" default, \"increase\", \"decrease\", \"if_equal\", \"if_not_equal\", \"if_less\", \
                \"if_greater\"), mask= (sub-byte sizes: which bits, default all), big_endian=, repeat_count=, \
                repeat_value_step=, repeat_address_step= (in values, default 1), domain=, description=, \
                enabled= (default true)}`. A condition that fails skips the next enabled RAM cheat; as in \
                RetroArch, `if_less` runs it when `value` < memory and `if_greater` when `value` > memory. \
                Returns the id.
                """
        ) { run($0, $1, cheatsAddRam) },
        LuaFunction(
            "list", returns: "table",
            doc:
                """
                Every cheat in order: `{id=, description=, enabled=, code=}` or, for RAM cheats, the fields \
                of `add_ram`.
                """
        ) { run($0, $1, cheatsList) },
        LuaFunction(
            "enable", "id: integer, on: boolean", returns: "boolean?, string?",
            doc:
                """
                Turns a cheat on or off; `false` when there is no such id (`nil, message` for turning one on \
                in hardcore mode).
                """
        ) { run($0, $1, cheatsEnable) },
        LuaFunction(
            "remove", "id: integer", returns: "boolean", doc: "Removes a cheat; `false` when there is no such id."
        ) { run($0, $1, cheatsRemove) },
        LuaFunction("clear", doc: "Removes every cheat.") { run($0, $1, cheatsClear) },
        LuaFunction(
            "load", "path: string, options?: table", returns: "integer?, string?",
            doc:
                """
                Loads a RetroArch `.cht` file, replacing the list (`{append = true}` adds to it). Returns the \
                number of cheats read, or `nil, message` (the list is unchanged then).
                """
        ) { run($0, $1, cheatsLoad) },
        LuaFunction(
            "save", "path: string", returns: "boolean?, string?",
            doc: "Writes the list as a RetroArch `.cht` file, durably."
        ) { run($0, $1, cheatsSave) },
    ]

    /// RAM search.
    private static let cheatSearch: [LuaFunction] = [
        LuaFunction(
            "search_start", "options?: table", returns: "integer",
            doc:
                """
                Starts a RAM search: snapshots a domain (`{domain=, size= (1, 2, 4, 8, 16 or 32 bits, default \
                8), big_endian=, signed= (values compare as two's complement: 0xFF is -1 at 8 bits)}`; values \
                under 8 bits are searched in every bit group of every byte; `domain = \"all\"` searches every \
                domain but the assembled `bus`, which repeats them); every address is a candidate. Returns the \
                number of candidates.
                """
        ) { run($0, $1, cheatsSearchStart) },
        LuaFunction(
            "search", "comparison: string, value?: integer", returns: "integer",
            doc:
                """
                Keeps the candidates whose value now compares true: against `value` (`equal`, `not_equal`, \
                `less`, `greater`, `less_equal`, `greater_equal`), against the last snapshot (`changed`, \
                `unchanged`, `increased`, `decreased`), or by an amount (`increased_by`, `decreased_by`; unsigned \
                amounts wrap at the value's size, as counters do). In a signed search `value` may be negative. The memory now becomes the snapshot. Returns the \
                candidates left.
                """
        ) { run($0, $1, cheatsSearch) },
        LuaFunction(
            "search_results", "limit?: integer", returns: "table",
            doc:
                """
                The candidates (at most `limit`, default 100), in address order: `{address=, value=, \
                previous=, domain=, mask=}` (`mask`: the byte's bits for values under 8 bits, ready for \
                `add_ram`; values are then shifted down to bit 0). Values are unsigned, also in a signed search \
                (as `add_ram` takes them).
                """
        ) { run($0, $1, cheatsSearchResults) },
        LuaFunction(
            "search_count", returns: "integer", doc: "Candidates left in the current search (0 without one)."
        ) { run($0, $1, cheatsSearchCount) },
    ]

    // MARK: - The functions

    private static func cheatsAddCode(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        let code = try call.string(1, "code")
        guard !code.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw call.badArgument(1, "code", "must not be empty")
        }
        var description = "", enabled = true
        if try call.optionalTable(2, "options") {
            description = try call.stringField(2, "description", argument: 2) ?? ""
            enabled = try call.booleanField(2, "enabled", argument: 2) ?? true
        }
        return call.returning(try emulator.addCheat(description, .code(code), enabled: enabled))
    }

    private static func cheatsAddRam(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        try call.table(1, "cheat")
        guard let address = try call.integerField(1, "address", argument: 1) else {
            throw call.badField(1, "address", "is required")
        }
        guard let value = try call.integerField(1, "value", argument: 1) else {
            throw call.badField(1, "value", "is required")
        }
        var ram = RAMCheat(address: address, value: UInt32(truncatingIfNeeded: value))
        ram.bits = try call.integerField(1, "size", argument: 1) ?? 8
        guard RAMCheat.sizes.contains(ram.bits) else {
            throw call.badField(1, "size", "must be 1, 2, 4, 8, 16 or 32 (bits)")
        }
        if let type = try call.stringField(1, "type", argument: 1) {
            guard let operation = RAMCheat.Operation.named(type) else {
                throw call.badField(
                    1, "type",
                    "unknown type '\(type)'; types are \(RAMCheat.Operation.names.joined(separator: ", "))")
            }
            ram.operation = operation
        }
        let mask =
            try call.integerField(1, "mask", argument: 1) ?? (ram.bits < 8 ? (1 << ram.bits) - 1 : 0xFF)
        guard (1...255).contains(mask) else { throw call.badField(1, "mask", "must be 1…255") }
        ram.mask = UInt8(mask)
        ram.bigEndian = try call.booleanField(1, "big_endian", argument: 1) ?? false
        ram.repeatCount = try call.integerField(1, "repeat_count", argument: 1) ?? 1
        ram.repeatValueStep = UInt32(
            truncatingIfNeeded: try call.integerField(1, "repeat_value_step", argument: 1) ?? 0)
        ram.repeatAddressStep = try call.integerField(1, "repeat_address_step", argument: 1) ?? 1
        if let domain = try call.stringField(1, "domain", argument: 1) {
            guard (try? emulator.memory.domain(named: domain)) != nil else {
                throw call.badField(1, "domain", "no domain '\(domain)'")
            }
            ram.domain = domain
        }
        let description = try call.stringField(1, "description", argument: 1) ?? ""
        let enabled = try call.booleanField(1, "enabled", argument: 1) ?? true
        return call.returning(try emulator.addCheat(description, .ram(ram), enabled: enabled))
    }

    private static func cheatsList(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let list = script.emulator.cheats.cheats
        call.pushList(list) { cheat in
            push(cheat, call)
        }
        return 1
    }

    private static func cheatsEnable(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let id = try cheatID(call)
        let on = try call.boolean(2, "on")
        return call.returning(try script.emulator.enableCheat(id, on))
    }

    private static func cheatsRemove(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.removeCheat(try cheatID(call)))
    }

    private static func cheatsClear(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.emulator.removeAllCheats()
        return 0
    }

    private static func cheatsLoad(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        try script.checkFileAccess(path, write: false)
        let append =
            try call.optionalTable(2, "options")
            ? try call.booleanField(2, "append", argument: 2) ?? false : false
        return call.returning(try script.emulator.loadCheats(from: path, append: append))
    }

    private static func cheatsSave(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        try script.checkFileAccess(path, write: true)
        try script.emulator.saveCheats(to: path)
        return call.returning(true)
    }

    private static func cheatsSearchStart(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        var name: String?, bits = 8, bigEndian = false, signed = false
        if try call.optionalTable(1, "options") {
            name = try call.stringField(1, "domain", argument: 1)
            bits = try call.integerField(1, "size", argument: 1) ?? 8
            bigEndian = try call.booleanField(1, "big_endian", argument: 1) ?? false
            signed = try call.booleanField(1, "signed", argument: 1) ?? false
        }
        guard RAMCheat.sizes.contains(bits) else {
            throw call.badField(1, "size", "must be 1, 2, 4, 8, 16 or 32 (bits)")
        }
        let memory = emulator.memory
        let domains: [MemoryAccess.Domain]
        if name == "all" {
            domains = memory.domains.filter { !$0.isBus }
        } else if let domain = try? memory.domain(named: name) {
            domains = [domain]
        } else {
            throw name == nil
                ? call.error("the core exposes no memory")
                : call.badField(1, "domain", "no domain '\(name!)'")
        }
        guard
            let search = RAMSearch(
                memory: memory, domains: domains, bits: bits, bigEndian: bigEndian, signed: signed)
        else {
            throw call.error("the domain is too large to search")
        }
        emulator.ramSearch = search
        return call.returning(search.candidates.count)
    }

    private static func cheatsSearch(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        let name = try call.string(1, "comparison")
        guard let comparison = RAMSearch.Comparison(rawValue: name) else {
            throw call.badArgument(
                1, "comparison", "unknown comparison '\(name)'; one of \(comparisonNames)")
        }
        var operand = 0
        if comparison.needsValue { operand = try call.integer(2, "value") }
        guard let search = emulator.ramSearch else {
            throw call.error("no search started (call cheats.search_start first)")
        }
        return call.returning(search.filter(comparison, operand, memory: emulator.memory))
    }

    private static func cheatsSearchResults(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let emulator = script.emulator
        let limit = try call.optionalInteger(1, "limit") ?? 100
        guard limit >= 0 else { throw call.badArgument(1, "limit", "must be 0 or more") }
        let results = emulator.ramSearch?.results(limit: limit, memory: emulator.memory) ?? []
        call.pushList(results) { result in
            call.newTable(fields: 5)
            call.set("mask", Int(result.mask))
            call.set("address", result.address)
            call.set("value", Int(result.value))
            call.set("previous", Int(result.previous))
            call.set("domain", result.domain)
        }
        return 1
    }

    private static func cheatsSearchCount(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(script.emulator.ramSearch?.candidates.count ?? 0)
    }
}
