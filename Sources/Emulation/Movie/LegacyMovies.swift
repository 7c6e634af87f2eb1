import Foundation
import Libretro

/// Imports of the NES movie formats TASers still hold (read only; export goes to `.rlm`, `.fm2` or
/// `.bk2`): FCE Ultra's `.fcm` (a stream of button toggles with frame deltas), Famtasia's `.fmv`
/// and VirtuaNES's `.vmv` (one byte per controller per frame). Layouts as TASVideos documents them. Both start from power-on
/// only: a movie that starts from the other emulator's savestate cannot be used here. Every offset and
/// count is checked against the file before it is used.
public enum LegacyMovies {
    /// The most frames an import may claim (about 46 hours at 60 fps).
    public static let maxFrames = 10_000_000

    /// FCEU's and Famtasia's controller bits, in each format's order, as RetroPad buttons.
    static let fcmBits: [RetroPadButton] = [.a, .b, .select, .start, .up, .down, .left, .right]
    static let fmvBits: [RetroPadButton] = [.right, .left, .up, .down, .b, .a, .select, .start]

    /// `.fcm` (version 2): header, author text, an FCEU savestate (unused for power-on movies), then the
    /// controller stream: `dLLjjbbb` — a command (d set; 1 reset, 2 power) or a toggle of button bbb of
    /// pad jj — after LL bytes of "frames since the last event".
    /// `frameLimit` lowers `maxFrames` (the fuzzer's, so that one input cannot cost a second).
    public static func decodeFCM(
        _ bytes: [UInt8], name: String, frameLimit: Int = maxFrames
    ) throws(MovieError)
        -> Movie
    {
        func fail(_ why: String) -> MovieError { MovieError("\(name): not a usable .fcm movie: \(why)") }
        guard bytes.count >= 0x34, bytes.starts(with: [0x46, 0x43, 0x4D, 0x1A]) else {
            throw fail("no FCM signature (46 43 4D 1A) and 52-byte header")
        }
        guard word(bytes, 4) == 2 else { throw fail("version \(word(bytes, 4)); only version 2 is documented") }
        guard bytes[8] & 0x02 != 0 else {
            throw fail("it starts from an FCEU savestate, which cannot be loaded here (only power-on movies can)")
        }
        let frames = Int(word(bytes, 0x0C)), rerecords = Int(word(bytes, 0x10))
        let dataLength = Int(word(bytes, 0x14)), stateOffset = Int(word(bytes, 0x18))
        let dataOffset = Int(word(bytes, 0x1C))
        guard frames <= frameLimit else { throw fail("it claims \(frames) frames (at most \(frameLimit))") }
        guard dataOffset <= bytes.count, dataLength <= bytes.count - dataOffset else {
            throw fail("its controller data (\(dataLength) bytes at \(dataOffset)) runs past the file's end")
        }
        // The ROM's name, NUL-terminated, then the author text up to the savestate.
        let limit = max(0x34, min(stateOffset, bytes.count))
        let nameEnd = bytes[0x34..<limit].firstIndex(of: 0) ?? limit
        let romName = String(decoding: bytes[0x34..<nameEnd], as: UTF8.self)
        let author = cString(bytes, from: nameEnd + 1, to: limit)

        var movie = nesMovie(ports: 4, rerecords: rerecords, content: romName, author: author)
        movie.contentMD5 = bytes[0x20..<0x30].map { String(format: "%02x", $0) }.joined()
        var pads = [UInt8](repeating: 0, count: 4)
        var pending: MovieFrameFlags = []
        func emit(_ count: Int) {
            guard count > 0 else { return }
            var input = InputState()
            for port in 0..<4 { input.buttons[port] = mask(pads[port], fcmBits) }
            movie.log.set(movie.length, input: input, flags: pending)
            pending = []
            if count > 1 {
                movie.log.set(movie.length, input: input, flags: [])
                movie.log.repeatLast(count - 2)
            }
        }
        var position = dataOffset
        let end = dataOffset + dataLength
        while position < end {
            let update = bytes[position]
            let length = Int(update >> 5) & 3
            guard length <= end - position - 1 else { throw fail("a command at byte \(position) is cut off") }
            var delta = 0
            for index in 0..<length { delta |= Int(bytes[position + 1 + index]) << (8 * index) }
            position += 1 + length
            guard delta <= frames - movie.length else {
                throw fail("its controller data runs past the \(frames) frames the header claims")
            }
            emit(delta)
            if update & 0x80 != 0 {
                switch update & 0x1F {
                case 1: pending.insert(.reset)
                case 2: pending.insert(.power)
                default: break  // 0: a dummy update; others are FDS and VS commands, not kept
                }
            } else {
                pads[Int(update >> 3) & 3] ^= 1 << (update & 7)
            }
        }
        emit(frames - movie.length)
        return trimmedPorts(movie)
    }

