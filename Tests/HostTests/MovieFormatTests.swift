@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Support

/// Importing and exporting FCEUX (.fm2) and BizHawk (.bk2) movies, from fixtures written by hand
/// after the documented formats, and the Retrolua text format's decode errors.
final class MovieFormatTests: XCTestCase {
    // MARK: Fixtures

    static let fm2Header = """
        version 3
        emuVersion 22020
        rerecordCount 42
        palFlag 0
        romFilename Demo Game
        romChecksum base64:AAECAwQFBgcICQoLDA0ODw==
        guid 452DE2C3-EF43-2FA9-77AC-0677FC51543B
        fourscore 0
        microphone 0
        port0 1
        port1 1
        port2 0
        FDS 0
        NewPPU 0
        comment author Tester
        comment first try
        subtitle 10 Hello there
        """
    static let fm2Frames = [
        "|0|........|........||",
        "|0|R......A|........||",
        "|1|........|........||",
        "|0|...UT...|.L....B.||",
        "|2|RLDUTSBA|RLDUTSBA||",
    ]
    static var fm2: String { fm2Header + "\n" + fm2Frames.joined(separator: "\n") + "\n" }

    static let nesLogKey =
        "#Reset|Power|#P1 Up|P1 Down|P1 Left|P1 Right|P1 Start|P1 Select|P1 B|P1 A|"
        + "#P2 Up|P2 Down|P2 Left|P2 Right|P2 Start|P2 Select|P2 B|P2 A|"
    static let bk2Header = """
        MovieVersion BizHawk v2.0.0
        Author Tester
        emuVersion Version 2.9.1
        OriginalEmuVersion Version 2.8
        Platform NES
        GameName Demo Game
        SHA1 0123456789ABCDEF0123456789ABCDEF01234567
        Core NesHawk
        rerecordCount 17
        BoardName NROM
        StartsFromSavestate False
        StartsFromSaveRam False


        """
    static let bk2Log = """
        [Input]
        LogKey:\(nesLogKey)
        |..|........|........|
        |..|...R...A|........|
        |r.|........|........|
        |..|U...S...|..L...B.|
        |.P|UDLRSsBA|UDLRSsBA|
        [/Input]

        """
    static let gameBoyLog = """
        [Input]
        LogKey:#Up|Down|Left|Right|Start|Select|B|A|Power|
        |.........|
        |U.....B..|
        |........P|
        |....Ss.A.|
        [/Input]

        """

    func bk2(header: String = bk2Header, log: String? = bk2Log, more: [(String, String)] = []) throws -> [UInt8] {
        var members =
            [(name: "Header.txt", bytes: Array(header.utf8))] + more.map { (name: $0.0, bytes: Array($0.1.utf8)) }
        if let log { members.append((name: "Input Log.txt", bytes: Array(log.utf8))) }
        return try ZipArchive.write(members)
    }

    func member(_ zip: [UInt8], _ name: String) throws -> String {
        String(decoding: try ZipArchive(bytes: zip, name: "export.bk2").require(name, limit: 1 << 20), as: UTF8.self)
    }

