import Foundation
import Libretro
import Support

/// BizHawk's movie format (`.bk2`): a zip holding `Header.txt` ("Key Value" lines) and `Input Log.txt`
/// (a `LogKey:` line naming every column, then one `|..|UDLRSsBA|` line per frame), plus optional
/// `Comments.txt`, `Subtitles.txt` and `SyncSettings.json`. What Retrolua does not use is kept in the
/// movie's extras, so importing and exporting again writes the same input log and header fields.
public enum BK2 {
    static let inputLogLimit = 64 << 20
    static let textLimit = 1 << 20
    static let headerMember = "Header.txt", inputMember = "Input Log.txt", commentsMember = "Comments.txt"
    /// Optional text members, in the order BizHawk writes them (before the input log).
    static let textMembers = [commentsMember, "Subtitles.txt", "SyncSettings.json"]
    /// Extras that are not header fields: the LogKey, the line ending and the text members.
    static let logKeyExtra = "bk2.logkey", newlineExtra = "bk2.newline", fileExtraPrefix = "bk2.file."
    /// Header fields written first, in this order (the rest follow in the order they were read).
    static let leadingKeys = [
        "MovieVersion", "Author", "emuVersion", "Platform", "GameName", "SHA1", "Core", "rerecordCount",
    ]
    static let platforms: [(platform: String, system: String)] = [
        ("NES", "Nintendo Entertainment System"), ("GB", "Game Boy"), ("GBC", "Game Boy Color"),
        ("SNES", "Super Nintendo Entertainment System"), ("GBA", "Game Boy Advance"),
    ]
    static let gameBoyCores: Set<String> = ["gambatte", "sameboy", "gearboy", "tgbdual"]
    /// Button names (without the `Pn ` player prefix) and the RetroPad buttons they map to.
    static let buttonNames: [String: RetroPadButton] = [
        "Up": .up, "Down": .down, "Left": .left, "Right": .right, "Start": .start, "Select": .select,
        "A": .a, "B": .b, "X": .x, "Y": .y, "L": .l, "R": .r, "L1": .l, "R1": .r, "L2": .l2, "R2": .r2, "L3": .l3,
        "R3": .r3,
    ]
    /// The letters BizHawk writes for pressed buttons (its Bk2MnemonicLookup base table).
    static let mnemonics: [String: Character] = [
        "Up": "U", "Down": "D", "Left": "L", "Right": "R", "Start": "S", "Select": "s", "A": "A", "B": "B",
        "X": "X", "Y": "Y", "L": "l", "R": "r", "L1": "l", "R1": "r", "L2": "L", "R2": "R", "L3": "<", "R3": ">",
        "Reset": "r", "Power": "P",
    ]
    static let nesPad = ["Up", "Down", "Left", "Right", "Start", "Select", "B", "A"]
    /// Gambatte's controller: one unprefixed group, with the power button last.
    public static let gameBoyLogKey = "#Up|Down|Left|Right|Start|Select|B|A|Power|"

    /// One character column of an input line: a console command or a button of a port.
    struct Column {
        var flag: MovieFrameFlags = []
        var port = 0
        var button: RetroPadButton?
        var mnemonic: UInt8
    }

    /// A parsed LogKey: `#` starts a group (one `|`-delimited field of each line), `|` ends a name.
    struct LogKey {
        let text: String
        let groups: [[Column]]
        let ports: Int
        let buttons: [RetroPadButton]
        var columns: [Column] { groups.flatMap { $0 } }
    }

    // MARK: Reading

    public static func read(path: String) throws(MovieError) -> Movie {
        try decode(archive: archive(path: path))
    }

    public static func decode(zip bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        try decode(archive: archive(bytes: bytes, name: name))
    }

