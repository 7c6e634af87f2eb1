/// A small command-line parser: `--flag`, `--key value`, `--key=value`, repeated keys, positionals.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// `valued` names the options that take a value; anything else starting with `--` is a flag.
    init(_ raw: [String], valued: Set<String>, flags known: Set<String>) throws {
        var index = 0
        while index < raw.count {
            let item = raw[index]
            index += 1
            guard item.hasPrefix("--"), item.count > 2 else {
                positionals.append(item)
                continue
            }
            var name = String(item.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valued.contains(name) {
                guard let value = inline ?? (index < raw.count ? raw[index] : nil) else {
                    throw UsageError(description: "--\(name) needs a value")
                }
                if inline == nil { index += 1 }
                values[name, default: []].append(value)
            } else if known.contains(name) {
                guard inline == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func integer(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw UsageError(description: "--\(name) expects a non-negative integer, got '\(text)'")
        }
        return number
    }
}
