/// The option tables every command is described by: `--help`, the parser's known options, the shell
/// completions and the man page are all generated from them, so they cannot drift apart.
struct Option {
    /// The long name, without `--`.
    let name: String
    /// The value's placeholder (`FILE`, `N`); nil for a flag.
    let value: String?
    let help: String
    /// Values the shell may complete (`--sync audio|vsync|clock`); empty: by the placeholder.
    var choices: [String] = []
    /// A flag that also takes a value written after `=` (`--allow-net` or `--allow-net=HOST`): its placeholder.
    var inlineValue: String?

    init(
        _ name: String, _ value: String? = nil, _ help: String, choices: [String] = [], inlineValue: String? = nil
    ) {
        self.name = name
        self.value = value
        self.help = help
        self.choices = choices
        self.inlineValue = inlineValue
    }

    /// How the option is written in help and references: `--name VALUE`, `--name[=VALUE]`, `--name`.
    var synopsis: String {
        "--" + name + (value.map { " " + $0 } ?? "") + (inlineValue.map { "[=\($0)]" } ?? "")
    }

    /// What the shell completes after the option.
    var completion: Completion {
        if !choices.isEmpty { return .words(choices) }
        guard let value else { return .none }
        if value.contains("DIR") { return .directory }
        if value.contains("FILE") || value.contains("PATH") || value.contains("ROM") { return .file }
        return .none
    }

    enum Completion: Equatable {
        case none, file, directory
        case words([String])
    }
}

/// Options under one heading of a command's help.
struct OptionGroup {
    let title: String?
    let options: [Option]
    /// Lines after the group's options.
    var note = ""

    init(_ options: [Option]) { self.init(nil, options) }

    init(_ title: String?, note: String = "", _ options: [Option]) {
        self.title = title
        self.options = options
        self.note = note
    }
}

/// One command (or `movie` subcommand): its synopsis, description and options.
struct CommandSpec {
    /// As typed after `retrolua`: `run`, `movie record`.
    let name: String
    /// One line for the command list and the man page.
    let summary: String
    /// Synopsis lines, each after `retrolua `.
    let usage: [String]
    let description: String
    var groups: [OptionGroup] = []
    /// Text after the options.
    var footer = ""
    /// Positional arguments the shell completes as files.
    var takesFiles = true

    static let help = Option("help", nil, "show this help and exit (also -h)")

    /// Every option the command takes, `--help` included.
    var options: [Option] { groups.flatMap(\.options) + [Self.help] }
    var valued: Set<String> { Set(options.filter { $0.value != nil }.map(\.name)) }
    var flags: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }
    var inlineValued: Set<String> { Set(options.filter { $0.inlineValue != nil }.map(\.name)) }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The text `--help` prints.
    var helpText: String {
        var lines = usage.enumerated().map { ($0.offset == 0 ? "usage: retrolua " : "       retrolua ") + $0.element }
        if !description.isEmpty { lines += [""] + Self.lines(description) }
        for group in groups {
            lines.append("")
            if let title = group.title { lines.append(title + ":") }
            for option in group.options { lines += HelpLayout.lines(for: option) }
            if !group.note.isEmpty { lines += group.note.split(separator: "\n").map { "  " + $0 } }
        }
        if !footer.isEmpty { lines += [""] + Self.lines(footer) }
        return lines.joined(separator: "\n")
    }
}

/// How an option's line is laid out: `  --name VALUE` in a 24-column gutter, the help wrapped beside it.
enum HelpLayout {
    static let gutter = 24
    static let width = 112

    static func lines(for option: Option) -> [String] {
        let left = "  " + option.synopsis
        let words = option.help.split(separator: " ").map(String.init)
        var lines: [String] = []
        var current = left.count < gutter ? left.padding(toLength: gutter, withPad: " ", startingAt: 0) : left + " "
        var empty = true
        for word in words {
            if !empty && current.count + 1 + word.count > width {
                lines.append(current)
                current = String(repeating: " ", count: gutter)
                empty = true
            }
            current += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(current)
        return lines
    }
}