    /// `.fmv`: a 144-byte header (flags, rerecords, emulator and title strings), then per frame one byte
    /// per controller in use (bits: right, left, up, down, B, A, select, start).
    public static func decodeFMV(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        func fail(_ why: String) -> MovieError { MovieError("\(name): not a usable .fmv movie: \(why)") }
        guard bytes.count >= 0x90, bytes.starts(with: [0x46, 0x4D, 0x56, 0x1A]) else {
            throw fail("no FMV signature (46 4D 56 1A) and 144-byte header")
        }
        guard bytes[4] & 0x80 == 0 else {
            throw fail("it starts from a Famtasia savestate, which cannot be loaded here (only reset-based movies can)")
        }
        guard bytes[5] & 0x20 == 0 else { throw fail("it is a Famicom Disk System recording (not supported)") }
        let pads = (bytes[5] & 0x80 != 0 ? [0] : []) + (bytes[5] & 0x40 != 0 ? [1] : [])
        guard !pads.isEmpty else { throw fail("it records no controller") }
        let frames = (bytes.count - 0x90) / pads.count
        guard frames <= maxFrames else { throw fail("it holds \(frames) frames (at most \(maxFrames))") }
        var movie = nesMovie(
            ports: 2, rerecords: Int(word(bytes, 0x0A)), content: "",
            author: cString(bytes, from: 0x50, to: 0x90))
        let emulator = cString(bytes, from: 0x10, to: 0x50)
        if !emulator.isEmpty { movie.comments.append("recorded with \(emulator)") }
        for frame in 0..<frames {
            var input = InputState()
            for (slot, port) in pads.enumerated() {
                input.buttons[port] = mask(bytes[0x90 + frame * pads.count + slot], fmvBits)
            }
            movie.log.set(frame, input: input, flags: [])
        }
        return movie
    }

