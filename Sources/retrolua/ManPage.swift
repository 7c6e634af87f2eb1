import Foundation
import Emulation

/// `retrolua man`: the manual page (roff), written from the same tables as `--help`.
enum ManCommand {
    static let spec = CommandSpec(
        name: "man", summary: "print the manual page (roff; `retrolua man | man -l -`)", usage: ["man"],
        description: "Prints retrolua(1) in roff. `scripts/install` installs it as share/man/man1/retrolua.1.",
        takesFiles: false)

    /// The environment variables Retrolua reads, for the man page (docs/reference/environment.md says the same).
    static let environment: [(name: String, meaning: String)] = [
        ("RETROLUA_LUA_DIR", "the lua/ folder (default: share/retrolua/lua beside the binary, else the source tree's)"),
        ("RETROLUA_DEFAULT_ROM", "what `retrolua run` plays without a ROM (default: the built demo.nes)"),
        ("RETROLUA_CORE_PATH", "colon-separated folders searched for cores first"),
        (
            "RETROLUA_EXTRA_CORE_PATH",
            "colon-separated folders searched for cores last (the Python package adds stable-retro's)"
        ),
        ("RETROLUA_PROBE_TIMEOUT", "seconds a core may take to describe itself (default 5, 0.1…60)"),
        ("RETROLUA_CONTROL_TOKEN", "the Python client's control-socket token"),
        ("RETROLUA_PYTHON", "the Python interpreter `batch --ray` runs"),
        ("RETROLUA_SPEAK_WAV", "--speak writes each utterance to a numbered WAV file beside this one (FILE-1.wav, …)"),
        ("XDG_DATA_HOME", "saves, states, screenshots, data, system files (default ~/.local/share/retrolua)"),
        ("XDG_CONFIG_HOME", "options, settings and replacement scripts (default ~/.config/retrolua)"),
        ("XDG_CACHE_HOME", "the cores' descriptions (default ~/.cache/retrolua/cores.json)"),
    ]

    static let description = """
        Retrolua loads any libretro core and binds it to a Lua 5.4 API: bots, overlays, TAS tools and the
        frontend's own behaviour are Lua scripts. Runs play in an SDL window, or headless and unpaced.
        """

    /// Where Retrolua keeps its files (the man page's FILES, the CLI reference's "Files").
    static let files: [(path: String, meaning: String)] = [
        (
            "~/.local/share/retrolua/",
            "saves/ (battery saves), states/ (savestate slots and thumbnails), screenshots/, system/ (BIOS), "
                + "data/ (scripts' files: data/achievements/, data/movies/ for read-write changes, bots' output)"
        ),
        (
            "~/.config/retrolua/",
            "options/CORE.opt and options/CORE/GAME.opt, cheats/GAME.cht, achievements/GAME.json, input/, "
                + "scripts/ (replacements for lua/defaults/), NAME.lua settings (osd.lua, hotkeys.lua, …), "
                + "cores.cfg, gamecontrollerdb.txt"
        ),
        ("~/.cache/retrolua/cores.json", "what each core said about itself"),
    ]

    static let exitStatus =
        "0 success, 1 a failed run (bad core, content, file; a script that failed in a run without a window, or "
        + "under --strict), 2 a bad command line, 130, 143, 129 a run ended by SIGINT, SIGTERM, SIGHUP."

    static let seeAlso =
        "The manual, docs/ (start at docs/index.md: guides in docs/guides/, reference in docs/reference/) beside "
        + "README.md in share/doc/retrolua/ or the source tree; the Lua API, lua/API.md in share/retrolua/ or "
        + "the source tree."

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("man: \(error)", command: "man") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        if let extra = args.positionals.first { usageFail("man: unexpected argument '\(extra)'", command: "man") }
        print(page, terminator: "")
    }

    /// Text made safe for roff: backslashes, hyphens, and a leading dot or quote.
    static func roff(_ text: String) -> String {
        var escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        // Named glyphs, so the page needs no preprocessor for its few non-ASCII characters.
        let glyphs = [("…", "..."), ("≈", "\\(~~"), ("≠", "\\(!="), ("—", "\\(em"), ("–", "\\(en"), ("×", "\\(mu")]
        for (glyph, name) in glyphs {
            escaped = escaped.replacingOccurrences(of: glyph, with: name)
        }
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0)
        }.joined(separator: "\n")
    }

    static var page: String {
        var out = [
            ".TH RETROLUA 1 \"\" \"Retrolua \(RetroluaVersion.number)\" \"User Commands\"", ".SH NAME",
            "retrolua \\- a scripting\\-first libretro frontend (Lua 5.4)", ".SH SYNOPSIS", ".B retrolua",
            ".I COMMAND", "[options]", ".SH DESCRIPTION",
            roff(description), ".SH COMMANDS",
        ]
        for spec in CommandList.everySpec {
            out += [".SS \"retrolua \(roff(spec.name))\"", roff(spec.summary), ".PP", ".nf"]
            out += spec.usage.map { roff("retrolua " + $0) }
            out += [".fi"]
            if !spec.description.isEmpty { out += [".PP", ".nf", roff(spec.description), ".fi"] }
            for group in spec.groups {
                if let title = group.title { out += [".PP", "\\fI\(roff(title))\\fR"] }
                for option in group.options {
                    out += [
                        ".TP",
                        "\\fB\\-\\-\(roff(option.name))\\fR" + (option.value.map { " \\fI\(roff($0))\\fR" } ?? "")
                            + (option.inlineValue.map { "[=\\fI\(roff($0))\\fR]" } ?? ""),
                        roff(option.help),
                    ]
                }
                if !group.note.isEmpty { out += [".PP", roff(group.note)] }
            }
            out += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "show the command's help"]
        }
        out += [".SH HOTKEYS", roff(HotkeyReference.intro)]
        if let problem = HotkeyReference.problem { out += [".PP", roff(problem)] }
        for binding in HotkeyReference.bindings { out += [".TP", ".B \(roff(binding.key))", roff(binding.action)] }
        out += [".SH ENVIRONMENT"]
        for variable in environment { out += [".TP", ".B \(variable.name)", roff(variable.meaning)] }
        out += [".SH FILES"]
        for file in files { out += [".TP", ".I \(roff(file.path))", roff(file.meaning)] }
        out += [".SH EXIT STATUS", roff(exitStatus), ".SH SEE ALSO", roff(seeAlso), ""]
        return out.joined(separator: "\n")
    }
}
