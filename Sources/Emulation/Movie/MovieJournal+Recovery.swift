import Foundation

/// Turning a journal left by a recording that did not finish into a movie (`retrolua movie recover`).
extension MovieJournal {
    public struct Recovery: Sendable {
        public var movie: Movie
        /// Why the journal was read only up to some line (a torn or damaged end), if it was.
        public var note: String?
    }

    /// Replays the journal at `path`: its header movie, then its lines. A torn or damaged end (a kill
    /// in the middle of a write, a power loss) ends the recovery there, with a note; a damaged header
    /// is an error.
    public static func recover(path: String) throws(MovieError) -> Recovery {
        let bytes = try MovieText.contents(path)
        let magicLine = Array((magic + "\n").utf8)
        guard bytes.starts(with: magicLine) else {
            throw MovieError("\(path): not a Retrolua movie journal (the first line should be '\(magic)')")
        }
        let endLine = Array("\n[end]\n".utf8)
        guard let headerEnd = firstRange(of: endLine, in: bytes, from: magicLine.count) else {
            throw MovieError("\(path): the journal's header is incomplete (no [end] line): nothing to recover")
        }
        var movie = try MovieText.decode(Array(bytes[magicLine.count..<headerEnd]), name: path)
        let stride = movie.log.stride
        var log = movie.log.bytes
        var hashes: [UInt32?] = movie.ramHashes.map { $0 }
        hashes += Array(repeating: nil, count: max(0, movie.length - hashes.count))
        var note: String?
        var lineNumber = bytes[..<headerEnd].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } + 1
        var start = headerEnd
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                note = "line \(lineNumber) is torn (the recording stopped in the middle of a write); left out"
                break
            }
            let text = String(decoding: bytes[start..<newline], as: UTF8.self)
            if let problem = apply(text, to: &log, hashes: &hashes, rerecords: &movie.rerecords, stride: stride) {
                note = "line \(lineNumber): \(problem); the journal is read up to there"
                break
            }
            start = newline + 1
            lineNumber += 1
        }
        guard let recovered = InputLog(ports: movie.log.ports, analog: movie.log.analog, bytes: log) else {
            throw MovieError("\(path): the journal's frames do not fit its header")
        }
        movie.log = recovered
        movie.ramHashes = Array(hashes.prefix { $0 != nil }.map { $0! })
        movie.buttons = movie.coveredButtons()
        return Recovery(movie: movie, note: note)
    }

    /// One journal line applied; a problem when it is not a line the journal writes.
    private static func apply(
        _ line: String, to log: inout [UInt8], hashes: inout [UInt32?], rerecords: inout Int, stride: Int
    ) -> String? {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        let frames = log.count / stride
        guard let kind = words.first, words.count >= 2, let number = Int(words[1]), number >= 0 else {
            return "not a journal line ('\(line.prefix(40))')"
        }
        switch (kind, words.count) {
        case ("t", 2):
            guard number <= frames else { return "truncation to frame \(number) past the end (\(frames))" }
            log.removeSubrange((number * stride)...)
            hashes.removeSubrange(number...)
        case ("h", 2):
            for index in number..<max(number, hashes.count) { hashes[index] = nil }
        case ("r", 2):
            rerecords = number
        case ("f", 3), ("f", 4):
            guard number <= frames else { return "frame \(number) after the end (\(frames))" }
            guard let record = bytes(hex: words[2]), record.count == stride else {
                return "frame \(number): the record is not \(stride) bytes of hex"
            }
            var hash: UInt32?
            if words.count == 4 {
                guard let value = UInt32(words[3], radix: 16) else { return "frame \(number): bad RAM hash" }
                hash = value
            }
            if number == frames {
                log += record
                hashes.append(hash)
            } else {
                log.replaceSubrange(number * stride..<(number + 1) * stride, with: record)
                hashes[number] = hash
            }
        default:
            return "not a journal line ('\(line.prefix(40))')"
        }
        return nil
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Index just past the first `needle` in `haystack` from `from` (the needle's trailing newline included).
    private static func firstRange(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count, from >= 1 else { return nil }
        var index = from - 1  // The header's first line may itself be "[end]"-adjacent: include its newline.
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0] && haystack[index..<index + needle.count].elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        return nil
    }
}
