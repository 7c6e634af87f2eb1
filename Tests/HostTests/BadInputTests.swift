@testable import Emulation
import Foundation
import Support
import XCTest

/// Malformed and hostile input: crafted savestates, movies and cheat files, extreme numbers through
/// every memory, cheat and watch function, odd output paths. Each case must end in a clear error
/// naming the input, in a child process that does not crash, with files left intact.
final class BadInputTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func write(_ bytes: [UInt8], _ path: String) -> String {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    private func write(_ text: String, _ path: String) -> String { write(Array(text.utf8), path) }

    // MARK: Savestates

    func testCraftedSavestatesAreRefusedNamingTheFile() throws {
        let folder = Fixtures.temporaryFolder()
        let huge = UInt64(1) << 63
        var files: [(String, [UInt8], String)] = [
            ("frame 2^63", BadInput.state(frame: huge), "out of range"),
            ("frame max", BadInput.state(frame: .max), "out of range"),
            ("lag 2^63", BadInput.state(lag: huge), "out of range"),
            ("frame 2^48+1", BadInput.state(frame: (1 << 48) + 1), "out of range"),
            ("version 0", BadInput.state(version: 0), "version"),
            ("version 3", BadInput.state(version: 3), "version"),
            ("version 65535", BadInput.state(version: .max), "version"),
            ("state size u32 max", BadInput.state(stateSize: .max), "truncated"),
            ("entry count u32 max", BadInput.state(entryCount: .max), "truncated"),
            ("value length huge", BadInput.state(entries: [("k", [1])]).dropLast(6) + BadInput.le(UInt32.max), ""),
            ("movie size u32 max", BadInput.state(movieSize: .max), "truncated"),
            ("trailing bytes", BadInput.state() + [0], "unexpected bytes"),
            ("empty file", [], ""),
            ("magic only", Array("RLST".utf8), "version"),
            ("garbage core state", BadInput.state(coreState: [UInt8](repeating: 0xAB, count: 64)), ""),
            ("binary junk", (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }, ""),
        ]
        // Truncated at every byte of a state with script data and a movie block.
        let full = BadInput.state(
            entries: [("key", [9, 9])], movie: BadInput.movieBlock(frame: 1, records: [0, 0, 0]))
        for length in 5..<full.count { files.append(("truncated at \(length)", Array(full.prefix(length)), "")) }
        let cases = files.map { name, bytes, expect in
            let path = write(bytes, folder + "/\(name.replacingOccurrences(of: " ", with: "_")).state")
            return BadCase(name, "savestate.load(\"\(path)\")", expect: [path] + (expect.isEmpty ? [] : [expect]))
        }
        XCTAssertGreaterThanOrEqual(try BadInput.check(cases, in: folder), 50)
        for (name, bytes, _) in files {
            XCTAssertEqual(
                FileManager.default.contents(
                    atPath: folder + "/\(name.replacingOccurrences(of: " ", with: "_")).state"),
                Data(bytes), "\(name) left intact")
        }
    }

    func testHugeCountersThroughFromStateAndAMoviesStartState() throws {
        let folder = Fixtures.temporaryFolder()
        let bad = write(BadInput.state(frame: .max), folder + "/huge.state")
        let fromState = try BadInput.run(
            ["run", Fixtures.nesROM, "--headless", "--record-movie", "out.rlm", "--from-state", bad], in: folder)
        XCTAssertEqual(fromState.status, 1, fromState.stderr)
        XCTAssertTrue(fromState.stderr.contains("huge.state"), fromState.stderr)
        XCTAssertTrue(fromState.stderr.contains("out of range"), fromState.stderr)

        var movie = try MovieText.decode(Array(BadInput.rlm().utf8), name: "base")
        movie.startState = BadInput.state(frame: .max)
        let moviePath = write(MovieText.encode(movie), folder + "/start.rlm")
        try BadInput.check(
            [
                BadCase(
                    "movie start state 2^64-1", "movie.play(\"\(moviePath)\")", expect: [moviePath, "out of range"]),
                BadCase(
                    "state bytes frame 2^64-1", "savestate.from_bytes(\(luaString(BadInput.state(frame: .max))))",
                    expect: ["out of range"]),
            ], in: folder)
    }

