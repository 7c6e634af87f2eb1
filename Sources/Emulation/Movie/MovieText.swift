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
