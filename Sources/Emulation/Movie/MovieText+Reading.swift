import Foundation
import Libretro

/// Reading `.rlm`: the header, then the input log line by line, then the start state.
extension MovieText {
    public static func decode(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        var lines = LineReader(bytes: bytes)
        guard let first = lines.next(), String(decoding: first, as: UTF8.self) == magic else {
            throw MovieError("\(name): not a Retrolua movie (the first line should be '\(magic)')")
        }
        if bytes.last != UInt8(ascii: "\n") && !bytes.suffix(5).elementsEqual("[end]".utf8) {
            throw MovieError("\(name): truncated movie: the file ends in the middle of a line (no [end] line)")
        }
        let header = try Header(reading: &lines, name: name)
        var movie = try header.shape()
        try header.apply(to: &movie)
        let layout = try header.layout(of: &movie)
        let stateText = try readInputLog(&lines, into: &movie, layout, name: name)
        if layout.start == "state" {
            guard !stateText.isEmpty, let compressed = Data(base64Encoded: Data(stateText)) else {
                throw MovieError("\(name): the start state is missing or not base64")
            }
            movie.startState = try decompress([UInt8](compressed), name: name)
        }
        return movie
    }

    /// The header's fields, in file order (the last of a repeated single-valued field wins).
    private struct Header {
        let name: String
        var fields: [(key: String, value: String)] = []

        init(reading lines: inout LineReader, name: String) throws(MovieError) {
            self.name = name
            var sawInput = false
            while let line = lines.next() {
                let text = String(decoding: line, as: UTF8.self)
                if text == "[input]" { sawInput = true; break }
                if text.isEmpty { continue }
                let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                fields.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            }
            guard sawInput else { throw MovieError("\(name):\(lines.lineNumber): truncated movie: no [input] section") }
        }

        func field(_ key: String) throws(MovieError) -> String {
            guard let value = fields.last(where: { $0.key == key })?.value else {
                throw MovieError("\(name): the header has no '\(key)' field")
            }
            return value
        }

        func integer(_ key: String) throws(MovieError) -> Int {
            let text = try field(key)
            guard let value = Int(text), value >= 0 else {
                throw MovieError("\(name): '\(key)' should be a whole number, got '\(text)'")
            }
            return value
        }

        /// An empty movie with the header's ports, analog sticks and button columns.
        func shape() throws(MovieError) -> Movie {
            let ports = try integer("ports")
            guard (1...InputState.maxPorts).contains(ports) else {
                throw MovieError("\(name): 'ports' must be 1…\(InputState.maxPorts), got \(ports)")
            }
            let analogText = try field("analog")
            guard analogText == "yes" || analogText == "no" else {
                throw MovieError("\(name): 'analog' should be yes or no, got '\(analogText)'")
            }
            var movie = Movie(ports: ports, analog: analogText == "yes")
            var buttons: [RetroPadButton] = []
            for word in try field("buttons").split(separator: " ") {
                guard let button = RetroPadButton.named(String(word)) else {
                    throw MovieError(
                        """
                        \(name): unknown button '\(word)' (buttons: \
                        \(RetroPadButton.standardOrder.map(\.name).joined(separator: " ")))
                        """
                    )
                }
                guard !buttons.contains(button) else { throw MovieError("\(name): button '\(word)' listed twice") }
                buttons.append(button)
            }
            movie.buttons = buttons
            return movie
        }

        static let known: Set<String> = [
            "guid", "core", "core-library", "core-version", "system", "content", "content-sha1", "content-identity",
            "content-md5", "option",
            "author", "comment", "rerecords", "start", "ports", "analog", "buttons", "verify", "frames", "extra",
            "verify-covers", "anchor", "verify-frames", "emulator", "marker",
        ]

