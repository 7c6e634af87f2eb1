import Foundation
import Libretro

/// RetroArch's `.cht` cheat files: `cheats = N`, then `cheatI_desc`, `cheatI_code`, `cheatI_enable`
/// and, for RetroArch-handled (RAM) cheats, `cheatI_handler = 1` with the address, value, size, type,
/// mask, endianness and repeat keys. Values may be quoted.
enum CheatFile {
    /// Keys per cheat that Retrolua reads; other `cheatI_` keys (rumble) are kept as extras.
    private static let known: Set<String> = [
        "desc", "code", "enable", "handler", "memory_search_size", "cheat_type", "value",
        "address", "address_bit_position", "big_endian", "repeat_count",
        "repeat_add_to_value", "repeat_add_to_address",
    ]
    /// The largest file read (a cheat file is text of a few kilobytes).
    static let maxSize = 8 << 20

    static func parse(_ text: String, name: String) throws(CheatFileError) -> [Cheat] {
        var values: [String: String] = [:]
        var order: [String] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw CheatFileError("\(name):\(number + 1): expected 'key = value', got '\(line)'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if values[key] == nil { order.append(key) }
            values[key] = value
        }
        guard let countText = values["cheats"] else {
            throw CheatFileError("\(name): not a cheat file (no 'cheats = N' line)")
        }
        guard let count = Int(countText), (0...100_000).contains(count) else {
            throw CheatFileError("\(name): 'cheats' should be a count, got '\(countText)'")
        }
        var cheats: [Cheat] = []
        for index in 0..<count {
            let prefix = "cheat\(index)_"
            func field(_ key: String) -> String? { values[prefix + key] }
            func integer(_ key: String, _ fallback: Int) throws(CheatFileError) -> Int {
                guard let text = field(key) else { return fallback }
                let parsed = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
                guard let parsed else {
                    throw CheatFileError("\(name): \(prefix + key) should be a number, got '\(text)'")
                }
                return parsed
            }
            let description = field("desc") ?? ""
            let enabled = field("enable") == "true"
            let extras = order.filter { $0.hasPrefix(prefix) && !known.contains(String($0.dropFirst(prefix.count))) }
                .map { (String($0.dropFirst(prefix.count)), values[$0]!) }
            if try integer("handler", 0) == 1 {
                var ram = RAMCheat(
                    address: try integer("address", 0), value: UInt32(truncatingIfNeeded: try integer("value", 0)))
                let size = try integer("memory_search_size", 3)
                guard RAMCheat.sizes.indices.contains(size) else {
                    throw CheatFileError("\(name): \(prefix)memory_search_size must be 0…5, got \(size)")
                }
                ram.bits = RAMCheat.sizes[size]
                let type = try integer("cheat_type", 1)
                guard (0...7).contains(type) else {
                    throw CheatFileError("\(name): \(prefix)cheat_type must be 0…7, got \(type)")
                }
                ram.operation = RAMCheat.Operation(rawValue: max(1, type))!
                ram.mask = UInt8(truncatingIfNeeded: try integer("address_bit_position", 0xFF))
                ram.bigEndian = field("big_endian") == "true"
                ram.repeatCount = max(1, try integer("repeat_count", 1))
                ram.repeatValueStep = UInt32(truncatingIfNeeded: try integer("repeat_add_to_value", 0))
                ram.repeatAddressStep = try integer("repeat_add_to_address", 1)
                if let problem = Cheat.Kind.ram(ram).problem {
                    throw CheatFileError("\(name): cheat\(index): \(problem)")
                }
                // cheat_type 0 is RetroArch's "disabled" type.
                cheats.append(
                    Cheat(
                        id: 0, description: description, enabled: enabled && type != 0, kind: .ram(ram), extras: extras)
                )
            } else {
                guard let code = field("code") else { throw CheatFileError("\(name): \(prefix)code is missing") }
                if let problem = Cheat.Kind.code(code).problem {
                    throw CheatFileError("\(name): \(prefix)code: \(problem)")
                }
                cheats.append(
                    Cheat(id: 0, description: description, enabled: enabled, kind: .code(code), extras: extras))
            }
        }
        return cheats
    }

    static func encode(_ cheats: [Cheat]) -> String {
        var lines = ["cheats = \"\(cheats.count)\"", ""]
        for (index, cheat) in cheats.enumerated() {
            let prefix = "cheat\(index)_"
            func put(_ key: String, _ value: String) { lines.append("\(prefix)\(key) = \"\(value)\"") }
            put("desc", cheat.description.replacingOccurrences(of: "\"", with: "'"))
            switch cheat.kind {
            case .code(let code):
                put("code", code)
                put("enable", cheat.enabled ? "true" : "false")
                put("handler", "0")
            case .ram(let ram):
                put("code", "")
                put("enable", cheat.enabled ? "true" : "false")
                put("handler", "1")
                put("memory_search_size", String(RAMCheat.sizes.firstIndex(of: ram.bits) ?? 3))
                put("cheat_type", String(ram.operation.rawValue))
                put("value", String(ram.value))
                put("address", String(ram.address))
                put("address_bit_position", String(ram.mask))
                put("big_endian", ram.bigEndian ? "true" : "false")
                put("repeat_count", String(ram.repeatCount))
                put("repeat_add_to_value", String(ram.repeatValueStep))
                put("repeat_add_to_address", String(ram.repeatAddressStep))
            }
            for (key, value) in cheat.extras { put(key, value) }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}

/// A cheat file that cannot be used, with where and why.
struct CheatFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