    /// `.vmv` (VirtuaNES 0.93, movie version 0x0400, reset-based): a 64-byte header, then per frame one
    /// byte per controller in use (bits: A, B, select, start, up, down, left, right). A byte of 0xF0 or
    /// more (all four directions, which no pad can press) starts a command before the controller's
    /// byte: F0 `c 0` is NES command c (1 hardware reset: a power cycle here, 2 soft reset), F0 `v n`
    /// (n ≠ 0) sets an expansion controller, F3 carries four bytes of sync data, others stand alone.
    public static func decodeVMV(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie {
        func fail(_ why: String) -> MovieError { MovieError("\(name): not a usable .vmv movie: \(why)") }
        guard bytes.count >= 0x40, bytes.starts(with: Array("VirtuaNES MV".utf8)) else {
            throw fail("no \"VirtuaNES MV\" signature and 64-byte header")
        }
        let version = Int(bytes[0x0C]) | Int(bytes[0x0D]) << 8, flags = bytes[0x10]
        guard version == 0x0400 else {
            throw fail(String(format: "movie version %04X; only 0400 (VirtuaNES 0.93) can start from reset", version))
        }
        guard flags & 0x40 != 0 else {
            throw fail(
                "it starts from a VirtuaNES savestate, which cannot be loaded here (only reset-based movies can)")
        }
        let pads = (0..<4).filter { flags & (1 << $0) != 0 }
        guard !pads.isEmpty else { throw fail("it records no controller") }
        let frames = Int(word(bytes, 0x38)), dataOffset = Int(word(bytes, 0x34))
        guard frames <= maxFrames else { throw fail("it claims \(frames) frames (at most \(maxFrames))") }
        guard dataOffset >= 0x40, dataOffset <= bytes.count else {
            throw fail("its controller data offset \(dataOffset) is outside the file (64…\(bytes.count))")
        }
        let ports = pads.contains { $0 >= 2 } ? 4 : 2
        var movie = nesMovie(ports: ports, rerecords: Int(word(bytes, 0x1C)), content: "", author: "")
        movie.comments.append(String(format: "VirtuaNES PRG ROM CRC32 %08X", word(bytes, 0x14)))
        if bytes[0x23] == 1 { movie.comments.append("recorded on a PAL NES (50 Hz)") }
        var position = dataOffset
        for frame in 0..<frames {
            var input = InputState()
            var flags: MovieFrameFlags = []
            for port in pads {
                while position < bytes.count, bytes[position] >= 0xF0 {
                    let command = bytes[position]
                    let length = command == 0xF0 ? 2 : command == 0xF3 ? 4 : 0
                    guard length <= bytes.count - position - 1 else {
                        throw fail("a command at byte \(position) (frame \(frame)) is cut off")
                    }
                    if command == 0xF0, bytes[position + 2] == 0 {
                        if bytes[position + 1] == 1 { flags.insert(.power) }
                        if bytes[position + 1] == 2 { flags.insert(.reset) }
                    }
                    position += 1 + length
                }
                // A file cut short keeps its whole frames (as other importers do), and says so.
                guard position < bytes.count else {
                    movie.comments.append("the header claims \(frames) frames; the data holds \(frame)")
                    return movie
                }
                input.buttons[port] = mask(bytes[position], fcmBits)
                position += 1
            }
            movie.log.set(frame, input: input, flags: flags)
        }
        return movie
    }

    private static func nesMovie(ports: Int, rerecords: Int, content: String, author: String) -> Movie {
        var movie = Movie(ports: ports)
        movie.system = "Nintendo Entertainment System"
        movie.buttons = FM2.nesButtons
        movie.rerecords = rerecords
        movie.contentName = content
        movie.author = author
        return movie
    }

    /// Two ports unless pads 3 or 4 were ever pressed (FCEU logs four): records of flags and four u16
    /// masks cut to flags and two, byte by byte (an import may hold millions of frames).
    private static func trimmedPorts(_ movie: Movie) -> Movie {
        let four = movie.log.bytes, stride = movie.log.stride
        let usesFour = Swift.stride(from: 0, to: four.count, by: stride).contains { (base: Int) -> Bool in
            four[(base + 5)..<(base + 9)].contains { $0 != 0 }
        }
        guard !usesFour else { return movie }
        var two: [UInt8] = []
        two.reserveCapacity(four.count / stride * 5)
        for base in Swift.stride(from: 0, to: four.count, by: stride) { two += four[base..<base + 5] }
        var trimmed = movie
        trimmed.log = InputLog(ports: 2, analog: false, bytes: two)!
        return trimmed
    }

    private static func mask(_ byte: UInt8, _ order: [RetroPadButton]) -> UInt16 {
        var mask: UInt16 = 0
        for (bit, button) in order.enumerated() where byte & (1 << bit) != 0 { mask |= 1 << UInt16(button.rawValue) }
        return mask
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32($1 * 8) }
    }

    /// The NUL-terminated text at `from` (stopping at `to`), as UTF-8 with bad bytes replaced.
    private static func cString(_ bytes: [UInt8], from: Int, to: Int) -> String {
        guard from < to, from < bytes.count else { return "" }
        let field = bytes[from..<min(to, bytes.count)]
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}
