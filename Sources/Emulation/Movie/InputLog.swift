import Libretro

/// What happened at the start of a movie frame besides input, and what the frame turned out to be.
public struct MovieFrameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The frame starts with a soft reset (the console's reset button).
    public static let reset = MovieFrameFlags(rawValue: 1)
    /// The frame starts with a power cycle (battery save RAM kept).
    public static let power = MovieFrameFlags(rawValue: 2)
    /// The core did not poll input during the frame (an outcome, logged for information and checks).
    public static let lag = MovieFrameFlags(rawValue: 4)

    public static let commands: MovieFrameFlags = [.reset, .power]
}

/// A movie's input, one fixed-size record per frame in one flat buffer: appending a frame while
/// recording, reading one while playing and copying a prefix into a savestate are all memcpy-cheap.
///
/// Record layout: flags (1 byte), then per port the button mask (u16 little-endian), then, when the
/// log has analog input, per port four i16 axes (left x, left y, right x, right y).
public struct InputLog: Sendable, Equatable {
    public let ports: Int
    public let analog: Bool
    public let stride: Int
    public private(set) var bytes: [UInt8] = []

    public init(ports: Int, analog: Bool) {
        precondition((1...InputState.maxPorts).contains(ports))
        self.ports = ports
        self.analog = analog
        stride = 1 + ports * 2 + (analog ? ports * 8 : 0)
    }

    /// A log over `bytes` in this layout; nil when the length is not a whole number of records.
    public init?(ports: Int, analog: Bool, bytes: [UInt8]) {
        guard (1...InputState.maxPorts).contains(ports) else { return nil }
        self.init(ports: ports, analog: analog)
        guard bytes.count % stride == 0 else { return nil }
        self.bytes = bytes
    }

    public var count: Int { bytes.count / stride }

    public func flags(at frame: Int) -> MovieFrameFlags { MovieFrameFlags(rawValue: bytes[frame * stride]) }

    public func input(at frame: Int) -> InputState {
        var state = InputState()
        bytes.withUnsafeBytes { raw in
            let base = frame * stride + 1
            for port in 0..<ports {
                state.buttons[port] = UInt16(
                    littleEndian: raw.loadUnaligned(fromByteOffset: base + port * 2, as: UInt16.self))
            }
            guard analog else { return }
            let axes = base + ports * 2
            for port in 0..<ports {
                for axis in 0..<4 {
                    state.setAnalog(
                        port: port, axis: axis,
                        Int16(
                            littleEndian: raw.loadUnaligned(
                                fromByteOffset: axes + (port * 4 + axis) * 2, as: Int16.self)))
                }
            }
        }
        return state
    }

    /// Writes frame `frame` (at most `count`: one past the end appends).
    public mutating func set(_ frame: Int, input: InputState, flags: MovieFrameFlags) {
        precondition(frame <= count)
        if frame == count { bytes.append(contentsOf: repeatElement(0, count: stride)) }
        let base = frame * stride
        bytes.withUnsafeMutableBytes { raw in
            raw[base] = flags.rawValue
            for port in 0..<ports {
                raw.storeBytes(of: input.buttons[port].littleEndian, toByteOffset: base + 1 + port * 2, as: UInt16.self)
            }
            guard analog else { return }
            let axes = base + 1 + ports * 2
            for port in 0..<ports {
                for axis in 0..<4 {
                    raw.storeBytes(
                        of: input.analog(port: port, axis: axis).littleEndian,
                        toByteOffset: axes + (port * 4 + axis) * 2, as: Int16.self)
                }
            }
        }
    }

    /// Appends `frames` copies of the last record (imports that hold the same input for long spans).
    public mutating func repeatLast(_ frames: Int) {
        guard frames > 0, count > 0 else { return }
        let record = Array(bytes[(count - 1) * stride..<count * stride])
        bytes.reserveCapacity(bytes.count + frames * stride)
        for _ in 0..<frames { bytes.append(contentsOf: record) }
    }

    public mutating func setFlags(_ frame: Int, _ flags: MovieFrameFlags) { bytes[frame * stride] = flags.rawValue }

    /// Keeps the first `frames` frames.
    public mutating func truncate(to frames: Int) {
        guard frames < count else { return }
        bytes.removeSubrange(max(0, frames) * stride..<bytes.count)
    }

    /// The first `frames` frames' records (for savestates and branches).
    public func prefix(_ frames: Int) -> ArraySlice<UInt8> { bytes[0..<min(frames, count) * stride] }

    /// True when this log's first `frames` records equal `other`'s.
    public func hasPrefix(_ other: ArraySlice<UInt8>) -> Bool {
        other.count <= bytes.count && bytes[0..<other.count].elementsEqual(other)
    }

    /// Records equal apart from the lag flag (an outcome, not input).
    public func sameInput(_ frame: Int, as other: InputLog, _ otherFrame: Int) -> Bool {
        let mine = bytes[frame * stride..<(frame + 1) * stride],
            theirs = other.bytes[otherFrame * stride..<(otherFrame + 1) * stride]
        return mine.first! & ~MovieFrameFlags.lag.rawValue == theirs.first! & ~MovieFrameFlags.lag.rawValue
            && mine.dropFirst().elementsEqual(theirs.dropFirst())
    }
}
