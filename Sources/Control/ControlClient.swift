import CRetroShim
import Glibc

/// One connection to the control socket: its unread input (split into lines in one pass), its
/// replies waiting to be sent (never blocking: what the kernel does not take now waits here), and
/// the request it is in the middle of. Nothing here ever waits for the peer.
final class ControlClient {
    let fd: Int32
    /// Shown the token (TCP) or the same user (Unix); until then only `hello` is read.
    var admitted: Bool
    /// A request running in slices between other clients' turns (a long `step`); its reply's bytes.
    var work: (() -> [UInt8]?)?
    /// Switched to the binary door: requests are framed by their header, replies are raw bytes.
    var door: ControlBinaryDoor?
    /// Send what is queued, then close: a refusal that ends the connection.
    private(set) var closing = false
    /// The peer finished sending: serve its complete lines, then close.
    var ended = false
    private(set) var isClosed = false
    /// A file descriptor the peer passed with its bytes (the batch door's memory), until a request takes
    /// it; a newer one replaces it (the older is closed: a peer cannot make the host hoard descriptors).
    private var receivedDescriptor: Int32 = -1

    private var input: [UInt8] = []
    /// Where the next line starts in `input`.
    private var lineStart = 0
    /// `input[lineStart..<scanned]` holds no newline: each byte is looked at once.
    private var scanned = 0
    private var output: [UInt8] = []
    private var sent = 0

    /// When it connected (monotonic seconds): a connection that shows no token in time is dropped.
    let connectedAt: Double
    /// What its requests said it is doing (`activity`), which ends when it closes.
    let connection = ControlConnection()

    init(fd: Int32, admitted: Bool, connectedAt: Double) {
        self.fd = fd
        self.admitted = admitted
        self.connectedAt = connectedAt
    }

    /// Bytes received and not yet handed out as lines.
    var bufferedInput: Int { input.count - lineStart }
    /// Bytes of replies the peer has not taken yet.
    var queuedOutput: Int { output.count - sent }
    /// Reading more waits until the lines already here are served (keeps each client's input small).
    var wantsInput: Bool { !isClosed && !closing && !ended && work == nil && !hasCompleteLine }
    var hasCompleteLine: Bool { door == nil ? scanForNewline() != nil : messageEnd() != nil }
    /// Has a slice or a request to run now.
    var hasTurn: Bool { !isClosed && !closing && (work != nil || hasCompleteLine) }
    /// Gone, or done with everything it asked for.
    var isFinished: Bool {
        isClosed || (closing && queuedOutput == 0) || (ended && !hasTurn && queuedOutput == 0)
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        if lineStart > 0 && lineStart >= input.count / 2 {
            // Compacting only once half is consumed keeps the copying linear overall.
            input.removeSubrange(0..<lineStart)
            scanned -= lineStart
            lineStart = 0
        }
        input.append(contentsOf: bytes)
    }

    /// The next complete line (without its newline), if one has arrived.
    func nextLine() -> ArraySlice<UInt8>? {
        guard let newline = scanForNewline() else { return nil }
        let line = input[lineStart..<newline]
        lineStart = newline + 1
        scanned = lineStart
        return line
    }

    /// The next binary request (header and payload), once all of it has arrived.
    func nextMessage() -> ArraySlice<UInt8>? {
        guard let end = messageEnd() else { return nil }
        let message = input[lineStart..<end]
        lineStart = end
        scanned = lineStart
        return message
    }

    /// The payload length the next binary request's header declares (nil: not binary, or no header yet).
    var declaredPayload: Int? {
        door == nil ? nil : ControlBinaryProtocol.Request.payloadLength(input[lineStart...])
    }

    private func messageEnd() -> Int? {
        guard let payload = ControlBinaryProtocol.Request.payloadLength(input[lineStart...]) else { return nil }
        let end = lineStart &+ ControlBinaryProtocol.requestSize &+ payload
        return end <= input.count ? end : nil
    }

    private func scanForNewline() -> Int? {
        if scanned < lineStart { scanned = lineStart }
        guard scanned < input.count else { return nil }
        let found = input.withUnsafeBytes { raw -> Int? in
            let from = raw.baseAddress! + scanned
            guard let hit = memchr(from, Int32(UInt8(ascii: "\n")), raw.count - scanned) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(raw.baseAddress!)
        }
        scanned = found ?? input.count
        return found
    }

    /// Queues a reply line and sends what the kernel takes now.
    func queue(_ reply: String) { queue(bytes: Array(reply.utf8) + [UInt8(ascii: "\n")]) }

    /// Queues reply bytes as they are (the binary door's) and sends what the kernel takes now.
    func queue(bytes: [UInt8]) {
        guard !isClosed else { return }
        if sent > 0 && sent >= output.count / 2 {
            output.removeSubrange(0..<sent)
            sent = 0
        }
        output.append(contentsOf: bytes)
        flush()
    }

    /// Queues a last reply; the connection closes once it is sent.
    func refuse(_ reply: String) {
        queue(reply)
        closing = true
        if queuedOutput == 0 { close() }
    }

    /// Queues a last binary reply; the connection closes once it is sent.
    func refuse(bytes reply: [UInt8]) {
        queue(bytes: reply)
        closing = true
        if queuedOutput == 0 { close() }
    }

    /// Sends without waiting; a peer that is gone or broken is closed.
    func flush() {
        while sent < output.count && !isClosed {
            let written = output.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                sent += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else {
                close()
            }
        }
        if closing && queuedOutput == 0 { close() }
    }

    /// Reads what has arrived (up to `limit` bytes); false at end of input or on an error.
    func receive(into buffer: inout [UInt8], limit: Int) -> Bool {
        var total = 0
        while total < limit {
            var descriptor: Int32 = -1
            let count = buffer.withUnsafeMutableBytes {
                rs_recv_with_descriptor(fd, $0.baseAddress!, $0.count, &descriptor)
            }
            if descriptor >= 0 {
                if receivedDescriptor >= 0 { Glibc.close(receivedDescriptor) }
                receivedDescriptor = descriptor
            }
            if count > 0 {
                buffer.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                total += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
            return false
        }
        return true
    }

    /// The descriptor the peer passed last, now the caller's to close (-1: none came).
    func takeDescriptor() -> Int32 {
        defer { receivedDescriptor = -1 }
        return receivedDescriptor
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        if receivedDescriptor >= 0 { Glibc.close(takeDescriptor()) }
        work = nil
        Glibc.close(fd)
        input = []
        output = []
        sent = 0
        lineStart = 0
        scanned = 0
        connection.end()
    }
}