    func inputLines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("|") }.map(String.init)
    }

    /// Non-empty "key value" lines, sorted: the same fields, whatever their order.
    func headerFields(_ text: String, fm2: Bool = false) -> [String] {
        text.split(whereSeparator: \.isNewline).filter { !$0.isEmpty && !$0.hasPrefix("|") }.map(String.init).sorted()
    }

    func assertError(_ parts: [String], file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected an error mentioning \(parts)", file: file, line: line)
        } catch let error as any Error & CustomStringConvertible {  // MovieError, or the zip reader's own
            for part in parts {
                XCTAssertTrue(
                    error.description.contains(part), "'\(error.description)' does not mention '\(part)'", file: file,
                    line: line)
            }
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
    }

    func pressed(_ movie: Movie, _ frame: Int, port: Int = 0) -> Set<RetroPadButton> {
        let input = movie.log.input(at: frame)
        return Set(RetroPadButton.allCases.filter { input.isPressed($0, port: port) })
    }

    // MARK: FM2

    /// The input both sample movies (FM2 and BK2) record: frame 1 right+A, a reset at 2, frame 3 on both pads,
    /// a power cycle at 4 with every button on pad 2.
    func assertSampleInput(_ movie: Movie, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(pressed(movie, 1), [.right, .a], file: file, line: line)
        XCTAssertEqual(movie.log.flags(at: 2), .reset, file: file, line: line)
        XCTAssertEqual(pressed(movie, 3), [.up, .start], file: file, line: line)
        XCTAssertEqual(pressed(movie, 3, port: 1), [.left, .b], file: file, line: line)
        XCTAssertEqual(movie.log.flags(at: 4), .power, file: file, line: line)
        XCTAssertEqual(pressed(movie, 4, port: 1), Set(FM2.nesButtons), file: file, line: line)
    }

    func testFM2Import() throws {
        let movie = try FM2.decode(Array(Self.fm2.utf8), name: "demo.fm2")
        XCTAssertEqual(movie.length, 5)
        XCTAssertEqual(movie.log.ports, 2)
        XCTAssertEqual(movie.rerecords, 42)
        XCTAssertEqual(movie.contentName, "Demo Game")
        XCTAssertEqual(movie.guid, "452DE2C3-EF43-2FA9-77AC-0677FC51543B")
        XCTAssertEqual(movie.author, "Tester")
        XCTAssertEqual(movie.comments, ["first try"])
        XCTAssertEqual(movie.system, "Nintendo Entertainment System")
        XCTAssertEqual(movie.buttons, [.up, .down, .left, .right, .start, .select, .b, .a])
        XCTAssertEqual(
            movie.extras.map(\.key),
            [
                "fm2.emuVersion", "fm2.palFlag", "fm2.romChecksum", "fm2.microphone",
                "fm2.FDS", "fm2.NewPPU", "fm2.subtitle",
            ])
        XCTAssertEqual(movie.extra("fm2.subtitle"), "10 Hello there")
        assertSampleInput(movie)
    }

    func testFM2RoundTripKeepsInputAndHeader() throws {
        let bytes = Array(Self.fm2.utf8)
        let exported = try FM2.encode(try FM2.decode(bytes, name: "demo.fm2"))
        XCTAssertEqual(inputLines(exported), Self.fm2Frames)
        XCTAssertEqual(headerFields(String(decoding: exported, as: UTF8.self)), headerFields(Self.fm2Header))
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).hasPrefix("version 3\n"))
    }

    func testFM2ThroughRetroluaTextKeepsInputByteExact() throws {
        let imported = try FM2.decode(Array(Self.fm2.utf8), name: "demo.fm2")
        let text = MovieText.encode(imported)
        let back = try MovieText.decode(text, name: "demo.rlm")
        XCTAssertEqual(back.log, imported.log)
        let exported = try FM2.encode(back)
        XCTAssertEqual(inputLines(exported), Self.fm2Frames)
        XCTAssertEqual(headerFields(String(decoding: exported, as: UTF8.self)), headerFields(Self.fm2Header))
    }

    func testFM2FourScore() throws {
        let frames = ["|0|R.......|.L......|..D.....|...U....||", "|0|........|........|........|.......A||"]
        let text = "version 3\nemuVersion 22020\nfourscore 1\nport2 0\n" + frames.joined(separator: "\n") + "\n"
        let movie = try FM2.decode(Array(text.utf8), name: "four.fm2")
        XCTAssertEqual(movie.log.ports, 4)
        XCTAssertEqual(pressed(movie, 0, port: 2), [.down])
        XCTAssertEqual(pressed(movie, 1, port: 3), [.a])
        XCTAssertEqual(inputLines(try FM2.encode(movie)), frames)
    }

    func testFM2ExportDropsLagAndRefusesWhatTheNESLacks() throws {
        var movie = Movie(ports: 2)
        movie.system = "Nintendo Entertainment System"
        var input = InputState()
        input.set(.a, true)
        movie.log.set(0, input: input, flags: [.lag, .reset])
        XCTAssertEqual(inputLines(try FM2.encode(movie)), ["|1|.......A|........||"])

        input.set(.x, true)
        movie.log.set(1, input: input, flags: [])
        assertError(["frame 2", "'x'", "port 1"]) { _ = try FM2.encode(movie) }
        var gameBoy = Movie(ports: 1)
        gameBoy.system = "Game Boy"
        assertError(["not the NES"]) { _ = try FM2.encode(gameBoy) }
        var eight = Movie(ports: 8)
        eight.coreName = "nestopia"
        assertError(["8 ports"]) { _ = try FM2.encode(eight) }
    }

    func testExportsRefuseAStartStateTheyCannotCarry() throws {
        // A movie recorded from a state (an environment's episode): .bk2 and .fm2 would silently start
        // it from power-on instead; an anchored power-on movie still exports.
        var movie = Movie(ports: 2)
        movie.system = "Nintendo Entertainment System"
        movie.log.set(0, input: InputState(), flags: [])
        movie.startState = [1, 2, 3]
        assertError(["cannot export to .bk2", "starts from a savestate"]) { _ = try BK2.encode(movie) }
        assertError(["cannot export to .fm2", "starts from a savestate"]) { _ = try FM2.encode(movie) }
        movie.anchorFrame = 2
        XCTAssertNoThrow(try BK2.encode(movie))
        XCTAssertNoThrow(try FM2.encode(movie))
    }

    func testFM2BadInput() {
        func decode(_ text: String) throws { _ = try FM2.decode(Array(text.utf8), name: "bad.fm2") }
        let header = "version 3\nemuVersion 22020\nport0 1\nport1 1\nport2 0\n"
        assertError(["bad.fm2:1:", "version 3"]) { try decode("version 2\n|0|........|........||\n") }
        assertError(["bad.fm2:1:", "version 3"]) { try decode("\u{7F}ELF garbage\n") }
        assertError(["bad.fm2", "no 'version 3'"]) { try decode("") }
        assertError(["bad.fm2:2:", "binary"]) { try decode("version 3\nbinary 1\n|\u{0}\u{1}") }
        assertError(["bad.fm2:3:", "Zapper"]) { try decode("version 3\nport0 1\nport1 2\n|0|........|0 0 0 0 0||\n") }
        assertError(["bad.fm2:7:", "8 characters"]) {
            try decode(header + "|0|........|........||\n|0|....|........||\n")
        }
        assertError(["bad.fm2:6:", "2 controller fields"]) { try decode(header + "|0|........|........\n") }
        assertError(["bad.fm2:6:", "FDS disk insert"]) { try decode(header + "|4|........|........||\n") }
        assertError(["bad.fm2:6:", "unknown command bits 32"]) { try decode(header + "|33|........|........||\n") }
        assertError(["bad.fm2:6:", "should be a number"]) { try decode(header + "|x|........|........||\n") }
        assertError(["bad.fm2:2:", "FCEUX savestate"]) {
            try decode("version 3\nsavestate base64:AAAA\n|0|........|........||\n")
        }
        assertError(["bad.fm2", "length 3", "has 1 frames"]) {
            try decode(header + "length 3\n|0|........|........||\n")
        }
    }

    // MARK: BK2

    func testBK2Import() throws {
        let movie = try BK2.decode(zip: try bk2(more: [("Comments.txt", "Nice run\nSecond line\n")]), name: "demo.bk2")
        XCTAssertEqual(movie.length, 5)
        XCTAssertEqual(movie.log.ports, 2)
        XCTAssertEqual(movie.rerecords, 17)
        XCTAssertEqual(movie.author, "Tester")
        XCTAssertEqual(movie.contentName, "Demo Game")
        XCTAssertEqual(movie.system, "Nintendo Entertainment System")
        XCTAssertEqual(movie.comments, ["Nice run", "Second line"])
        XCTAssertEqual(movie.buttons, [.up, .down, .left, .right, .start, .select, .b, .a])
        XCTAssertEqual(movie.extra("bk2.Core"), "NesHawk")
        XCTAssertEqual(movie.extra("bk2.logkey"), Self.nesLogKey)
        assertSampleInput(movie)
    }

    func testBK2RoundTripKeepsInputLogAndHeader() throws {
        let files = [
            ("Comments.txt", "Nice run\r\n"), ("Subtitles.txt", "subtitle 0 0 0 60 FFFFFFFF Hello\\world\n"),
            ("SyncSettings.json", "{\"o\":{\"$type\":\"x\"}}\n"),
        ]
        let original = try bk2(more: files)
        let movie = try BK2.decode(zip: original, name: "demo.bk2")
        let exported = try BK2.encode(movie)
        XCTAssertEqual(try member(exported, "Input Log.txt"), Self.bk2Log)
        XCTAssertEqual(headerFields(try member(exported, "Header.txt")), headerFields(Self.bk2Header))
        for (name, text) in files { XCTAssertEqual(try member(exported, name), text, name) }

        // Through Retrolua's own text format too: the kept extras are single lines that survive it.
        let text = try MovieText.decode(MovieText.encode(movie), name: "demo.rlm")
        let again = try BK2.encode(text)
        XCTAssertEqual(try member(again, "Input Log.txt"), Self.bk2Log)
        for (name, text) in files { XCTAssertEqual(try member(again, name), text, name) }
    }

    func testBK2GameBoyAndLineEndings() throws {
        let crlf = Self.gameBoyLog.replacingOccurrences(of: "\n", with: "\r\n")
        let header = "Platform GBC\r\nCore Gambatte\r\nrerecordCount 3\r\n"
        let movie = try BK2.decode(zip: try bk2(header: header, log: crlf), name: "gb.bk2")
        XCTAssertEqual(movie.system, "Game Boy Color")
        XCTAssertEqual(movie.log.ports, 1)
        XCTAssertEqual(pressed(movie, 1), [.up, .b])
        XCTAssertEqual(movie.log.flags(at: 2), .power)
        XCTAssertEqual(pressed(movie, 3), [.start, .select, .a])
        XCTAssertEqual(try member(try BK2.encode(movie), "Input Log.txt"), crlf)
    }

    func testBK2ExportChoosesALogKeyBySystem() throws {
        var input = InputState()
        input.set(.a, true)
        input.set(.up, true)
        func movie(_ system: String, ports: Int) -> Movie {
            var movie = Movie(ports: ports)
            movie.system = system
            movie.log.set(0, input: input, flags: [.lag])
            movie.log.set(1, input: InputState(), flags: [.power])
            return movie
        }
        for (system, ports, key) in [
            ("Nintendo Entertainment System", 2, Self.nesLogKey),
            ("Game Boy/Game Boy Color", 1, BK2.gameBoyLogKey),
            (
                "Super Nintendo Entertainment System", 1,
                "#Reset|Power|#P1 Up|P1 Down|P1 Left|P1 Right|"
                    + "P1 Start|P1 Select|P1 Y|P1 B|P1 X|P1 A|P1 L|P1 R|P1 L2|P1 R2|P1 L3|P1 R3|"
            ),
        ] {
            let original = movie(system, ports: ports)
            let exported = try BK2.encode(original)
            XCTAssertTrue(try member(exported, "Input Log.txt").contains("LogKey:\(key)\n"), system)
            let back = try BK2.decode(zip: exported, name: "export.bk2")
            XCTAssertEqual(back.system, system == "Game Boy/Game Boy Color" ? "Game Boy" : system)
            XCTAssertEqual(pressed(back, 0), [.up, .a], system)
            XCTAssertEqual(back.log.flags(at: 0), [], "the lag flag is not exported")
            XCTAssertEqual(back.log.flags(at: 1), .power, system)
        }
        var reset = movie("Game Boy", ports: 1)
        reset.log.setFlags(1, .reset)
        assertError(["frame 2", "no Reset column"]) { _ = try BK2.encode(reset) }
        var secondPlayer = movie("Game Boy", ports: 2)
        var player2 = InputState()
        player2.set(.up, true, port: 1)
        secondPlayer.log.set(1, input: player2, flags: [])
        assertError(["frame 2", "'up'", "port 2"]) { _ = try BK2.encode(secondPlayer) }
    }

    func testBK2BadInput() throws {
        func decode(_ zip: [UInt8]) throws { _ = try BK2.decode(zip: zip, name: "bad.bk2") }
        assertError(["bad.bk2", "not a zip archive"]) { try decode(Array("LogKey:#P1 Up|\n|U|\n".utf8)) }
        assertError(["bad.bk2", "not a zip archive"]) { try decode([]) }
        assertError(["bad.bk2", "missing member 'Input Log.txt'"]) { try decode(try self.bk2(log: nil)) }
        assertError(["bad.bk2", "missing member 'Header.txt'"]) {
            try decode(try ZipArchive.write([("Input Log.txt", [])]))
        }
        let unknown = Self.bk2Log.replacingOccurrences(of: "P2 B|", with: "P2 Turbo|")
        assertError(["bad.bk2", "Input Log.txt:2:", "unknown button 'P2 Turbo'"]) {
            try decode(try self.bk2(log: unknown))
        }
        let zapper = "[Input]\nLogKey:#P1 Zapper X|P1 Zapper Y|P1 Fire|\n|  128,  120,.|\n[/Input]\n"
        assertError(["bad.bk2", "analog input 'P1 Zapper X' is not supported"]) {
            try decode(try self.bk2(log: zapper))
        }
        let short = Self.bk2Log.replacingOccurrences(of: "|r.|........|", with: "|r.|.....|")
        assertError(["bad.bk2", "Input Log.txt:5:", "expected a line like"]) { try decode(try self.bk2(log: short)) }
        let noKey = "[Input]\n|..|........|\n[/Input]\n"
        assertError(["bad.bk2", "before the LogKey"]) { try decode(try self.bk2(log: noKey)) }
        let savestate = Self.bk2Header.replacingOccurrences(
            of: "StartsFromSavestate False", with: "StartsFromSavestate True")
        assertError(["bad.bk2", "BizHawk savestate", "cannot be loaded"]) {
            try decode(try self.bk2(header: savestate))
        }
        let saveRAM = Self.bk2Header.replacingOccurrences(of: "StartsFromSaveRam False", with: "StartsFromSaveRam True")
        assertError(["bad.bk2", "save RAM"]) { try decode(try self.bk2(header: saveRAM)) }
        assertError(["bad.bk2", "rerecordCount"]) { try decode(try self.bk2(header: "rerecordCount many\n")) }
        let crowd = (0...ZipArchive.maxMembers).map { (name: "f\($0).txt", bytes: [UInt8]()) }
        assertError(["bad.bk2", "1001 members"]) { try decode(try ZipArchive.write(crowd)) }
        assertError(["missing.bk2", "no such movie"]) { _ = try BK2.read(path: NSTemporaryDirectory() + "missing.bk2") }
    }

    /// 80 MB of zeros deflate to ~80 KB: the declared size is refused before inflating anything, and
    /// a header lying about the size is caught once the limit is passed, not after inflating it all.
    func testBK2ZipBombsAreRefused() throws {
        let zeros = [UInt8](repeating: 0, count: 80 << 20)
        let bomb = try ZipArchive.write(
            [("Header.txt", Array("Platform NES\n".utf8)), ("Input Log.txt", zeros)], level: 1)
        XCTAssertLessThan(bomb.count, 1 << 20)
        let start = Date()
        assertError(["bomb.bk2", "member 'Input Log.txt' is larger than 64 MB"]) {
            _ = try BK2.decode(zip: bomb, name: "bomb.bk2")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.1, "refused from the declared size")

        // Rewrite the member's declared size (local header offset 22, central directory offset 24) to 100 bytes.
        var liar = try ZipArchive.write([
            ("Header.txt", Array("Platform NES\n".utf8)), ("Input Log.txt", Array(zeros[..<(2 << 20)])),
        ])
        var patched = 0
        for offset in 0..<(liar.count - 46) {
            let signature = Array(liar[offset..<offset + 4])
            let nameOffset =
                signature == [0x50, 0x4B, 0x03, 0x04] ? 30 : signature == [0x50, 0x4B, 0x01, 0x02] ? 46 : 0
            guard nameOffset > 0, liar.count > offset + nameOffset + 13,
                Array(liar[offset + nameOffset..<offset + nameOffset + 13]) == Array("Input Log.txt".utf8)
            else { continue }
            let field = offset + (nameOffset == 30 ? 22 : 24)
            liar.replaceSubrange(field..<field + 4, with: [100, 0, 0, 0])
            patched += 1
        }
        XCTAssertEqual(patched, 2)
        let archive = try ZipArchive(bytes: liar, name: "liar.bk2")
        assertError(["liar.bk2", "member 'Input Log.txt' is larger than 1 MB"]) {
            _ = try archive.read("Input Log.txt", limit: 1 << 20)
        }
        XCTAssertEqual(try archive.read("Header.txt", limit: 100), Array("Platform NES\n".utf8))
        assertError(["liar.bk2", "larger than 5 bytes"]) { _ = try archive.read("Header.txt", limit: 5) }
    }

    // MARK: Retrolua text format

    func sampleMovie() -> Movie {
        var movie = Movie(ports: 2)
        movie.coreName = "nestopia"
        movie.system = "Nintendo Entertainment System"
        var generator = SystemRandomNumberGenerator()
        for frame in 0..<200 {
            var input = InputState()
            input.buttons[0] = UInt16.random(in: 0...UInt16.max, using: &generator)
            input.buttons[1] = UInt16.random(in: 0...UInt16.max, using: &generator)
            let flags: MovieFrameFlags =
                frame == 50 ? .reset : frame == 120 ? [.power, .lag] : frame % 7 == 0 ? .lag : []
            movie.log.set(frame, input: input, flags: flags)
        }
        return movie
    }

    func testRetroluaTextRoundTrip() throws {
        let movie = sampleMovie()
        let back = try MovieText.decode(MovieText.encode(movie), name: "sample.rlm")
        XCTAssertEqual(back.log, movie.log)
        XCTAssertEqual(back.buttons, movie.buttons)
        XCTAssertEqual(back.guid, movie.guid)
    }

    func testRetroluaTextBadInput() {
        let text = String(decoding: MovieText.encode(sampleMovie()), as: UTF8.self)
        func decode(_ text: String) throws { _ = try MovieText.decode(Array(text.utf8), name: "bad.rlm") }
        assertError(["bad.rlm", "truncated", "no [end]"]) { try decode(String(text.dropLast("[end]\n".count))) }
        assertError(["bad.rlm", "truncated", "200 frames", "ends after 3"]) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let first = lines.firstIndex(of: "[input]")! + 1
            try decode(lines[..<(first + 3)].joined(separator: "\n") + "\n")
        }
        assertError(["bad.rlm", "unknown button 'jump'"]) {
            try decode(text.replacingOccurrences(of: "buttons up down", with: "buttons up jump"))
        }
        assertError(["bad.rlm", "200 frames", "has 199"]) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let frame = lines.firstIndex { $0.hasSuffix("|") }!
            try decode(lines.enumerated().filter { $0.offset != frame }.map(\.element).joined(separator: "\n"))
        }
        assertError(["bad.rlm", "more input lines than the header's 'frames 199'"]) {
            try decode(text.replacingOccurrences(of: "frames 200", with: "frames 199"))
        }
    }

    func testExportsIdentifyTheROMAsThePeersDoAndNameTheRealCore() throws {
        // A recording keeps the ROM's hashes without its iNES header: BizHawk's SHA1, FCEUX's romChecksum.
        let folder = Fixtures.temporaryFolder()
        let record = try Fixtures.cli(["movie", "record", folder + "/m.rlm", Fixtures.nesROM, "--frames", "10"])
        XCTAssertEqual(record.status, 0, record.stderr)
        let rom = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.nesROM)).dropFirst(16))
        for format in ["bk2", "fm2"] {
            let convert = try Fixtures.cli(["movie", "convert", folder + "/m.rlm", folder + "/m." + format])
            XCTAssertEqual(convert.status, 0, convert.stderr)
        }
        let header = try member(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/m.bk2"))), "Header.txt")
        XCTAssertTrue(header.contains("SHA1 \(Hashing.sha1(rom).uppercased())\n"), header)
        XCTAssertTrue(header.contains("Core Nestopia\n"), header)
        XCTAssertFalse(header.contains("NesHawk"), header)
        let fm2 = try String(contentsOfFile: folder + "/m.fm2", encoding: .utf8)
        let md5 = Data(FM2.bytes(hex: Hashing.md5(rom))!).base64EncodedString()
        XCTAssertTrue(fm2.contains("\nromChecksum base64:\(md5)\n"), fm2)
    }

    // MARK: Older formats (imports)

    private func seed(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/Fuzz/corpus/" + name)))
    }

    func testFCMImportFollowsTheToggleStream() throws {
        // The seed: power on frame 0; after 2 frames pad 1 presses right, 3 later A, 4 later right is let go.
        let movie = try LegacyMovies.decodeFCM(try seed("fcm/seed1.fcm"), name: "seed1.fcm")
        XCTAssertEqual(movie.length, 20)
        XCTAssertEqual(movie.log.ports, 2, "pads 3 and 4 were never pressed")
        XCTAssertEqual(movie.rerecords, 3)
        XCTAssertEqual([movie.contentName, movie.author], ["demo.nes", "someone"])
        XCTAssertEqual(movie.contentMD5, String(repeating: "11", count: 16))
        XCTAssertEqual(movie.log.flags(at: 0), .power)
        XCTAssertEqual(pressed(movie, 0), [])
        XCTAssertEqual(pressed(movie, 1), [])
        XCTAssertEqual(pressed(movie, 2), [.right])
        XCTAssertEqual(pressed(movie, 5), [.right, .a])
        XCTAssertEqual(pressed(movie, 9), [.a])
        XCTAssertEqual(pressed(movie, 19), [.a])
    }

    func testFMVImportReadsOneBytePerControllerPerFrame() throws {
        let movie = try LegacyMovies.decodeFMV(try seed("fmv/seed1.fmv"), name: "seed1.fmv")
        XCTAssertEqual(movie.length, 4, "8 bytes, two controllers")
        XCTAssertEqual(movie.rerecords, 5)
        XCTAssertEqual(movie.author, "a title")
        XCTAssertEqual(pressed(movie, 0), [.right])
        XCTAssertEqual(pressed(movie, 1), [.right, .a])
        XCTAssertEqual(movie.log.input(at: 1).buttons[1], UInt16(1) << UInt16(RetroPadButton.start.rawValue))
        XCTAssertEqual(pressed(movie, 2), [])
        XCTAssertEqual(pressed(movie, 2, port: 1), [.b])
        XCTAssertEqual(pressed(movie, 3), [.select])
        XCTAssertEqual(pressed(movie, 3, port: 1), [.left])
        // Through MovieText: the extension picks the importer, and the movie converts to .rlm.
        let folder = Fixtures.temporaryFolder()
        try Data(try seed("fmv/seed1.fmv")).write(to: URL(fileURLWithPath: folder + "/m.fmv"))
        let convert = try Fixtures.cli(["movie", "convert", folder + "/m.fmv", folder + "/m.rlm"])
        XCTAssertEqual(convert.status, 0, convert.stderr)
        XCTAssertEqual(try MovieText.read(path: folder + "/m.rlm").length, 4)
    }

    func testBadOlderMoviesGetTheirReason() throws {
        let fcm = try seed("fcm/seed1.fcm"), fmv = try seed("fmv/seed1.fmv")
        func fcmError(_ bytes: [UInt8]) -> String {
            do { _ = try LegacyMovies.decodeFCM(bytes, name: "x.fcm") } catch { return error.description }
            return "accepted"
        }
        func fmvError(_ bytes: [UInt8]) -> String {
            do { _ = try LegacyMovies.decodeFMV(bytes, name: "x.fmv") } catch { return error.description }
            return "accepted"
        }
        var savestate = fcm
        savestate[8] = 0
        var version = fcm
        version[4] = 3
        var short = fcm
        short[0x0C] = 3  // three frames, but the stream runs on to frame 9
        var cut = fcm
        cut[0x14] = 2  // the data length ends inside a command
        var huge = fcm
        huge.replaceSubrange(0x14..<0x18, with: [0xFF, 0xFF, 0xFF, 0x7F])
        var past = fcm
        past.replaceSubrange(0x0C..<0x10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        for (bytes, reason) in [
            (Array(fcm.prefix(40)), "no FCM signature"), (savestate, "FCEU savestate"), (version, "version 3"),
            (short, "runs past the 3 frames"), (cut, "is cut off"), (huge, "runs past the file's end"),
            (past, "at most 10000000"), ([UInt8](repeating: 0, count: 100), "no FCM signature"),
        ] {
            XCTAssertTrue(fcmError(bytes).contains(reason), "\(reason): \(fcmError(bytes))")
        }
        var fds = fmv
        fds[5] |= 0x20
        var state = fmv
        state[4] = 0x80
        var none = fmv
        none[5] = 0
        for (bytes, reason) in [
            (Array(fmv.prefix(100)), "no FMV signature"), (fds, "Disk System"), (state, "Famtasia savestate"),
            (none, "no controller"),
        ] {
            XCTAssertTrue(fmvError(bytes).contains(reason), "\(reason): \(fmvError(bytes))")
        }
    }
    func testVMVImportReadsControllersAndCommands() throws {
        let bytes = try seed("vmv/seed1.vmv")
        let movie = try LegacyMovies.decodeVMV(bytes, name: "seed1.vmv")
        XCTAssertEqual(movie.length, 6)
        XCTAssertEqual(movie.log.ports, 2)
        XCTAssertEqual(movie.rerecords, 7)
        XCTAssertTrue(movie.comments.contains("VirtuaNES PRG ROM CRC32 1234ABCD"))
        XCTAssertEqual(pressed(movie, 0), [.right])
        XCTAssertEqual(pressed(movie, 1), [.right, .a])
        XCTAssertEqual(pressed(movie, 1, port: 1), [.start])
        XCTAssertEqual(movie.log.flags(at: 2), .reset)
        XCTAssertEqual(pressed(movie, 2, port: 1), [.b])
        XCTAssertEqual(pressed(movie, 3), [.left], "the F3 command's four bytes are not input")
        XCTAssertEqual(movie.log.flags(at: 4), .power)
        XCTAssertEqual(pressed(movie, 5), [.select], "a lone command byte is skipped")
        let folder = Fixtures.temporaryFolder()
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/m.vmv"))
        XCTAssertEqual(try MovieText.read(path: folder + "/m.vmv").length, 6, "the extension picks the importer")
        // Cut short: the whole frames are kept and a comment says so.
        let cut = try LegacyMovies.decodeVMV(Array(bytes.dropLast(5)), name: "cut.vmv")
        XCTAssertEqual(cut.length, 4)
        XCTAssertTrue(cut.comments.contains("the header claims 6 frames; the data holds 4"))
        func vmvError(_ bytes: [UInt8]) -> String {
            do { _ = try LegacyMovies.decodeVMV(bytes, name: "x.vmv") } catch { return error.description }
            return "accepted"
        }
        var old = bytes
        old[0x0D] = 3
        var state = bytes
        state[0x10] = 0x03
        var none = bytes
        none[0x10] = 0x40
        var huge = bytes
        huge.replaceSubrange(0x38..<0x3C, with: [0xFF, 0xFF, 0xFF, 0xFF])
        var offset = bytes
        offset.replaceSubrange(0x34..<0x38, with: [0xFF, 0xFF, 0, 0])
        var command = bytes
        command.replaceSubrange((command.count - 3)..<command.count, with: [0xF0, 1])
        for (input, reason) in [
            (Array(bytes.prefix(63)), "no \"VirtuaNES MV\" signature"), (old, "movie version 0300"),
            (state, "VirtuaNES savestate"), (none, "no controller"), (huge, "at most 10000000"),
            (offset, "outside the file"), (command, "is cut off"),
        ] {
            XCTAssertTrue(vmvError(input).contains(reason), "\(reason): \(vmvError(input))")
        }
    }
}
