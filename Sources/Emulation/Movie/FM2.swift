import Foundation
import Libretro

/// FCEUX's text movie format (`.fm2`, version 3): "key value" header lines, then one
/// `|commands|RLDUTSBA|RLDUTSBA||` line per frame. Imported and exported so NES movies move both ways.
public enum FM2 {
    /// The gamepad field's columns, left to right (FCEUX writes bit 7 first: Right … A).
    static let padOrder: [RetroPadButton] = [.right, .left, .down, .up, .start, .select, .b, .a]
    static let padLetters = Array("RLDUTSBA".utf8)
    static let padBits = padOrder.map { UInt16(1) << UInt16($0.rawValue) }
    /// The NES pad's buttons in Retrolua's column order.
    public static let nesButtons: [RetroPadButton] = [.up, .down, .left, .right, .start, .select, .b, .a]
    static let nesCores: Set<String> = ["nestopia", "fceumm", "quicknes", "mesen", "fixnes"]
    /// FCEUX reads `emuVersion` as an integer (the FCEUX release the movie expects), so exports keep
    /// one it knows; Retrolua's own version goes in the `.rlm` header and `.bk2`'s `emuVersion`.
    static let defaultEmuVersion = "22020"

    // MARK: Reading

    public static func decode(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        var lines = LineReader(bytes: bytes)
        func fail(_ message: String) -> MovieError { MovieError("\(name):\(lines.lineNumber): \(message)") }
        let bar = UInt8(ascii: "|")

        let (fields, firstFrame) = try readFields(&lines, name: name)
        let (header, portTypes, length) = try readHeader(fields, name: name)
        var movie = Movie(ports: portTypes.count)
        movie.rerecords = header.rerecords
        movie.contentName = header.contentName
        movie.guid = header.guid
        movie.author = header.author
        movie.comments = header.comments
        movie.extras = header.extras
        movie.system = "Nintendo Entertainment System"
        movie.coreName = ""
        movie.buttons = nesButtons

        var line = firstFrame
        while let current = line {
            if let length, movie.length >= length { break }
            if current.first == bar {
                let (input, flags) = try parseFrame(current, portTypes: portTypes, fail: fail)
                movie.log.set(movie.length, input: input, flags: flags)
            } else if !current.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                throw fail(
                    """
                    expected an input line starting with '|', got \
                    '\(String(decoding: current.prefix(60), as: UTF8.self))'
                    """
                )
            }
            line = lines.next()
        }
        if let length, movie.length < length {
            throw MovieError(
                "\(name): truncated movie: the header says length \(length), the input log has \(movie.length) frames")
        }
        return movie
    }

    private typealias Field = (key: String, value: String, line: Int)

    /// The header's lines up to the first input line (which is returned too).
    private static func readFields(
        _ lines: inout LineReader, name: String
    ) throws(MovieError) -> ([Field], ArraySlice<UInt8>?) {
        let bar = UInt8(ascii: "|")
        var fields: [Field] = []
        var firstFrame: ArraySlice<UInt8>?
        while let line = lines.next() {
            if line.first == bar { firstFrame = line; break }
            let text = String(decoding: line, as: UTF8.self)
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if fields.isEmpty, text.trimmingCharacters(in: .whitespaces) != "version 3" {
                throw MovieError(
                    """
                    \(name):\(lines.lineNumber): not an FCEUX version 3 movie (the first line should be \
                    'version 3', got '\(text.prefix(60))')
                    """
                )
            }
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            fields.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : "", lines.lineNumber))
        }
        guard !fields.isEmpty else { throw MovieError("\(name): not an FCEUX movie (no 'version 3' header)") }
        return (fields, firstFrame)
    }

    private static func integer(_ field: Field, name: String) throws(MovieError) -> Int {
        guard let value = Int(field.value.trimmingCharacters(in: .whitespaces)) else {
            throw MovieError("\(name):\(field.line): '\(field.key)' should be a number, got '\(field.value)'")
        }
        return value
    }

    /// The header's facts on a movie of its own, the ports' device types (four pads with a fourscore)
    /// and the declared length.
    private static func readHeader(
        _ fields: [Field], name: String
    ) throws(MovieError) -> (Movie, [Int], Int?) {
        func integer(_ field: Field) throws(MovieError) -> Int { try FM2.integer(field, name: name) }
        // `fourscore` decides the log's port count, and it may come after other keys.
        var header = Movie(ports: 2)
        var fourscore = false, portTypes = [1, 1], length: Int?
        for field in fields {
            func fieldError(_ message: String) -> MovieError { MovieError("\(name):\(field.line): \(message)") }
            switch field.key {
            case "version": break
            case "rerecordCount":
                header.rerecords = try integer(field)
                guard header.rerecords >= 0 else { throw fieldError("'rerecordCount' is negative") }
            case "romFilename": header.contentName = field.value
            case "guid": header.guid = field.value
            case "comment":
                if field.value.hasPrefix("author ") {
                    header.author = String(field.value.dropFirst(7))
                } else {
                    header.comments.append(field.value)
                }
            case "fourscore": fourscore = try integer(field) != 0
            case "port0", "port1":
                let type = try integer(field)
                switch type {
                case 0, 1: portTypes[field.key == "port0" ? 0 : 1] = type
                case 2:
                    throw fieldError(
                        "\(field.key) is a Zapper (2), which is not supported (only gamepads, 1, and empty ports, 0)")
                default:
                    throw fieldError(
                        """
                        \(field.key) has unknown device type \(type) (only gamepads, 1, and empty ports, 0, are \
                        supported)
                        """
                    )
                }
            case "port2":
                let type = try integer(field)
                guard type == 0 else {
                    throw fieldError("expansion port device \(type) is not supported (port2 must be 0)")
                }
            case "binary":
                guard try integer(field) == 0 else {
                    throw fieldError("binary input logs are not supported (save the movie as text in FCEUX)")
                }
            case "length":
                let value = try integer(field)
                guard value >= 0 else { throw fieldError("'length' is negative") }
                length = value
            case "savestate" where !field.value.trimmingCharacters(in: .whitespaces).isEmpty:
                throw fieldError(
                    """
                    the movie starts from an FCEUX savestate; Retrolua cannot load FCEUX states (only movies \
                    recorded from power-on can be imported)
                    """
                )
            case "savestate": break
            default: header.extras.append(("fm2.\(field.key)", field.value))
            }
        }
        if fourscore { portTypes = [1, 1, 1, 1] }
        return (header, portTypes, length)
    }

    /// One input line: `|commands|pad|pad||` (four pads with a fourscore; an empty field for an empty port).
    private static func parseFrame(
        _ line: ArraySlice<UInt8>, portTypes: [Int],
        fail: (String) -> MovieError
    ) throws(MovieError) -> (InputState, MovieFrameFlags) {
        let bar = UInt8(ascii: "|"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), dot = UInt8(ascii: ".")
        var end = line.endIndex
        while end > line.startIndex, line[end - 1] == space || line[end - 1] == tab { end -= 1 }
        var text: String { String(decoding: line.prefix(80), as: UTF8.self) }
        func malformed() -> MovieError {
            let example = "|0|" + portTypes.map { $0 == 1 ? "........" : "" }.joined(separator: "|") + "||"
            return fail(
                """
                expected \(portTypes.count) controller fields and an empty expansion field like '\(example)', got \
                '\(text)'
                """
            )
        }
        /// The index of the bar closing the field that starts at `start`.
        func close(_ start: Int) throws(MovieError) -> Int {
            guard let index = line[start..<end].firstIndex(of: bar) else { throw malformed() }
            return index
        }

        var start = line.startIndex + 1  // the caller checked the opening bar
        let commandEnd = try close(start)
        let flags = try frameCommands(line[start..<commandEnd], fail: fail)
        start = commandEnd + 1

        var input = InputState()
        for (port, type) in portTypes.enumerated() {
            let fieldEnd = try close(start)
            let field = line[start..<fieldEnd]
            if type == 0 {
                guard field.isEmpty else {
                    throw fail(
                        """
                        port\(port) is empty in the header but the line has input \
                        '\(String(decoding: field, as: UTF8.self))'
                        """
                    )
                }
            } else {
                guard field.count == 8 else {
                    throw fail(
                        """
                        controller \(port + 1): the field should be 8 characters (RLDUTSBA), got \
                        '\(String(decoding: field, as: UTF8.self))'
                        """
                    )
                }
                var mask: UInt16 = 0
                for column in 0..<8 where field[start + column] != dot && field[start + column] != space {
                    mask |= padBits[column]
                }
                input.buttons[port] = mask
            }
            start = fieldEnd + 1
        }
        // The expansion port's field: FCEUX logs nothing there.
        let expansionEnd = try close(start)
        guard expansionEnd == start, expansionEnd + 1 == end else {
            if line[(expansionEnd + 1)..<end].contains(bar) || expansionEnd + 1 < end { throw malformed() }
            throw fail("expansion port input is not supported, got '\(text)'")
        }
        return (input, flags)
    }

    /// The command field: reset (1) and power (2); FDS and VS commands are refused.
    private static func frameCommands(
        _ digits: ArraySlice<UInt8>, fail: (String) -> MovieError
    ) throws(MovieError) -> MovieFrameFlags {
        guard !digits.isEmpty else { throw fail("the command field is empty (it should be a number, 0 for none)") }
        var commands: UInt32 = 0
        for digit in digits {
            guard (48...57).contains(digit), commands < 100_000_000 else {
                throw fail(
                    """
                    the command field should be a number, got \
                    '\(String(decoding: digits, as: UTF8.self))'
                    """
                )
            }
            commands = commands * 10 + UInt32(digit - 48)
        }
        var flags: MovieFrameFlags = []
        if commands & 1 != 0 { flags.insert(.reset) }
        if commands & 2 != 0 { flags.insert(.power) }
        let unsupported = commands & ~3
        if unsupported != 0 {
            let names = [(4, "FDS disk insert/eject"), (8, "FDS disk side select"), (16, "VS coin insertion")]
            let what =
                names.first { unsupported & UInt32($0.0) != 0 }.map { "\($0.1) (\($0.0))" }
                ?? "unknown command bits \(unsupported)"
            throw fail("frame command \(commands): \(what) is not supported")
        }
        return flags
    }

    // MARK: Writing

    public static func encode(_ movie: Movie) throws(MovieError) -> [UInt8] {
        // An .fm2 starts from power-on or from an FCEUX state: a start state of ours would be dropped.
        guard movie.startState == nil || movie.anchorFrame != nil else {
            throw MovieError(
                "cannot export to .fm2: the movie starts from a savestate, which an .fm2 cannot carry (keep it as .rlm)"
            )
        }
        guard isNESLike(movie) else {
            let what = movie.system.isEmpty ? "core '\(movie.coreName)'" : "'\(movie.system)'"
            throw MovieError("cannot export to .fm2: the movie is for \(what), not the NES")
        }
        guard !movie.log.analog else {
            throw MovieError("cannot export to .fm2: the movie has analog input, which the NES pad lacks")
        }
        let ports = movie.log.ports
        guard ports <= 4 else {
            throw MovieError("cannot export to .fm2: the movie has \(ports) ports (a Four Score has 4)")
        }
        let allowed = nesButtons.reduce(UInt16(0)) { $0 | UInt16(1) << UInt16($1.rawValue) }
        for frame in 0..<movie.length {
            let input = movie.log.input(at: frame)
            for port in 0..<ports where input.buttons[port] & ~allowed != 0 {
                let button = RetroPadButton.allCases.first {
                    input.isPressed($0, port: port) && !nesButtons.contains($0)
                }!
                throw MovieError(
                    """
                    cannot export to .fm2: frame \(frame + 1) presses '\(button.name)' on port \(port + 1), which \
                    the NES pad lacks
                    """
                )
            }
        }
        let fourscore = ports > 2
        var header = [
            "version 3", "emuVersion \(movie.extra("fm2.emuVersion") ?? defaultEmuVersion)",
            "rerecordCount \(movie.rerecords)", "romFilename \(movie.contentName)", "guid \(movie.guid)",
            "fourscore \(fourscore ? 1 : 0)", "port0 1", "port1 1", "port2 0",
        ]
        if movie.extra("fm2.romChecksum") == nil, let md5 = Self.bytes(hex: movie.contentMD5) {
            header.append("romChecksum base64:" + Data(md5).base64EncodedString())  // FCEUX's: MD5 without iNES header
        }
        if !movie.author.isEmpty { header.append("comment author \(movie.author)") }
        header += movie.comments.map { "comment \($0)" }
        for extra in movie.extras where extra.key.hasPrefix("fm2.") && extra.key != "fm2.emuVersion" {
            header.append("\(extra.key.dropFirst(4)) \(extra.value)")
        }
        var out = [UInt8]((header.joined(separator: "\n") + "\n").utf8)
        let pads = fourscore ? 4 : 2
        out.reserveCapacity(out.count + movie.length * (6 + pads * 9))
        let dot = UInt8(ascii: "."), bar = UInt8(ascii: "|")
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame)
            let commands = (flags.contains(.reset) ? 1 : 0) | (flags.contains(.power) ? 2 : 0)
            out.append(bar)
            out += Array(String(commands).utf8)
            let input = movie.log.input(at: frame)
            for port in 0..<pads {
                out.append(bar)
                let mask = port < ports ? input.buttons[port] : 0
                for column in 0..<8 { out.append(mask & padBits[column] != 0 ? padLetters[column] : dot) }
            }
            out += [bar, bar, UInt8(ascii: "\n")]
        }
        return out
    }

    /// True for movies of an NES or Famicom game, by system name or by the NES cores Retrolua knows.
    static func isNESLike(_ movie: Movie) -> Bool {
        let system = movie.system.lowercased()
        if system == "nes" || system.contains("famicom") { return true }
        if system.contains("nintendo entertainment system") && !system.contains("super") { return true }
        return nesCores.contains(movie.coreName.lowercased())
    }

    /// 16 bytes from 32 hex digits (nil otherwise).
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            out.append(byte)
        }
        return out
    }
}
