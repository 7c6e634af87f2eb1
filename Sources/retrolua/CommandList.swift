import Emulation
import Foundation

/// Every command's table, for the top-level usage, `retrolua help CMD`, completions and the man page.
enum CommandList {
    static let versionSpec = CommandSpec(
        name: "version", summary: "print Retrolua's version (also --version)", usage: ["version", "--version"],
        description: "", takesFiles: false)
    static let helpSpec = CommandSpec(
        name: "help", summary: "describe a command (`retrolua help run`, `retrolua help movie record`)",
        usage: ["help [COMMAND [SUBCOMMAND]]"], description: "", takesFiles: false)

    /// The commands in the order the usage lists them.
    static var commands: [CommandSpec] {
        [
            RunCommand.spec, AttachCommand.spec, McpCommand.spec, CoresCommand.spec, InfoCommand.spec,
            PathsCommand.spec,
            MovieCommand.spec, BatchCommand.spec, NetplayCheckCommand.spec, NetplayRelayCommand.spec,
            DocsCommand.spec, CompletionsCommand.spec, ManCommand.spec, versionSpec, helpSpec,
        ]
    }

    /// Commands and `movie` subcommands: every table there is.
    static var everySpec: [CommandSpec] { commands + MovieCommand.subcommands }

    /// The commands the usage lists: `docs` is the developers' (it regenerates files of the source tree), so
    /// it answers `retrolua help docs` but is not offered to users.
    static var listed: [CommandSpec] { commands.filter { $0.name != DocsCommand.spec.name } }

    static var usage: String {
        // The widest name sets the column, so no name is cut.
        let width = listed.map(\.name.count).max() ?? 0
        let lines = listed.map { spec in
            "  " + spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + spec.summary
        }
        return """
            usage: retrolua COMMAND [options]

            commands:
            \(lines.joined(separator: "\n"))

            `retrolua help COMMAND` (or `retrolua COMMAND --help`) describes each command's options.
            """
    }

    /// `help`, `help run`, `help movie record`: the table's help on stdout, exit 0.
    static func help(_ words: [String]) -> Never {
        if words.isEmpty {
            print(usage)
            exit(0)
        }
        if words.count == 1, words[0] == "-h" || words[0] == "--help" {
            print(helpSpec.helpText)
            exit(0)
        }
        let name = words.joined(separator: " ")
        guard let spec = everySpec.first(where: { $0.name == name }) else {
            let hint = nearest(to: name).map { "; did you mean \($0)?" } ?? ""
            usageFail("help: no command '\(name)'\(hint)", command: nil)
        }
        print(helpText(for: spec))
        exit(0)
    }

    /// A command's help: its table's, and for `run` the default frontend's hotkeys too.
    static func helpText(for spec: CommandSpec) -> String {
        spec.name == RunCommand.spec.name ? spec.helpText + "\n\n" + HotkeyReference.helpText : spec.helpText
    }

    static func version(_ raw: [String]) -> Never {
        do {
            let args = try Arguments(raw, spec: versionSpec)
            if args.flag("help") {
                print(versionSpec.helpText)
                exit(0)
            }
            if let extra = args.positionals.first { usageFail("version: unexpected argument '\(extra)'", command: nil) }
        } catch {
            usageFail("version: \(error)", command: "version")
        }
        print("retrolua \(RetroluaVersion.number)")
        exit(0)
    }

    /// An unknown command or top-level option, with the nearest one.
    static func unknown(_ word: String) -> Never {
        if word.hasPrefix("-") {
            usageFail(OptionSuggestion.unknown(word, among: ["version", "help"]), command: nil)
        }
        usageFail(
            "unknown command '\(word)'\(nearest(to: word).map { "; did you mean \($0)?" } ?? "")\n\n\(usage)",
            command: nil)
    }

    private static func nearest(to word: String) -> String? {
        let names = everySpec.map(\.name)
        let best = names.min { OptionSuggestion.distance($0, word) < OptionSuggestion.distance($1, word) }
        guard let best, OptionSuggestion.distance(best, word) <= max(2, word.count / 3) else { return nil }
        return best
    }
}
