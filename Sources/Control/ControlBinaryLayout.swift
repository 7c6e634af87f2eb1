/// A field of a fixed little-endian layout: where it starts and how many bytes it takes.
struct WireField: Sendable {
    let offset: Int
    let size: Int
    init(_ offset: Int, _ size: Int) {
        self.offset = offset
        self.size = size
    }
    var end: Int { offset + size }
}

/// The binary and batch doors' layouts, spelled once on this side. The other spellings are
/// python/retrolua/_layout.py and Sources/RetroluaBatch/retrolua_batch.c; Tests/python/test_wire_layouts.py
/// reads this file and compares every field's offset and size with theirs (keep one `WireField` a line).
enum ControlBinaryLayout {
    /// A request's header (then its payload).
    enum Request {
        static let command = WireField(0, 4)
        static let flags = WireField(4, 4)
        static let length = WireField(8, 4)
        static let count = WireField(12, 4)
        static let a = WireField(16, 8)
        static let b = WireField(24, 8)
        static let size = 32
    }

    /// A reply's header (then its message).
    enum Reply {
        static let status = WireField(0, 4)
        static let length = WireField(4, 4)
        static let frame = WireField(8, 8)
        static let frames = WireField(16, 8)
        static let lag = WireField(24, 8)
        static let done = WireField(32, 8)
        static let width = WireField(40, 8)
        static let height = WireField(48, 8)
        static let bytes = WireField(56, 8)
        static let reward = WireField(64, 8)
        static let size = 72
    }

    /// The `preprocess` request's payload.
    enum PreprocessOptions {
        static let frameskip = WireField(0, 4)
        static let maxPool = WireField(4, 4)
        static let grayscale = WireField(8, 4)
        static let width = WireField(12, 4)
        static let height = WireField(16, 4)
        static let frameStack = WireField(20, 4)
        static let noopMax = WireField(24, 4)
        static let stickyActions = WireField(28, 8)
        static let seed = WireField(36, 8)
        static let size = 44
    }

    /// The `batch` request's payload: the lane's areas' offsets in the region, and its index.
    enum Join {
        static let control = WireField(0, 8)
        static let screen = WireField(8, 8)
        static let ram = WireField(16, 8)
        static let index = WireField(24, 4)
        static let padding = WireField(28, 4)
        static let size = 32
    }

    /// A batch region's first page: the futex words, each on its own cache line, and the ticket counter.
    enum Region {
        static let generation = WireField(0, 4)
        static let completed = WireField(64, 4)
        static let tickets = WireField(128, 4)
        static let wakeAt = WireField(192, 4)
        static let size = 4096
    }

    /// A lane's control block (its screen and RAM areas are elsewhere, at the offsets `Join` names).
    enum Lane {
        static let request = WireField(0, 4)
        static let done = WireField(4, 4)
        static let ticket = WireField(8, 4)
        static let length = WireField(12, 4)
        static let requestArea = WireField(64, 1024)
        static let replyArea = WireField(1088, 16456)  // a reply header and `maxInfo`
        static let size = 20480
        /// The longest message a reply in a lane carries (a step's `info()` JSON is cut there).
        static let maxInfo = 16384
    }
}
