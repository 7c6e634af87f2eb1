import Foundation

/// Turning a journal left by a recording that did not finish into a movie (`retrolua movie recover`).
extension MovieJournal {
    public struct Recovery: Sendable {
        public var movie: Movie
        /// Each line that could not be read whole, by its number and why; the recovery goes on past it.
        public var problems: [String] = []
        /// Frames whose lines could not be read: left empty (no buttons), so the frames after them keep
        /// their place.
        public var emptyFrames: [ClosedRange<Int>] = []
        /// The journal's lines after its header (a torn last line counted).
        public var lines = 0
        /// Every line of the journal was read and applied: nothing was lost.
        public var exact: Bool { problems.isEmpty }
        /// The problems on one line (nil when there were none).
        public var note: String? { problems.isEmpty ? nil : problems.joined(separator: "; ") }
    }

    /// What one journal line did.
    private enum Applied {
        case done
        /// The frame was kept, part of its line was not.
        case partly(String)
        case refused(String)
    }

    /// Replays the journal at `path`: its header movie, then its lines. A line that cannot be read (a
    /// damaged disk, a stray write) is reported and skipped, and the recovery goes on at the next line:
    /// frames whose lines were lost are left empty so the later ones keep their place; a torn end (a kill in
    /// the middle of a write, a power loss) is reported. A damaged header is an error.
    public static func recover(path: String) throws(MovieError) -> Recovery {
        try recover(bytes: MovieText.contents(path), name: path)
    }

    /// The journal's bytes as `recover(path:)` reads them (`name` in messages): the fuzz target's door.
    public static func recover(bytes: [UInt8], name path: String) throws(MovieError) -> Recovery {
        let magicLine = Array((magic + "\n").utf8)
        guard bytes.starts(with: magicLine) else {
            throw MovieError("\(path): not a Retrolua movie journal (the first line should be '\(magic)')")
        }
        let endLine = Array("\n[end]\n".utf8)
        guard let headerEnd = firstRange(of: endLine, in: bytes, from: magicLine.count) else {
            throw MovieError("\(path): the journal's header is incomplete (no [end] line): nothing to recover")
        }
        var movie = try MovieText.decode(Array(bytes[magicLine.count..<headerEnd]), name: path)
        var state = Replay(log: movie.log.bytes, stride: movie.log.stride, rerecords: movie.rerecords)
        state.hashes = movie.ramHashes.map { $0 }
        state.hashes += Array(repeating: nil, count: max(0, movie.length - state.hashes.count))
        var recovery = Recovery(movie: movie)
        var lineNumber = bytes[..<headerEnd].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } + 1
        var start = headerEnd
        // Bytes of the lines refused since the last one applied: how many frame lines they could have held.
        var skipped = 0
        while start < bytes.count {
            recovery.lines += 1
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                recovery.problems.append(
                    "line \(lineNumber) is torn (the recording stopped in the middle of a write); left out")
                break
            }
            let text = String(decoding: bytes[start..<newline], as: UTF8.self)
            switch state.apply(text, after: skipped) {
            case .done:
                skipped = 0
            case .partly(let problem):
                recovery.problems.append("line \(lineNumber): \(problem)")
                skipped = 0
            case .refused(let problem):
                recovery.problems.append("line \(lineNumber): \(problem); skipped")
                skipped &+= newline - start + 1
            }
            start = newline + 1
            lineNumber += 1
        }
        guard let recovered = InputLog(ports: movie.log.ports, analog: movie.log.analog, bytes: state.log) else {
            throw MovieError("\(path): the journal's frames do not fit its header")
        }
        movie.log = recovered
        movie.rerecords = state.rerecords
        movie.ramHashes = Array(state.hashes.prefix { $0 != nil }.map { $0! })
        movie.buttons = movie.coveredButtons()
        recovery.movie = movie
        recovery.emptyFrames = state.emptied
        return recovery
    }

    /// The movie as the journal's lines rebuild it.
    private struct Replay {
        var log: [UInt8]
        let stride: Int
        var rerecords: Int
        var hashes: [UInt32?] = []
        /// Frames left empty because their lines were lost.
        var emptied: [ClosedRange<Int>] = []
        var frames: Int { log.count / stride }

        /// At most how many frame lines `bytes` of refused lines could have held (the shortest frame line
        /// is "f N " then the record's hex and a newline).
        private func framesIn(_ bytes: Int) -> Int {
            bytes == 0 ? 0 : bytes / (4 + String(frames).utf8.count + 2 * stride) + 1
        }

        /// One journal line applied: the journal writes truncations, rerecord counts, dropped hashes and
        /// frames appended at the end; anything else is refused, never applied.
        mutating func apply(_ line: String, after skipped: Int) -> Applied {
            let words = line.split(separator: " ", omittingEmptySubsequences: false)
            guard let kind = words.first, words.count >= 2, let number = Int(words[1]), number >= 0 else {
                return .refused("not a journal line ('\(shown(line))')")
            }
            switch (kind, words.count) {
            case ("t", 2):
                guard number <= frames else {
                    return .refused("truncation to frame \(number) past the end (\(frames))")
                }
                truncate(to: number)
            case ("h", 2):
                for index in number..<max(number, hashes.count) { hashes[index] = nil }
            case ("r", 2):
                rerecords = number
            case ("f", 3), ("f", 4):
                return frame(number, words, after: skipped)
            default:
                return .refused("not a journal line ('\(shown(line))')")
            }
            return .done
        }

        /// The start of a line as a message shows it: control characters as '?'.
        private func shown(_ line: String) -> String {
            String(
                String.UnicodeScalarView(
                    line.unicodeScalars.prefix(40).map { $0.value < 32 || $0.value == 127 ? "?" : $0 }))
        }

        private mutating func truncate(to frame: Int) {
            log.removeSubrange((frame * stride)...)
            hashes.removeSubrange(min(frame, hashes.count)...)
            emptied = emptied.compactMap { $0.lowerBound < frame ? $0.lowerBound...min($0.upperBound, frame - 1) : nil }
        }

        private mutating func frame(_ number: Int, _ words: [Substring], after skipped: Int) -> Applied {
            let end = frames
            guard let record = MovieJournal.bytes(hex: words[2]), record.count == stride else {
                return .refused("frame \(number): the record is not \(stride) bytes of hex")
            }
            if number < end {
                // The journal only appends: an earlier frame is a truncation whose own line was lost.
                guard skipped > 0 else { return .refused("frame \(number) before the end (\(end))") }
                truncate(to: number)
            } else if number > end {
                guard number - end <= framesIn(skipped) else {
                    return .refused("frame \(number) after the end (\(end))")
                }
                log += repeatElement(0, count: (number - end) * stride)
                hashes += repeatElement(nil, count: number - end)
                emptied.append(end...number - 1)
            }
            log += record
            hashes.append(nil)
            if words.count == 4 {
                guard let value = UInt32(words[3], radix: 16) else {
                    return .partly("frame \(number): bad RAM hash; the frame is kept, the hashes stop before it")
                }
                hashes[number] = value
            }
            return .done
        }
    }

    fileprivate static func bytes(hex: Substring) -> [UInt8]? {
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

    fileprivate static func nibble(_ digit: UInt8) -> UInt8? {
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