        /// The repeated fields (options, comments, markers, extras) and the movie's identity.
        func apply(to movie: inout Movie) throws(MovieError) {
            for (key, value) in fields {
                switch key {
                case "option":
                    guard let equals = value.firstIndex(of: "="), equals != value.startIndex else {
                        throw MovieError("\(name): 'option' should be KEY=VALUE, got '\(value)'")
                    }
                    movie.options.append((String(value[..<equals]), String(value[value.index(after: equals)...])))
                case "comment": movie.comments.append(value)
                case "marker":
                    let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                    // A marker is on a frame of the movie (or just past it): far ones are a corrupt file.
                    guard let frame = Int(parts[0]), frame >= 0, frame <= 1 << 40 else {
                        throw MovieError("\(name): 'marker' should be FRAME NOTE, got '\(value)'")
                    }
                    movie.markers[frame] = parts.count > 1 ? String(parts[1]) : ""
                case "extra":
                    let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                    movie.extras.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
                default:
                    guard Header.known.contains(key) else {
                        throw MovieError("\(name): unknown header field '\(key)'")
                    }
                }
            }
            movie.guid = try field("guid")
            movie.coreName = try field("core")
            movie.coreLibrary = (try? field("core-library")) ?? ""
            movie.coreVersion = (try? field("core-version")) ?? ""
            movie.system = (try? field("system")) ?? ""
            movie.contentName = (try? field("content")) ?? ""
            movie.contentSHA1 = (try? field("content-sha1")) ?? ""
            movie.contentIdentity = (try? field("content-identity")) ?? ""
            movie.contentMD5 = (try? field("content-md5")) ?? ""
            movie.author = (try? field("author")) ?? ""
            movie.rerecords = try integer("rerecords")
        }

        /// How the input log reads: its length, its hashes and how the movie starts.
        func layout(of movie: inout Movie) throws(MovieError) -> LogLayout {
            let start = try field("start")
            guard start == "power" || start == "state" else {
                throw MovieError("\(name): 'start' should be power or state, got '\(start)'")
            }
            let verify = try field("verify")
            guard verify == "ram" || verify == "none" else {
                throw MovieError("\(name): 'verify' should be ram or none, got '\(verify)'")
            }
            let frames = try integer("frames")
            if fields.contains(where: { $0.key == "anchor" }) { movie.anchorFrame = try integer("anchor") }
            let hashed = fields.contains(where: { $0.key == "verify-frames" }) ? try integer("verify-frames") : frames
            guard hashed <= frames, verify == "ram" || hashed == frames else {
                throw MovieError("\(name): 'verify-frames' must be at most 'frames' and needs 'verify ram'")
            }
            if let covers = fields.last(where: { $0.key == "verify-covers" })?.value {
                guard let cover = VerificationCover(rawValue: covers) else {
                    throw MovieError(
                        """
                        \(name): 'verify-covers' should be \(VerificationCover.allCases.map(\.rawValue).joined(separator: ", ")), \
                        got '\(covers)'
                        """
                    )
                }
                movie.verifyCovers = cover
            }
            let bits = movie.buttons.map { UInt16(1) << UInt16($0.rawValue) }
            return LogLayout(start: start, verifiesRAM: verify == "ram", frames: frames, hashed: hashed, bits: bits)
        }
    }

    private struct LogLayout {
        let start: String
        let verifiesRAM: Bool
        let frames: Int
        let hashed: Int
        /// Each button column's bit in the input mask.
        let bits: [UInt16]
    }

    /// The input log, parsed from bytes (a long movie has hundreds of thousands of lines), up to
    /// `[end]`; returns the start state's base64 text.
    private static func readInputLog(
        _ lines: inout LineReader, into movie: inout Movie, _ layout: LogLayout, name: String
    ) throws(MovieError) -> [UInt8] {
        let frames = layout.frames
        var ended = false, inState = false
        var stateText: [UInt8] = []
        while let line = lines.next() {
            let lineNumber = lines.lineNumber
            func fail(_ message: String) -> MovieError { MovieError("\(name):\(lineNumber): \(message)") }
            if line.first == UInt8(ascii: "[") {
                let text = String(decoding: line, as: UTF8.self)
                if text == "[end]" { ended = true; break }
                if text == "[start-state]" { inState = true; continue }
                throw fail("unexpected section '\(text)'")
            }
            if inState { stateText += line; continue }
            guard movie.length < frames else { throw fail("more input lines than the header's 'frames \(frames)'") }
            try readFrameLine(line, into: &movie, layout, fail: fail)
        }
        guard ended else {
            let cut =
                inState
                ? "the start state is cut off" : "the header says \(frames) frames, the file ends after \(movie.length)"
            throw MovieError("\(name): truncated movie: \(cut) (no [end] line)")
        }
        guard movie.length == frames else {
            throw MovieError("\(name): truncated movie: the header says \(frames) frames, the log has \(movie.length)")
        }
        return stateText
    }