    static func decode(archive: ZipArchive) throws(MovieError) -> Movie {
        let name = archive.name
        let header = try readHeader(archive)
        let logBytes = withoutBOM(try archive.requiredMovieMember(inputMember, limit: inputLogLimit))
        var (movie, key) = try readInputLog(logBytes, name: name)

        var extras: [(key: String, value: String)] = []
        for (field, value) in header {
            switch field {
            case "rerecordCount":
                guard let count = Int(value.trimmingCharacters(in: .whitespaces)), count >= 0 else {
                    throw MovieError(
                        "\(name): \(headerMember): 'rerecordCount' should be a whole number, got '\(value)'")
                }
                movie.rerecords = count
            case "Author": movie.author = value
            case "GameName": movie.contentName = value
            case "Platform": movie.system = platforms.first { $0.platform == value }?.system ?? value
            default: extras.append(("bk2.\(field)", value))
            }
        }
        extras.append((logKeyExtra, key.text))
        if let end = logBytes.firstIndex(of: UInt8(ascii: "\n")), end > 0, logBytes[end - 1] == UInt8(ascii: "\r") {
            extras.append((newlineExtra, "crlf"))
        }
        for member in textMembers {
            guard let bytes = try archive.movieMember(member, limit: textLimit) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            extras.append((fileExtraPrefix + member, escape(text)))
            if member == commentsMember { movie.comments = commentLines(text) }
        }
        movie.extras = extras
        movie.coreName = ""
        return movie
    }

    /// The header's fields; movies that start from a state or save RAM of BizHawk's are refused.
    private static func readHeader(_ archive: ZipArchive) throws(MovieError) -> [(key: String, value: String)] {
        let name = archive.name
        var header: [(key: String, value: String)] = []
        var headerLines = LineReader(bytes: withoutBOM(try archive.requiredMovieMember(headerMember, limit: textLimit)))
        while let line = headerLines.next() {
            let text = String(decoding: line, as: UTF8.self)
            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            header.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
        }
        func isTrue(_ key: String) -> Bool { header.last { $0.key == key }?.value.lowercased() == "true" }
        if isTrue("StartsFromSavestate") || header.contains(where: { $0.key == "SavestateBinaryBase64Blob" }) {
            throw MovieError(
                """
                \(name): the movie starts from a BizHawk savestate; BizHawk core states cannot be loaded by \
                Retrolua (only movies recorded from power-on can be imported)
                """
            )
        }
        if isTrue("StartsFromSaveRam") {
            throw MovieError(
                """
                \(name): the movie starts from save RAM stored in it; Retrolua movies start from the save RAM the \
                core creates, so it cannot be imported
                """
            )
        }
        return header
    }

    /// Where each LogKey column sits on a line and what it sets; `bars` holds every bar's offset.
    private struct LogColumns {
        var positions: [Int] = [], bars: [Int] = [], bits: [UInt16] = [], flagBits: [UInt8] = [], ports: [Int] = []

        init() {}

        init(_ key: LogKey) {
            var position = 1
            for group in key.groups {
                for column in group {
                    positions.append(position)
                    position += 1
                    bits.append(column.button.map { UInt16(1) << UInt16($0.rawValue) } ?? 0)
                    flagBits.append(column.flag.rawValue)
                    ports.append(column.port)
                }
                bars.append(position)
                position += 1
            }
            bars.insert(0, at: 0)
        }
    }

