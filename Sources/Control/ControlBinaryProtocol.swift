/// The binary door's framing (after `{"cmd": "binary"}` on a Unix socket): fixed little-endian
/// headers, bulk data in the shared region. Requests are 32 bytes and a payload; replies are 72
/// bytes and, for an error, its UTF-8 message (after a step, the scenario's `info()` as JSON).
/// The headers' fields: ControlBinaryLayout (python/retrolua/_layout.py spells them too); the commands and flags:
/// python/retrolua/_protocol.py and docs/guides/control-socket.md ("The binary door").
enum ControlBinaryProtocol {
    static let version = 1
    static let requestSize = ControlBinaryLayout.Request.size
    static let replySize = ControlBinaryLayout.Reply.size
    /// The largest `info()` a step reply carries (JSON after the header, its length in the message field).
    static let maxInfo = ControlBinaryLayout.Lane.maxInfo

    enum Command: UInt32 {
        case step = 1, screen, read, write, saveState, loadState, audio, reset, quit, snapshot, restore, forget, movie
        case preprocess, batch
    }

    /// `step` flags: what to write into the shared region once the frames have run.
    static let stepScreen: UInt32 = 1
    static let stepRAM: UInt32 = 2
    /// `step` flags of a processed step (after `preprocess`): the configured frame skip with sticky
    /// actions, the processed observation written in place of the screen; an episode's start (no-op
    /// frames, the stack filled); and a new seed (`a`) for the generator first.
    static let stepProcessed: UInt32 = 4
    static let stepEpisode: UInt32 = 8
    static let stepSeed: UInt32 = 0x1000
    /// `saveState` flag: also keep the state as snapshot `a` (0: a new one), so that loading the same
    /// bytes back can be a `restore` (the client knows when its bytes are unchanged; the host cannot).
    static let saveKeep: UInt32 = 1
    /// `movie` flags: start recording from the current state to the payload's path (`.rlm`, `.bk2`,
    /// `.fm2`: by extension; never over a file), or stop (the recording is written).
    static let movieRecord: UInt32 = 1
    static let movieStop: UInt32 = 2

    /// A request header: `command, flags, payload length, count` (u32) then `a, b` (u64).
    struct Request {
        let command: UInt32
        let flags: UInt32
        let count: UInt32
        let a: UInt64
        let b: UInt64
        let payload: ArraySlice<UInt8>

        /// Reads a complete message (the client's framing guarantees header + payload are here).
        init(_ message: ArraySlice<UInt8>) {
            let start = message.startIndex
            func field(_ field: WireField) -> UInt64 {
                (0..<field.size).reduce(UInt64(0)) { $0 | UInt64(message[start + field.offset + $1]) << UInt64($1 * 8) }
            }
            typealias Header = ControlBinaryLayout.Request
            command = UInt32(truncatingIfNeeded: field(Header.command))
            flags = UInt32(truncatingIfNeeded: field(Header.flags))
            count = UInt32(truncatingIfNeeded: field(Header.count))
            a = field(Header.a)
            b = field(Header.b)
            payload = message[(start + requestSize)...]
        }

        /// The payload length a header declares (nil until the header is complete).
        static func payloadLength(_ bytes: ArraySlice<UInt8>) -> Int? {
            guard bytes.count >= requestSize else { return nil }
            let length = ControlBinaryLayout.Request.length
            let start = bytes.startIndex + length.offset
            return (0..<length.size).reduce(0) { $0 | Int(bytes[start + $1]) << ($1 * 8) }
        }
    }

    /// A reply's fields (those a command does not use stay 0).
    struct Reply {
        var frame = 0, frames = 0, lag = 0, done = 0, width = 0, height = 0, length = 0
        var reward = 0.0

        func encoded(status: UInt32 = 0, message: [UInt8] = []) -> [UInt8] {
            typealias Header = ControlBinaryLayout.Reply
            var bytes = [UInt8](repeating: 0, count: replySize)
            bytes.reserveCapacity(replySize + message.count)
            func put<T: FixedWidthInteger>(_ value: T, _ field: WireField) {
                withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(field.offset..<field.end, with: $0) }
            }
            put(status, Header.status)
            put(UInt32(truncatingIfNeeded: message.count), Header.length)
            put(Int64(frame), Header.frame)
            put(Int64(frames), Header.frames)
            put(Int64(lag), Header.lag)
            put(Int64(done), Header.done)
            put(Int64(width), Header.width)
            put(Int64(height), Header.height)
            put(Int64(length), Header.bytes)
            put(reward.bitPattern, Header.reward)
            return bytes + message
        }
    }

    /// An error reply: status 1 and the message (the connection stays usable).
    static func error(_ message: String) -> [UInt8] {
        Reply().encoded(status: 1, message: Array(message.utf8.prefix(4096)))
    }
}
