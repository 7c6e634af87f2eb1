@testable import Emulation
import Foundation
import Support
import XCTest

/// The command line's conventions: --version, -h/--help and `help CMD` everywhere, unknown options
/// refused with the nearest one (exit 2), --quiet, and completions and man page from the same tables.
final class CLIConventionTests: XCTestCase {
    private let commands = ["run", "cores", "info", "movie", "batch", "docs", "completions", "man", "version", "help"]
    private let movieSubcommands = ["record", "play", "verify", "convert", "info", "recover"]

    func testVersion() throws {
        for arguments in [["--version"], ["version"]] {
            let result = try Fixtures.cli(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, "retrolua \(RetroluaVersion.number)\n")
            XCTAssertEqual(result.stderr, "")
        }
    }

    /// `CMD --help`, `CMD -h` and `help CMD` print the same help on stdout and exit 0.
    func testEveryCommandAndSubcommandHasHelp() throws {
        let named = commands.map { [$0] } + movieSubcommands.map { ["movie", $0] }
        for words in named {
            let name = words.joined(separator: " ")
            let long = try Fixtures.cli(words + ["--help"])
            XCTAssertEqual(long.status, 0, "\(name) --help: \(long.stderr)")
            XCTAssertTrue(long.stdout.hasPrefix("usage: retrolua \(name)"), "\(name): \(long.stdout.prefix(80))")
            XCTAssertEqual(long.stderr, "", name)
            let short = try Fixtures.cli(words + ["-h"])
            XCTAssertEqual(short.status, 0, "\(name) -h: \(short.stderr)")
            XCTAssertEqual(short.stdout, long.stdout, "\(name) -h")
            let viaHelp = try Fixtures.cli(["help"] + words)
            XCTAssertEqual(viaHelp.status, 0, "help \(name): \(viaHelp.stderr)")
            XCTAssertEqual(viaHelp.stdout, long.stdout, "help \(name)")
        }
        let top = try Fixtures.cli(["help"])
        XCTAssertEqual(top.status, 0)
        for command in commands where command != "docs" {
            XCTAssertTrue(top.stdout.contains("\n  \(command) "), command)
        }
        XCTAssertEqual(try Fixtures.cli(["-h"]).stdout, top.stdout)
    }

    /// The usage lists every user's command by its whole name (netplay-check is the widest) and leaves out
    /// the developers' `docs`, which still answers `help docs`.
    func testTheUsageListsUsersCommandsWhole() throws {
        let top = try Fixtures.cli(["--help"])
        XCTAssertEqual(top.status, 0, top.stderr)
        XCTAssertTrue(top.stdout.contains("\n  netplay-check  check a core"), top.stdout)
        XCTAssertFalse(top.stdout.contains("\n  docs "), top.stdout)
        XCTAssertTrue(try Fixtures.cli(["help", "docs"]).stdout.hasPrefix("usage: retrolua docs"))
    }

