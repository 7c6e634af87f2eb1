import CRetroShim
import Glibc

/// One emulator's lane in a batch region: memory a vector environment shares with all its emulators
/// (one memory file, passed with the `batch` request), where it writes every emulator's next request
/// and wakes them all at once, and where each writes its reply and its observation (screen, RAM) in
/// place. A batch step is then one wake and one wait for the trainer, whatever the number of
/// emulators, and no observation is copied through a socket.
///
/// Layout (ControlBinaryLayout.Region and .Lane; python/retrolua/_layout.py is the other side): the region's first page holds two futex
/// words, `generation` at 0 (bumped by the trainer after writing requests) and `completed` at 64
/// (bumped by an emulator after a reply), a ticket counter at 128 (the order replies were finished
/// in) and `wake at` at 192: the trainer is woken only once `completed` reaches it (a wake-up costs
/// it more than the step's own work, 50–200 µs on a VM, so the first emulators done do not wake it). A lane's control block, at an offset the request names, holds `request` (u32, the
/// trainer's sequence number) at 0, `done` (u32, the last one answered) at 4, the reply's ticket at 8,
/// the request's length at 12, the request (32-byte header and payload) at 64 and the reply (72-byte
/// header and message) at 1088. Every word from the peer is range-checked; requests are copied out
/// before they are read.
final class ControlBatchLane {
    typealias Layout = ControlBinaryLayout
    static let requestOffset = Layout.Lane.requestArea.offset
    static let maxRequest = Layout.Lane.requestArea.size
    static let replyOffset = Layout.Lane.replyArea.offset
    static let maxReply = Layout.Lane.replyArea.size
    static let controlSize = Layout.Lane.size
    static let headerSize = Layout.Region.size
    /// The `batch` request's payload: the control block's, screen area's and RAM area's offsets (u64),
    /// then the lane's index (u32) and 4 bytes of padding.
    static let payloadSize = Layout.Join.size

    private let base: UnsafeMutableRawPointer
    private let size: Int
    private let control: UnsafeMutableRawPointer
    let screen: UnsafeMutableRawPointer
    let ram: UnsafeMutableRawPointer
    let index: Int
    /// The request being answered (its sequence number), between `takeRequest` and `finish`.
    private var serving: UInt32?

    init(descriptor: Int32, payload: ArraySlice<UInt8>, screenCapacity: Int, ramCapacity: Int) throws(ControlError) {
        defer { Glibc.close(descriptor) }  // the mapping keeps the memory
        guard descriptor >= 0 else {
            throw ControlError("binary batch: no shared memory descriptor came with the request")
        }
        guard payload.count == Self.payloadSize else {
            throw ControlError("binary batch: the payload must be \(Self.payloadSize) bytes, got \(payload.count)")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ControlError("binary batch: the descriptor is not a memory file")
        }
        // A region that can shrink would make a write into it a SIGBUS: only a sealed one is used.
        let seals = fcntl(descriptor, Self.getSeals)  // -1 for a file that is not a memory file
        guard seals >= 0, seals & Self.sealShrink != 0 else {
            throw ControlError("binary batch: the memory file must be sealed against shrinking (F_SEAL_SHRINK)")
        }
        let size = Int(info.st_size)
        let start = payload.startIndex
        func field(_ at: WireField) -> UInt64 {
            (0..<at.size).reduce(UInt64(0)) { $0 | UInt64(payload[start + at.offset + $1]) << UInt64($1 * 8) }
        }
        func area(_ value: UInt64, _ length: Int, _ name: String, alignment: Int) throws(ControlError) -> Int {
            guard let offset = Int(exactly: value), offset >= Self.headerSize, offset % alignment == 0,
                offset <= size, length <= size - offset
            else {
                throw ControlError(
                    "binary batch: the \(name) area at \(value) (\(length) bytes) is not within the \(size)-byte region"
                )
            }
            return offset
        }
        let controlOffset = try area(field(Layout.Join.control), Self.controlSize, "control", alignment: 64)
        let screenOffset = try area(field(Layout.Join.screen), screenCapacity, "screen", alignment: 64)
        let ramOffset = try area(field(Layout.Join.ram), ramCapacity, "RAM", alignment: 64)
        index = Int(field(Layout.Join.index))
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else {
            throw ControlError("binary batch: cannot map the shared memory: \(String(cString: strerror(errno)))")
        }
        base = mapped
        self.size = size
        control = mapped + controlOffset
        screen = mapped + screenOffset
        ram = mapped + ramOffset
    }

