/// A small command-line parser: `--flag`, `--key value`, `--key=value`, repeated keys, positionals;
/// `-h` is `--help`, `--` ends the options, and any other option is refused with the closest known one.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ raw: [String], spec: CommandSpec) throws {
        try self.init(
            raw, valued: spec.valued, flags: spec.flags, known: spec.options.map(\.name), inline: spec.inlineValued)
    }

    /// `valued` names the options that take a value, `flags` those that do not (`inline`: flags that may
    /// also be written `--flag=VALUE`, the value kept with `value`/`all`); `known` lists both in the order
    /// suggestions prefer.
    init(
        _ raw: [String], valued: Set<String>, flags known: Set<String>, known order: [String]? = nil,
        inline inlineValued: Set<String> = []
    ) throws {
        let names = order ?? (valued.union(known).union(["help"])).sorted()
        var index = 0
        var optionsEnded = false
        while index < raw.count {
            let item = raw[index]
            index += 1
            if optionsEnded || item == "-" || !item.hasPrefix("-") {
                positionals.append(item)
                continue
            }
            if item == "--" {
                optionsEnded = true
                continue
            }
            if item == "-h" {
                flags.insert("help")
                continue
            }
            guard item.hasPrefix("--") else {
                throw UsageError(description: OptionSuggestion.unknown(item, among: names))
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
            } else if known.contains(name) || name == "help" {
                if let inline {
                    guard inlineValued.contains(name) else { throw UsageError(description: "--\(name) takes no value") }
                    values[name, default: []].append(inline)
                }
                flags.insert(name)
            } else {
                throw UsageError(description: OptionSuggestion.unknown("--" + name, among: names))
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

/// "unknown option -q; did you mean --quiet?": the known option closest to a mistyped one.
enum OptionSuggestion {
    static func unknown(_ typed: String, among names: [String]) -> String {
        guard let best = closest(to: typed, among: names) else { return "unknown option \(typed)" }
        return "unknown option \(typed); did you mean --\(best)?"
    }

    /// A short option (`-q`) suggests the first long one with its letter; a long one the nearest by
    /// edit distance (or the one it begins), when near enough to be a slip.
    static func closest(to typed: String, among names: [String]) -> String? {
        if !typed.hasPrefix("--") {
            let letters = typed.dropFirst()
            guard let letter = letters.first else { return nil }
            if letters.count > 1, let word = closest(to: "-" + typed, among: names) { return word }
            return names.first { $0.first == letter && $0 != "help" } ?? (letter == "h" ? "help" : nil)
        }
        let word = String(typed.dropFirst(2).prefix { $0 != "=" })
        guard !word.isEmpty else { return nil }
        if let started = names.first(where: { $0.hasPrefix(word) }) { return started }
        let scored = names.map { (name: $0, distance: distance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= max(2, word.count / 3) ? best.name : nil
    }

    /// Levenshtein distance (insertions, deletions, substitutions), on characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