    /// Bad command lines: exit 2, the problem on stderr with the nearest option or command, nothing run.
    func testUnknownOptionsAreRefusedWithTheNearestOne() throws {
        let cases: [([String], String)] = [
            (["run", "-q"], "unknown option -q; did you mean --quiet?"),
            (["run", "--quite"], "unknown option --quite; did you mean --quiet?"),
            (["run", "--fram", "3"], "did you mean --frames?"),
            (["run", "--no-vsnyc"], "did you mean --no-vsync?"),
            (["run", "-x"], "unknown option -x"),
            (["run", "--frobnicate"], "unknown option --frobnicate"),
            (["movie", "record", "x.rlm", "--verifylog"], "did you mean --verify-log?"),
            (["movie", "convert", "a.rlm", "b.bk2", "--overwirte"], "did you mean --overwrite?"),
            (["movie", "recover", "a.rlm.journal", "-f"], "unknown option -f"),
            (["movie", "info", "a.rlm", "--all"], "unknown option --all"),
            (["movie", "replay", "a.rlm"], "unknown subcommand 'replay'; did you mean play?"),
            (["cores", "--bogus"], "unknown option --bogus"),
            (["info", "-c", "x.nes"], "unknown option -c; did you mean --core?"),
            (["batch", "--job", "2", "jobs.jsonl"], "did you mean --jobs?"),
            (["docs", "--chek"], "did you mean --check?"),
            (["--versoin"], "unknown option --versoin; did you mean --version?"),
            (["rnu"], "unknown command 'rnu'; did you mean run?"),
            (["help", "nosuch"], "help: no command 'nosuch'"),
            (["completions", "fish"], "expected bash or zsh"),
            (["run", "--frames"], "--frames needs a value"),
            (["run", "--headless=yes"], "--headless takes no value"),
        ]
        for (arguments, message) in cases {
            let result = try Fixtures.cli(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): '\(message)' not in: \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
        XCTAssertEqual(try Fixtures.cli([]).status, 2)
    }

    /// `--` ends the options: what follows is a ROM even when it starts with a dash.
    func testDoubleDashEndsTheOptions() throws {
        let result = try Fixtures.cli(["run", "--headless", "--frames", "1", "--", "-missing.nes"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("-missing.nes"), result.stderr)
    }

    /// A window run with no display falls back to headless: said without --quiet, silent with it.
    func testQuietSilencesNotices() throws {
        let loud = try Fixtures.cli(["run", "--frames", "2", "--no-audio"])
        XCTAssertEqual(loud.status, 0, loud.stderr)
        XCTAssertTrue(loud.stderr.contains("no display"), loud.stderr)
        let quiet = try Fixtures.cli(["run", "--frames", "2", "--no-audio", "--quiet"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("retrolua:"), quiet.stderr)
        XCTAssertEqual(quiet.stdout, "")
        let failing = try Fixtures.cli(["run", "/nonexistent.nes", "--quiet"])
        XCTAssertEqual(failing.status, 1)
        XCTAssertTrue(failing.stderr.contains("/nonexistent.nes"), "errors still reach stderr")
    }

    /// Completions and the man page name every option `--help` does: they come from one table.
    func testCompletionsAndManPageComeFromTheHelpTables() throws {
        let bash = try Fixtures.cli(["completions", "bash"]), zsh = try Fixtures.cli(["completions", "zsh"])
        let man = try Fixtures.cli(["man"])
        XCTAssertEqual(bash.status, 0)
        XCTAssertTrue(zsh.stdout.hasPrefix("#compdef retrolua\n"))
        XCTAssertTrue(man.stdout.hasPrefix(".TH RETROLUA 1"))
        let folder = Fixtures.temporaryFolder()
        try bash.stdout.write(toFile: folder + "/retrolua.bash", atomically: true, encoding: .utf8)
        // bash completes as a user would see it: options, subcommands, an option's values.
        let probe = """
            source \(folder)/retrolua.bash
            ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _retrolua; echo "${COMPREPLY[*]}"; }
            ask retrolua run --scr
            ask retrolua movie re
            ask retrolua movie record x.rlm --verify
            ask retrolua run --sync ''
            ask retrolua completions ''
            """
        let bashRun = Process()
        bashRun.executableURL = URL(fileURLWithPath: "/bin/bash")
        bashRun.arguments = ["-c", probe]
        let out = Pipe()
        bashRun.standardOutput = out
        try bashRun.run()
        let answers = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bashRun.waitUntilExit()
        XCTAssertEqual(
            answers.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            [
                "--screenshot --script --script-memory --script-budget", "record recover", "--verify-log",
                "audio vsync clock", "bash zsh", "",
            ])
        for words in [["run"], ["movie", "record"], ["movie", "convert"], ["batch"], ["info"]] {
            let help = try Fixtures.cli(words + ["--help"]).stdout
            let options = Set(
                help.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("--") && $0.count > 2 }
                    .map { String($0.prefix { $0.isLetter || $0 == "-" }) })
            XCTAssertGreaterThanOrEqual(options.count, words == ["run"] ? 40 : 1, "\(words)")
            for option in options where option.count > 2 {
                XCTAssertTrue(bash.stdout.contains(option), "bash completion lacks \(option)")
                XCTAssertTrue(zsh.stdout.contains(option + "["), "zsh completion lacks \(option)")
                XCTAssertTrue(
                    man.stdout.contains(option.replacingOccurrences(of: "-", with: "\\-")), "man page lacks \(option)")
            }
        }
    }

    /// Recorded movies name the version that wrote them; .bk2 exports carry it in emuVersion.
    func testMoviesNameTheVersion() throws {
        let home = Fixtures.temporaryFolder()
        let movie = home + "/v.rlm", exported = home + "/v.bk2"
        let recorded = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "3", "--record-movie", movie, "--quiet"], home: home)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let text = try String(contentsOfFile: movie, encoding: .utf8)
        XCTAssertTrue(text.contains("\nemulator Retrolua \(RetroluaVersion.number)\n"), text)
        XCTAssertEqual(try Fixtures.cli(["movie", "convert", movie, exported], home: home).status, 0)
        let header = try XCTUnwrap(try ZipArchive(path: exported).read("Header.txt", limit: 1 << 20))
        XCTAssertTrue(
            String(decoding: header, as: UTF8.self).contains("emuVersion Retrolua \(RetroluaVersion.number)"))
        XCTAssertEqual(try MovieText.read(path: movie).length, 3, "the header field reads back")
    }
}