    deinit { munmap(base, size) }

    private func word(_ at: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UInt32> {
        at.assumingMemoryBound(to: UInt32.self)
    }
    private var generation: UnsafeMutablePointer<UInt32> { word(base + Layout.Region.generation.offset) }
    private var completed: UnsafeMutablePointer<UInt32> { word(base + Layout.Region.completed.offset) }
    private var tickets: UnsafeMutablePointer<UInt32> { word(base + Layout.Region.tickets.offset) }
    private var wakeAt: UnsafeMutablePointer<UInt32> { word(base + Layout.Region.wakeAt.offset) }
    private var requestWord: UnsafeMutablePointer<UInt32> { word(control + Layout.Lane.request.offset) }
    private var doneWord: UnsafeMutablePointer<UInt32> { word(control + Layout.Lane.done.offset) }
    private var ticketWord: UnsafeMutablePointer<UInt32> { word(control + Layout.Lane.ticket.offset) }
    private var lengthWord: UnsafeMutablePointer<UInt32> { word(control + Layout.Lane.length.offset) }

    /// The request waiting in the lane, copied out (nil when none waits), or why it is refused: a length
    /// outside 32…1024 bytes, or a header whose payload length is not what the lane holds (the header's
    /// is what the door trusts). A refusal is answered like any failed request; the lane goes on.
    func takeRequest() -> Result<[UInt8], ControlError>? {
        let wanted = rs_shared_load(requestWord)
        guard serving == nil, wanted != rs_shared_load(doneWord) else { return nil }
        serving = wanted
        let length = rs_shared_load(lengthWord)
        let size = ControlBinaryProtocol.requestSize
        guard let count = Int(exactly: length), (size...Self.maxRequest).contains(count) else {
            return .failure(
                ControlError(
                    "binary batch: lane \(index)'s request length is \(length) bytes; it must be \(size)…"
                        + "\(Self.maxRequest) (a \(size)-byte header and its payload)"))
        }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: control + Self.requestOffset, count: count))
        let declared = ControlBinaryProtocol.Request.payloadLength(bytes[...]) ?? -1
        guard declared == count - size else {
            return .failure(
                ControlError(
                    "binary batch: lane \(index)'s request header says \(declared) payload bytes, but the lane's "
                        + "length (\(count)) leaves \(count - size)"))
        }
        return .success(bytes)
    }

    /// Writes the reply (its message cut to the lane's room), then marks the request answered and
    /// wakes the trainer: `done` is visible before `completed` changes, so a woken trainer finds it.
    func finish(_ reply: [UInt8]) {
        guard let wanted = serving else { return }
        serving = nil
        var reply = reply
        if reply.count > Self.maxReply {
            reply.removeLast(reply.count - Self.maxReply)
            let length = UInt32(Self.maxReply - ControlBinaryProtocol.replySize)
            let field = Layout.Reply.length
            withUnsafeBytes(of: length.littleEndian) { reply.replaceSubrange(field.offset..<field.end, with: $0) }
        }
        reply.withUnsafeBytes { (control + Self.replyOffset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        rs_shared_store(ticketWord, rs_shared_add(tickets, 1) &+ 1)
        rs_shared_store(doneWord, wanted)
        let now = rs_shared_add(completed, 1) &+ 1
        // Wrapping comparison: the counters run on past 2³², so "reached" is a signed difference ≥ 0.
        if Int32(bitPattern: now &- rs_shared_load(wakeAt)) >= 0 { rs_futex_wake(completed) }
    }

    /// Waits for the trainer's next wake (at most `nanoseconds`), unless a request already waits.
    func waitForRequest(nanoseconds: Int64) {
        let seen = rs_shared_load(generation)
        guard rs_shared_load(requestWord) == rs_shared_load(doneWord) else { return }
        rs_futex_wait(generation, seen, nanoseconds)
    }

    /// Whether a request waits (a look, no waiting).
    var hasRequest: Bool { rs_shared_load(requestWord) != rs_shared_load(doneWord) }

    private static let getSeals: Int32 = 1034  // F_GET_SEALS (F_LINUX_SPECIFIC_BASE + 10)
    private static let sealShrink: Int32 = 0x2
}
