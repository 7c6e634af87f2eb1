import Foundation
import Libretro

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
        try decode(archive: ZipArchive(path: path))
    }

    public static func decode(zip bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        try decode(archive: ZipArchive(bytes: bytes, name: name))
    }

    static func decode(archive: ZipArchive) throws(MovieError) -> Movie {
        let name = archive.name
        var header: [(key: String, value: String)] = []
        var headerLines = LineReader(bytes: withoutBOM(try archive.require(headerMember, limit: textLimit)))
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

        let logBytes = withoutBOM(try archive.require(inputMember, limit: inputLogLimit))
        var lines = LineReader(bytes: logBytes)
        func fail(_ message: String) -> MovieError {
            MovieError("\(name): \(inputMember):\(lines.lineNumber): \(message)")
        }
        var key: LogKey?
        var movie = Movie(ports: 1)
        var positions: [Int] = [], bars: [Int] = [], bits: [UInt16] = [], flagBits: [UInt8] = [], ports: [Int] = []
        let bar = UInt8(ascii: "|"), dot = UInt8(ascii: ".")
        while let line = lines.next() {
            if line.first == bar {
                guard let key else { throw fail("an input line comes before the LogKey line") }
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
                for index in positions.indices where line[line.startIndex + positions[index]] != dot {
                    if flagBits[index] != 0 {
                        flags.insert(MovieFrameFlags(rawValue: flagBits[index]))
                    } else {
                        input.buttons[ports[index]] |= bits[index]
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
            var position = 1
            for group in parsed.groups {
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
        guard let key else { throw MovieError("\(name): \(inputMember) has no LogKey line") }

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
            guard let bytes = try archive.read(member, limit: textLimit) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            extras.append((fileExtraPrefix + member, escape(text)))
            if member == commentsMember { movie.comments = commentLines(text) }
        }
        movie.extras = extras
        movie.coreName = ""
        return movie
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

    // MARK: Writing

    public static func encode(_ movie: Movie) throws(MovieError) -> [UInt8] {
        guard !movie.log.analog else {
            throw MovieError(
                "cannot export to .bk2: the movie has analog input, which Retrolua does not export to BizHawk")
        }
        let platform = platform(for: movie)
        let key: LogKey
        if let stored = movie.extra(logKeyExtra) {
            do { key = try parseLogKey(stored) } catch {
                throw MovieError("cannot export to .bk2: the movie's kept LogKey: \(error.description)")
            }
        } else {
            key = try parseLogKey(defaultLogKey(platform: platform, movie: movie))
        }
        try checkCoverage(movie, key)
        let newline = movie.extra(newlineExtra) == "crlf" ? "\r\n" : "\n"

        var log = Array("[Input]\(newline)LogKey:\(key.text)\(newline)".utf8)
        log.reserveCapacity(log.count + movie.length * (key.columns.count + key.groups.count + 3) + 16)
        // Each line starts as the all-released template; pressed columns get their letter.
        let bar = UInt8(ascii: "|"), dot = UInt8(ascii: ".")
        var template: [UInt8] = [bar]
        var slots: [(offset: Int, port: Int, bit: UInt16, flag: UInt8, mnemonic: UInt8)] = []
        for group in key.groups {
            for column in group {
                if column.button == nil || column.port < movie.log.ports {
                    slots.append(
                        (
                            template.count, column.port, column.button.map { UInt16(1) << UInt16($0.rawValue) } ?? 0,
                            column.flag.rawValue, column.mnemonic
                        ))
                }
                template.append(dot)
            }
            template.append(bar)
        }
        template += Array(newline.utf8)
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame).rawValue, input = movie.log.input(at: frame)
            let base = log.count
            log += template
            for slot in slots where slot.bit != 0 ? input.buttons[slot.port] & slot.bit != 0 : flags & slot.flag != 0 {
                log[base + slot.offset] = slot.mnemonic
            }
        }
        log += Array("[/Input]\(newline)".utf8)

        var fields: [(String, String)] = []
        func kept(_ key: String) -> String? { movie.extra("bk2.\(key)") }
        for field in leadingKeys {
            switch field {
            case "MovieVersion": fields.append((field, kept(field) ?? "BizHawk v2.0.0"))
            case "Author": fields.append((field, movie.author))
            case "emuVersion": fields.append((field, kept(field) ?? "Retrolua"))
            case "Platform": fields.append((field, platform))
            case "GameName": fields.append((field, movie.contentName))
            case "SHA1":
                // BizHawk hashes NES ROMs without their iNES header, so Retrolua's file hash would not match.
                if let value = kept(field)
                    ?? (platform == "NES" || movie.contentSHA1.isEmpty ? nil : movie.contentSHA1.uppercased())
                {
                    fields.append((field, value))
                }
            case "Core":
                if let value = kept(field) ?? ["NES": "NesHawk", "GB": "Gambatte", "GBC": "Gambatte"][platform] {
                    fields.append((field, value))
                }
            default: fields.append((field, String(movie.rerecords)))
            }
        }
        for extra in movie.extras
        where extra.key.hasPrefix("bk2.") && extra.key != logKeyExtra && extra.key != newlineExtra
            && !extra.key.hasPrefix(fileExtraPrefix) && !leadingKeys.contains(String(extra.key.dropFirst(4)))
        {
            fields.append((String(extra.key.dropFirst(4)), extra.value))
        }
        let headerText = fields.map { "\($0.0) \($0.1)\(newline)" }.joined() + newline

        var members: [(name: String, bytes: [UInt8])] = [(headerMember, Array(headerText.utf8))]
        for member in textMembers {
            var text = movie.extra(fileExtraPrefix + member).map(unescape)
            if member == commentsMember, text.map(commentLines) != movie.comments {
                text = movie.comments.isEmpty ? nil : movie.comments.map { $0 + newline }.joined()
            }
            if let text { members.append((member, Array(text.utf8))) }
        }
        members.append((inputMember, log))
        return try ZipArchive.write(members)
    }

    /// Refuses movies whose input the LogKey cannot express (a button or command without a column).
    static func checkCoverage(_ movie: Movie, _ key: LogKey) throws(MovieError) {
        var covered = [UInt16](repeating: 0, count: InputState.maxPorts)
        var commands: MovieFrameFlags = []
        for column in key.columns {
            if let button = column.button {
                covered[column.port] |= UInt16(1) << UInt16(button.rawValue)
            } else {
                commands.formUnion(column.flag)
            }
        }
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame).intersection(.commands)
            if !flags.isSubset(of: commands) {
                let what = flags.subtracting(commands).contains(.power) ? "Power" : "Reset"
                throw MovieError(
                    """
                    cannot export to .bk2: frame \(frame + 1) has a \(what.lowercased()) but the LogKey has no \
                    \(what) column
                    """
                )
            }
            let input = movie.log.input(at: frame)
            for port in 0..<movie.log.ports where input.buttons[port] & ~covered[port] != 0 {
                let button = RetroPadButton.allCases.first {
                    input.isPressed($0, port: port) && covered[port] & UInt16(1) << UInt16($0.rawValue) == 0
                }!
                throw MovieError(
                    """
                    cannot export to .bk2: frame \(frame + 1) presses '\(button.name)' on port \(port + 1), which \
                    the LogKey has no column for
                    """
                )
            }
        }
    }

    /// BizHawk's LogKey for movies not imported from a .bk2: NesHawk's, Gambatte's, or a RetroPad one.
    static func defaultLogKey(platform: String, movie: Movie) -> String {
        let players = 1...movie.log.ports
        switch platform {
        case "NES":
            return "#Reset|Power|"
                + players.map { player in "#" + nesPad.map { "P\(player) \($0)|" }.joined() }.joined()
        case "GB", "GBC": return gameBoyLogKey
        default:
            let names = movie.buttons.map { $0.name.prefix(1).uppercased() + $0.name.dropFirst() }
            return "#Reset|Power|" + players.map { player in "#" + names.map { "P\(player) \($0)|" }.joined() }.joined()
        }
    }

    /// BizHawk's platform id for the movie's system (`NES`, `GB`…), or the system name itself.
    static func platform(for movie: Movie) -> String {
        let system = movie.system.lowercased()
        if let known = platforms.first(where: { $0.system.lowercased() == system }) { return known.platform }
        if FM2.isNESLike(movie) { return "NES" }
        let gameBoy = system.contains("game boy") && !system.contains("advance")
        if gameBoy || (system.isEmpty && gameBoyCores.contains(movie.coreName.lowercased())) {
            return movie.contentName.lowercased().hasSuffix(".gbc") ? "GBC" : "GB"
        }
        return movie.system
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