    /// One frame line: the command column, the lag mark, each port's buttons (and sticks), the RAM hash.
    private static func readFrameLine(
        _ line: ArraySlice<UInt8>, into movie: inout Movie, _ layout: LogLayout, fail: (String) -> MovieError
    ) throws(MovieError) {
        let bits = layout.bits
        let dot = UInt8(ascii: "."), bar = UInt8(ascii: "|"), space = UInt8(ascii: " ")
        guard line.count >= 3, line[line.startIndex + 2] == bar else {
            throw fail(
                """
                expected a frame line like '..|\(String(repeating: ".", count: bits.count))|', got \
                '\(String(decoding: line, as: UTF8.self))'
                """
            )
        }
        var flags: MovieFrameFlags = []
        switch line[line.startIndex] {
        case dot: break
        case UInt8(ascii: "r"): flags.insert(.reset)
        case UInt8(ascii: "p"): flags.insert(.power)
        default:
            throw fail(
                """
                unknown command '\(Character(Unicode.Scalar(line[line.startIndex])))' (expected '.', 'r' \
                reset or 'p' power)
                """
            )
        }
        if line[line.startIndex + 1] == UInt8(ascii: "*") { flags.insert(.lag) }
        var input = InputState()
        var position = line.startIndex + 3
        for port in 0..<movie.log.ports {
            guard let end = line[position...].firstIndex(of: bar) else {
                throw fail("frame line has fewer than \(movie.log.ports) controller fields")
            }
            let mask = try readPort(
                line[position..<end], port: port, analog: movie.log.analog, into: &input, bits: bits, fail: fail)
            input.buttons[port] = mask
            position = end + 1
        }
        movie.log.set(movie.length, input: input, flags: flags)
        let rest = line[position...]
        if layout.verifiesRAM && movie.length <= layout.hashed {
            let text = String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard let hash = UInt32(text, radix: 16) else {
                throw fail("missing or bad RAM hash '\(text)' (the header says 'verify ram')")
            }
            movie.ramHashes.append(hash)
        } else if !rest.allSatisfy({ $0 == space }) {
            throw fail("unexpected text after the controller fields")
        }
    }

    /// One port's field: its button columns (returned as a mask) and, with analog, its four stick values.
    private static func readPort(
        _ text: ArraySlice<UInt8>, port: Int, analog: Bool, into input: inout InputState, bits: [UInt16],
        fail: (String) -> MovieError
    ) throws(MovieError) -> UInt16 {
        let dot = UInt8(ascii: "."), space = UInt8(ascii: " ")
        var field = text
        if analog {
            guard let colon = field.firstIndex(of: UInt8(ascii: ":")) else {
                throw fail("port \(port + 1): analog values missing (':x,y,rx,ry')")
            }
            let values = String(decoding: field[(colon + 1)...], as: UTF8.self).split(
                separator: ",", omittingEmptySubsequences: false)
            guard values.count == 4 else {
                throw fail("port \(port + 1): expected 4 analog values, got \(values.count)")
            }
            for (axis, text) in values.enumerated() {
                guard let value = Int16(text) else {
                    throw fail("port \(port + 1): analog value '\(text)' is not -32768…32767")
                }
                input.setAnalog(port: port, axis: axis, value)
            }
            field = field[..<colon]
        }
        guard field.count == bits.count else {
            throw fail("port \(port + 1) has \(field.count) button columns, the header lists \(bits.count)")
        }
        var mask: UInt16 = 0
        for (index, character) in field.enumerated() where character != dot && character != space {
            mask |= bits[index]
        }
        return mask
    }
}