    /// Input Log.txt: the LogKey line, then one line per frame.
    private static func readInputLog(_ logBytes: [UInt8], name: String) throws(MovieError) -> (Movie, LogKey) {
        var lines = LineReader(bytes: logBytes)
        func fail(_ message: String) -> MovieError {
            MovieError("\(name): \(inputMember):\(lines.lineNumber): \(message)")
        }
        var key: LogKey?
        var movie = Movie(ports: 1)
        var columns = LogColumns()
        let bar = UInt8(ascii: "|"), dot = UInt8(ascii: ".")
        while let line = lines.next() {
            if line.first == bar {
                guard let key else { throw fail("an input line comes before the LogKey line") }
                let bars = columns.bars
                guard line.count == bars.last! + 1, bars.allSatisfy({ line[line.startIndex + $0] == bar }) else {
                    if line.contains(UInt8(ascii: ",")) { throw fail("analog input is not supported") }
                    let example = "|" + key.groups.map { String(repeating: ".", count: $0.count) + "|" }.joined()
                    throw fail(
                        """
                        expected a line like '\(example)' (the LogKey's columns), got \
                        '\(String(decoding: line.prefix(80), as: UTF8.self))'
                        """
                    )
                }
                var input = InputState()
                var flags: MovieFrameFlags = []
                for index in columns.positions.indices where line[line.startIndex + columns.positions[index]] != dot {
                    if columns.flagBits[index] != 0 {
                        flags.insert(MovieFrameFlags(rawValue: columns.flagBits[index]))
                    } else {
                        input.buttons[columns.ports[index]] |= columns.bits[index]
                    }
                }
                movie.log.set(movie.length, input: input, flags: flags)
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if text == "[/Input]" { break }
            if text == "[Input]" || text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard text.hasPrefix("LogKey:") else { throw fail("unexpected line '\(text.prefix(80))'") }
            guard key == nil else { throw fail("a second LogKey line") }
            let parsed: LogKey
            do { parsed = try parseLogKey(String(text.dropFirst(7))) } catch { throw fail(error.description) }
            key = parsed
            movie = Movie(ports: parsed.ports)
            movie.buttons = parsed.buttons
            columns = LogColumns(parsed)
        }
        guard let key else { throw MovieError("\(name): \(inputMember) has no LogKey line") }
        return (movie, key)
    }

    /// Parses the LogKey (without `LogKey:`); every name must map to a RetroPad button or a command.
    static func parseLogKey(_ text: String) throws(MovieError) -> LogKey {
        var groups: [[Column]] = []
        var seen = Set<String>(), buttons: [RetroPadButton] = []
        var ports = 1
        for group in text.split(separator: "#") {
            var names = group.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            if names.last == "" { names.removeLast() }
            guard !names.isEmpty else { continue }
            var columns: [Column] = []
            for name in names {
                guard seen.insert(name).inserted else { throw MovieError("the LogKey lists '\(name)' twice") }
                guard let column = column(named: name) else {
                    if looksAnalog(name) { throw MovieError("analog input '\(name)' is not supported") }
                    throw MovieError(
                        """
                        unknown button '\(name)' in the LogKey (known: Reset, Power and [Pn \
                        ]\(buttonNames.keys.sorted().joined(separator: "/")))
                        """
                    )
                }
                guard column.port < InputState.maxPorts else {
                    throw MovieError(
                        "the LogKey names player \(column.port + 1); at most \(InputState.maxPorts) are supported")
                }
                if let button = column.button {
                    ports = max(ports, column.port + 1)
                    if !buttons.contains(button) { buttons.append(button) }
                }
                columns.append(column)
            }
            groups.append(columns)
        }
        guard !groups.isEmpty else { throw MovieError("the LogKey is empty") }
        return LogKey(text: text, groups: groups, ports: ports, buttons: buttons)
    }

    /// The column for `P2 Up`, `Up` (player 1, as in Game Boy logs), `Reset` or `Power`; nil when unknown.
    static func column(named name: String) -> Column? {
        var base = Substring(name), port = 0
        if name.first == "P", let space = name.firstIndex(of: " ") {
            let digits = name[name.index(after: name.startIndex)..<space]
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number >= 1 {
                port = number - 1
                base = name[name.index(after: space)...]
            }
        }
        let key = String(base)
        let mnemonic = mnemonics[key]?.asciiValue ?? UInt8(ascii: "x")
        switch key {
        case "Reset": return Column(flag: .reset, mnemonic: mnemonic)
        case "Power": return Column(flag: .power, mnemonic: mnemonic)
        default:
            guard let button = buttonNames[key] else { return nil }
            return Column(port: port, button: button, mnemonic: mnemonic)
        }
    }

    /// Axis controls (zappers, sticks, paddles, tilt, sub-frame lengths), named to give a clearer error.
    static func looksAnalog(_ name: String) -> Bool {
        name.hasSuffix(" X") || name.hasSuffix(" Y") || name.hasSuffix(" Z")
            || ["Axis", "Stick", "Paddle", "Tilt", "Length", "Sensor", "Disc Select", "Pen", "Mouse"].contains {
                name.contains($0)
            }
    }

    // MARK: Text helpers

    static func withoutBOM(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    static func commentLines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).map(
            String.init)
    }

    /// Extras are single lines: backslashes, line feeds and carriage returns are written as `\\`, `\n`, `\r`.
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func unescape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var escaped = false
        for scalar in text.unicodeScalars {
            if escaped {
                switch scalar {
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: out.append(scalar)
                }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
