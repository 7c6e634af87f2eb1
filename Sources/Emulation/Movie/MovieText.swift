import CZstd
import Foundation
import Libretro
import Support

/// Retrolua's movie file (`.rlm`): plain text, one line per frame, so movies diff and merge well.
/// The format is documented in docs/reference/file-formats.md ("Movies (`.rlm`)").
public enum MovieText {
    static let magic = "retrolua-movie 1"
    /// Largest start state accepted when reading (a corrupt size field must not allocate gigabytes).
    static let maxStateSize = 256 << 20
    /// Largest movie file read (a start state of `maxStateSize` in base64, and input to spare).
    static let maxFileSize = 512 << 20

    // MARK: Writing

    public static func encode(_ movie: Movie) -> [UInt8] {
        var header = [
            magic, "emulator \(RetroluaVersion.emulator)", "guid \(movie.guid)", "core \(movie.coreName)",
            "core-library \(movie.coreLibrary)",
            "core-version \(movie.coreVersion)", "system \(movie.system)", "content \(movie.contentName)",
            "content-sha1 \(movie.contentSHA1)",
        ]
        if !movie.contentIdentity.isEmpty { header.append("content-identity \(movie.contentIdentity)") }
        if !movie.contentMD5.isEmpty { header.append("content-md5 \(movie.contentMD5)") }
        header += movie.options.map { "option \($0.key)=\($0.value)" }
        if !movie.author.isEmpty { header.append("author \(movie.author)") }
        header += movie.comments.map { "comment \($0)" }
        header += [
            "rerecords \(movie.rerecords)", "start \(movie.startState == nil ? "power" : "state")",
            "ports \(movie.log.ports)", "analog \(movie.log.analog ? "yes" : "no")",
            "buttons " + movie.buttons.map(\.name).joined(separator: " "),
            "verify \(movie.hasVerification ? "ram" : "none")", "frames \(movie.length)",
        ]
        if let anchor = movie.anchorFrame, movie.startState != nil { header.append("anchor \(anchor)") }
        if movie.hasVerification, let covers = movie.verifyCovers { header.append("verify-covers \(covers.rawValue)") }
        // A log cut short (MovieEngine.truncateVerification): frames from here on carry no hash.
        if movie.hasVerification && movie.ramHashes.count < movie.length {
            header.append("verify-frames \(movie.ramHashes.count)")
        }
        header += movie.extras.map { "extra \($0.key) \($0.value)" }
        header += movie.markers.keys.sorted().map { "marker \($0) \(oneLine(movie.markers[$0]!))" }
        header.append("[input]")
        var out = [UInt8]((header.joined(separator: "\n") + "\n").utf8)
        out.reserveCapacity(out.count + movie.length * (4 + movie.log.ports * (movie.buttons.count + 1) + 10))
        let letters = movie.buttons.map { UInt8(ascii: $0.mnemonic.unicodeScalars.first!) }
        let bits = movie.buttons.map { UInt16(1) << UInt16($0.rawValue) }
        let dot = UInt8(ascii: "."), bar = UInt8(ascii: "|")
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame)
            out.append(flags.contains(.power) ? UInt8(ascii: "p") : flags.contains(.reset) ? UInt8(ascii: "r") : dot)
            out.append(flags.contains(.lag) ? UInt8(ascii: "*") : dot)
            out.append(bar)
            let input = movie.log.input(at: frame)
            for port in 0..<movie.log.ports {
                let mask = input.buttons[port]
                for index in letters.indices { out.append(mask & bits[index] != 0 ? letters[index] : dot) }
                if movie.log.analog {
                    let axes = (0..<4).map { String(input.analog(port: port, axis: $0)) }.joined(separator: ",")
                    out += Array(":\(axes)".utf8)
                }
                out.append(bar)
            }
            if movie.hasVerification, frame < movie.ramHashes.count {
                out += Array(String(format: " %08x", movie.ramHashes[frame]).utf8)
            }
            out.append(UInt8(ascii: "\n"))
        }
        if let state = movie.startState {
            out += Array("[start-state]\n".utf8)
            let encoded = compress(state).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
            out += Array(encoded.utf8)
            out.append(UInt8(ascii: "\n"))
        }
        out += Array("[end]\n".utf8)
        return out
    }

    /// A note on one header line (a line break would end the field).
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    // MARK: Reading

    public static func decode(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        var lines = LineReader(bytes: bytes)
        func fail(_ message: String) -> MovieError { MovieError("\(name):\(lines.lineNumber): \(message)") }
        guard let first = lines.next(), String(decoding: first, as: UTF8.self) == magic else {
            throw MovieError("\(name): not a Retrolua movie (the first line should be '\(magic)')")
        }
        if bytes.last != UInt8(ascii: "\n") && !bytes.suffix(5).elementsEqual("[end]".utf8) {
            throw MovieError("\(name): truncated movie: the file ends in the middle of a line (no [end] line)")
        }
        var fields: [(key: String, value: String)] = []
        var sawInput = false
        while let line = lines.next() {
            let text = String(decoding: line, as: UTF8.self)
            if text == "[input]" { sawInput = true; break }
            if text.isEmpty { continue }
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            fields.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
        }
        guard sawInput else { throw fail("truncated movie: no [input] section") }

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
        let known: Set<String> = [
            "guid", "core", "core-library", "core-version", "system", "content", "content-sha1", "content-identity",
            "content-md5", "option",
            "author", "comment", "rerecords", "start", "ports", "analog", "buttons", "verify", "frames", "extra",
            "verify-covers", "anchor", "verify-frames", "emulator", "marker",
        ]
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
                guard known.contains(key) else { throw MovieError("\(name): unknown header field '\(key)'") }
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

        // The input log, parsed from bytes: a long movie has hundreds of thousands of lines.
        let bits = buttons.map { UInt16(1) << UInt16($0.rawValue) }
        let dot = UInt8(ascii: "."), bar = UInt8(ascii: "|"), space = UInt8(ascii: " ")
        var ended = false, inState = false
        var stateText: [UInt8] = []
        while let line = lines.next() {
            if line.first == UInt8(ascii: "[") {
                let text = String(decoding: line, as: UTF8.self)
                if text == "[end]" { ended = true; break }
                if text == "[start-state]" { inState = true; continue }
                throw fail("unexpected section '\(text)'")
            }
            if inState { stateText += line; continue }
            guard movie.length < frames else { throw fail("more input lines than the header's 'frames \(frames)'") }
            guard line.count >= 3, line[line.startIndex + 2] == bar else {
                throw fail(
                    """
                    expected a frame line like '..|\(String(repeating: ".", count: buttons.count))|', got \
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
            for port in 0..<ports {
                guard let end = line[position...].firstIndex(of: bar) else {
                    throw fail("frame line has fewer than \(ports) controller fields")
                }
                var field = line[position..<end]
                if movie.log.analog {
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
                guard field.count == buttons.count else {
                    throw fail("port \(port + 1) has \(field.count) button columns, the header lists \(buttons.count)")
                }
                var mask: UInt16 = 0
                for (index, character) in field.enumerated() where character != dot && character != space {
                    mask |= bits[index]
                }
                input.buttons[port] = mask
                position = end + 1
            }
            movie.log.set(movie.length, input: input, flags: flags)
            let rest = line[position...]
            if verify == "ram" && movie.length <= hashed {
                let text = String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                guard let hash = UInt32(text, radix: 16) else {
                    throw fail("missing or bad RAM hash '\(text)' (the header says 'verify ram')")
                }
                movie.ramHashes.append(hash)
            } else if !rest.allSatisfy({ $0 == space }) {
                throw fail("unexpected text after the controller fields")
            }
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
        if start == "state" {
            guard !stateText.isEmpty, let compressed = Data(base64Encoded: Data(stateText)) else {
                throw MovieError("\(name): the start state is missing or not base64")
            }
            movie.startState = try decompress([UInt8](compressed), name: name)
        }
        return movie
    }

    /// Reads a movie file of any supported format, chosen by extension (`.rlm`, `.bk2`, `.fm2`; imports
    /// of `.fcm`, `.fmv` and `.vmv`).
    public static func read(path: String) throws(MovieError) -> Movie {
        switch (path as NSString).pathExtension.lowercased() {
        case "bk2":
            do { _ = try BoundedFile.size(path) } catch { throw movieError(path, error) }
            return try BK2.read(path: path)
        case "fm2": return try FM2.decode(try contents(path), name: path)
        case "fcm": return try LegacyMovies.decodeFCM(try contents(path), name: path)
        case "fmv": return try LegacyMovies.decodeFMV(try contents(path), name: path)
        case "vmv": return try LegacyMovies.decodeVMV(try contents(path), name: path)
        default: return try decode(try contents(path), name: path)
        }
    }

    /// Writes a movie durably in the format its extension names.
    public static func write(_ movie: Movie, to path: String) throws(MovieError) {
        let bytes: [UInt8]
        switch (path as NSString).pathExtension.lowercased() {
        case "bk2": bytes = try BK2.encode(movie)
        case "fm2": bytes = try FM2.encode(movie)
        default: bytes = encode(movie)
        }
        do { try DurableFile.write(bytes, to: path) } catch { throw MovieError("\(error)") }
    }

    static func contents(_ path: String) throws(MovieError) -> [UInt8] {
        do { return try BoundedFile.read(path, limit: maxFileSize) } catch { throw movieError(path, error) }
    }

    private static func movieError(_ path: String, _ error: BoundedFile.Failure) -> MovieError {
        MovieError(
            error.kind == .missing ? "\(path): no such movie" : "\(path): cannot read the movie: \(error.reason)")
    }

    // MARK: Start state compression

    static func compress(_ bytes: [UInt8]) -> Data {
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let length = out.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { ZSTD_compress(dst.baseAddress, dst.count, $0.baseAddress, $0.count, 3) }
        }
        precondition(ZSTD_isError(length) == 0, "zstd compression failed")
        return Data(out[0..<length])
    }

    static func decompress(_ bytes: [UInt8], name: String) throws(MovieError) -> [UInt8] {
        let size = bytes.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        guard size != ZSTD_CONTENTSIZE_ERROR, size != ZSTD_CONTENTSIZE_UNKNOWN, size <= UInt64(maxStateSize) else {
            throw MovieError(
                "\(name): the start state is corrupt (not zstd data of a known size up to \(maxStateSize >> 20) MB)")
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        let length = out.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { ZSTD_decompress(dst.baseAddress, dst.count, $0.baseAddress, $0.count) }
        }
        guard ZSTD_isError(length) == 0, length == Int(size) else {
            throw MovieError("\(name): the start state is corrupt (zstd could not decompress it)")
        }
        return out
    }
}

/// Splits bytes into lines (`\n` or `\r\n`) without copying them.
struct LineReader {
    let bytes: [UInt8]
    var offset = 0
    private(set) var lineNumber = 0

    mutating func next() -> ArraySlice<UInt8>? {
        guard offset < bytes.count else { return nil }
        let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        var line = bytes[offset..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        offset = end + 1
        lineNumber += 1
        return line
    }
}