    // MARK: Movies

    func testMalformedMoviesAreRefusedNamingTheFile() throws {
        let folder = Fixtures.temporaryFolder()
        let good = BadInput.rlm()
        func replacing(_ key: String, _ value: String) -> String {
            good.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix(key + " ") ? Substring(key + " " + value) : $0
            }.joined(separator: "\n")
        }
        let zeroState = MovieText.compress([UInt8](repeating: 0, count: 16)).base64EncodedString()
        var movies: [(String, String, [UInt8], String)] = [
            ("rlm frames huge", "rlm", Array(replacing("frames", "99999999999999999999999").utf8), "'frames'"),
            ("rlm frames max", "rlm", Array(replacing("frames", "9223372036854775807").utf8), "frames"),
            ("rlm frames negative", "rlm", Array(replacing("frames", "-1").utf8), "'frames'"),
            ("rlm rerecords huge", "rlm", Array(replacing("rerecords", "1e99").utf8), "'rerecords'"),
            ("rlm ports 0", "rlm", Array(replacing("ports", "0").utf8), "'ports'"),
            ("rlm ports huge", "rlm", Array(replacing("ports", "9223372036854775807").utf8), "'ports'"),
            ("rlm analog junk", "rlm", Array(replacing("analog", "maybe").utf8), "'analog'"),
            ("rlm unknown button", "rlm", Array(replacing("buttons", "B Z").utf8), "unknown button"),
            ("rlm truncated", "rlm", Array(good.utf8.dropLast(9)), "truncated"),
            ("rlm no input", "rlm", Array("retrolua-movie 1\nports 1\n".utf8), "truncated"),
            ("rlm binary junk", "rlm", (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 131) }, "not a Retrolua movie"),
            ("rlm empty", "rlm", [], "not a Retrolua movie"),
            (
                "rlm bad base64 state", "rlm",
                Array(
                    replacing("start", "state").replacingOccurrences(of: "[end]", with: "[start-state]\n!!!\n[end]")
                        .utf8),
                "start state"
            ),
            (
                "rlm zstd not a state", "rlm",
                Array(
                    replacing("start", "state").replacingOccurrences(
                        of: "[end]", with: "[start-state]\n\(zeroState)\n[end]"
                    ).utf8), "start state"
            ),
            ("rlm bad analog", "rlm", Array(good.replacingOccurrences(of: "..|", with: "..|:99999,0,0,0").utf8), ""),
            ("fm2 wrong version", "fm2", Array("version 2\n|0|........|||\n".utf8), "version 3"),
            (
                "fm2 rerecords huge", "fm2", Array("version 3\nrerecordCount 99999999999999999999\n".utf8),
                "rerecordCount"
            ),
            ("fm2 command huge", "fm2", Array("version 3\n|99999999999999|........|||\n".utf8), "command"),
            ("fm2 short field", "fm2", Array("version 3\n|0|....|||\n".utf8), ""),
            ("fm2 port huge", "fm2", Array("version 3\nport0 9223372036854775807\n|0|........|||\n".utf8), "port0"),
            ("fm2 binary junk", "fm2", (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 3) }, ""),
            ("fm2 empty", "fm2", [], ""),
            ("bk2 not a zip", "bk2", Array("PK\u{3}\u{4}junk".utf8), ""),
            ("bk2 empty", "bk2", [], ""),
            ("bk2 binary junk", "bk2", (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 13) }, ""),
        ]
        let bk2Members: [(String, [(name: String, bytes: [UInt8])])] = [
            ("bk2 no input log", [("Header.txt", Array("MovieVersion BizHawk v2.0\n".utf8))]),
            ("bk2 no header", [("Input Log.txt", Array("[Input]\nLogKey:#P1 A|\n|.|\n[/Input]\n".utf8))]),
            (
                "bk2 rerecords huge",
                [
                    ("Header.txt", Array("rerecordCount 99999999999999999999999\n".utf8)),
                    ("Input Log.txt", Array("[Input]\nLogKey:#P1 A|\n|.|\n[/Input]\n".utf8)),
                ]
            ),
            (
                "bk2 no log key",
                [("Header.txt", []), ("Input Log.txt", Array("[Input]\n|.|\n[/Input]\n".utf8))]
            ),
        ]
        for (name, members) in bk2Members { movies.append((name, "bk2", try ZipArchive.write(members), "")) }
        let cases = movies.map { name, ext, bytes, expect in
            let path = write(bytes, folder + "/\(name.replacingOccurrences(of: " ", with: "_")).\(ext)")
            return BadCase(name, "movie.play(\"\(path)\")", expect: [path] + (expect.isEmpty ? [] : [expect]))
        }
        XCTAssertGreaterThanOrEqual(try BadInput.check(cases, in: folder), 28)
    }

    // MARK: Cheat files

    func testMalformedCheatFilesAreRefusedAndBoundedOnesRun() throws {
        let folder = Fixtures.temporaryFolder()
        func ram(_ extra: String) -> String {
            "cheats = 1\ncheat0_desc = \"x\"\ncheat0_enable = true\ncheat0_handler = 1\ncheat0_address = 16\n"
                + "cheat0_value = 1\n" + extra
        }
        let files: [(String, String, String)] = [
            (
                "address step max",
                ram("cheat0_repeat_count = 2\ncheat0_repeat_add_to_address = 9223372036854775807\n"),
                "repeat address step"
            ),
            ("address step negative", ram("cheat0_repeat_count = 2\ncheat0_repeat_add_to_address = -5\n"), "step"),
            ("repeat count max", ram("cheat0_repeat_count = 9223372036854775807\n"), "repeat count"),
            ("repeat count million", ram("cheat0_repeat_count = 1000000\n"), "repeat count"),
            ("address max", ram("").replacingOccurrences(of: "= 16", with: "= 9223372036854775807"), "address"),
            ("address negative", ram("").replacingOccurrences(of: "= 16", with: "= -1"), "address"),
            ("address overflows", ram("").replacingOccurrences(of: "= 16", with: "= 0xFFFFFFFFFFFFFFFFFF"), "address"),
            ("size 9", ram("cheat0_memory_search_size = 9\n"), "memory_search_size"),
            ("type 99", ram("cheat0_cheat_type = 99\n"), "cheat_type"),
            ("count huge", "cheats = 99999999999999999999\n", "'cheats'"),
            ("count negative", "cheats = -3\n", "'cheats'"),
            ("code 300 bytes", "cheats = 1\ncheat0_code = \(String(repeating: "A", count: 300))\n", "at most 255"),
            ("code missing", "cheats = 1\ncheat0_desc = x\n", "code is missing"),
            ("no count", "cheat0_code = x\n", "not a cheat file"),
            ("no equals", "cheats = 1\nwhat\n", "expected 'key = value'"),
        ]
        var cases = files.map { name, text, expect in
            let path = write(text, folder + "/\(name.replacingOccurrences(of: " ", with: "_")).cht")
            return BadCase(name, "cheats.load(\"\(path)\")", expect: [path, expect])
        }
        let junk = write((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 71) }, folder + "/junk.cht")
        cases.append(BadCase("binary junk", "cheats.load(\"\(junk)\")", expect: [junk]))
        let pipe = BadInput.fifo(folder + "/pipe.cht")
        cases.append(BadCase("FIFO cheat file", "cheats.load(\"\(pipe)\")", expect: [pipe, "not a regular file"]))
        cases.append(BadCase("folder cheat file", "cheats.load(\"\(folder)\")", expect: [folder, "folder"]))
        // The largest repeats allowed load and run every frame without stalling (sub-byte steps too).
        let bounded = write(
            ram(
                "cheat0_memory_search_size = 0\ncheat0_repeat_count = 65536\ncheat0_repeat_add_to_address = 16777216\n"),
            folder + "/bounded.cht")
        cases.append(
            BadCase(
                "bounded repeats load",
                "(function() local n = cheats.load(\"\(bounded)\"); return nil, 'loaded ' .. n end)()",
                expect: ["loaded 1"]))
        XCTAssertGreaterThanOrEqual(try BadInput.check(cases, in: folder, frames: 3), 19)
        XCTAssertEqual(BadInput.fileType(pipe), S_IFIFO)
    }

    private func luaString(_ bytes: [UInt8]) -> String {
        "\"" + bytes.map { "\\\($0)" }.joined() + "\""
    }
}
