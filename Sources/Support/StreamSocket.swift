import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking TCP connection for scripts: bytes go through a bounded send buffer (flushed on every
/// call and by the host between frames) and arrive into a bounded receive buffer (when it is full the
/// socket is not read, so the peer meets TCP's back-pressure). Nothing here ever blocks but `wait`, which
/// is bounded. What arrives is untrusted: the connection only bounds it.
public final class StreamConnection {
    public enum State: Equatable, Sendable {
        case connecting, open
        /// Closed here, by the peer, or failed: why, in words.
        case closed(String)
    }

    /// Bytes each buffer may hold.
    public struct Limits: Sendable {
        public var receiveBuffer = 1 << 20
        public var sendBuffer = 1 << 20
        public init() {}
    }

    public let limits: Limits
    private var descriptor: Int32
    private var connecting: Bool
    /// Why the connection ended (failed, or closed here); nil while it can still carry bytes.
    private var ended: String?
    /// The peer sent its last byte (end of stream); what it sent may still be buffered.
    private var peerFinished = false
    /// `close` was asked while bytes were pending: they are flushed, then the socket closes.
    private var closing = false
    /// `shutdownSending` was asked: no more bytes are taken; once the pending ones are out the peer sees the
    /// end of the stream (`sentEnd`), while receiving goes on.
    private var sendingShut = false, sentEnd = false
    /// The connect finished since `isReady(connected:)` last looked: a change of state `wait` reports once.
    private var connectedUnseen = false
    private var incoming = ByteQueue()
    /// Where `recv` writes before the bytes join `incoming` (allocated at the first read).
    private var scratch: [UInt8] = []
    private var outgoing = ByteQueue()
    public let peerAddress: String
    public private(set) var localAddress: String

    /// Starts connecting to `address` (never blocks); a failure the system reports at once throws.
    public init(connectingTo address: sockaddr_storage, limits: Limits = Limits()) throws(SocketFailure) {
        self.limits = limits
        var target = address
        let descriptor = socket(
            Int32(target.ss_family),
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketFailure(errno: errno) }
        let length = SocketAddress.length(of: target)
        let result = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        let error = errno
        guard result == 0 || error == EINPROGRESS else {
            Glibc.close(descriptor)
            throw SocketFailure(errno: error)
        }
        self.descriptor = descriptor
        connecting = result != 0
        peerAddress = SocketAddress.text(of: address)
        localAddress = SocketAddress.local(of: descriptor)
    }

    /// A connection `accept` returned.
    init(accepted descriptor: Int32, peer: sockaddr_storage, limits: Limits) {
        self.limits = limits
        self.descriptor = descriptor
        connecting = false
        peerAddress = SocketAddress.text(of: peer)
        localAddress = SocketAddress.local(of: descriptor)
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Where the connection stands; `.closed` once it failed or was closed here, or once the peer finished
    /// and everything it sent has been read.
    public var state: State {
        if let ended, incoming.isEmpty { return .closed(ended) }
        if connecting { return .connecting }
        if peerFinished && incoming.isEmpty { return .closed("closed by the peer") }
        if ended != nil { return .open }  // failed, but bytes are still to be read
        return .open
    }

    /// Whether the socket itself is gone (nothing more will be sent or received).
    public var isClosed: Bool { descriptor < 0 }

    /// Bytes accepted by `send` and not yet handed to the system.
    public var pending: Int { outgoing.count }

    /// Bytes arrived and not yet taken by `receive`.
    public var buffered: Int { incoming.count }

    /// Moves bytes without waiting: finishes a connect, flushes the send buffer, reads into the receive
    /// buffer while it has room.
    public func pump() {
        guard descriptor >= 0 else { return }
        if connecting {
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, 0) > 0 else { return }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { return fail(error) }
            connecting = false
            connectedUnseen = true
            localAddress = SocketAddress.local(of: descriptor)
        }
        flush()
        fill()
    }

    private func flush() {
        while descriptor >= 0 && !outgoing.isEmpty {
            let sent = outgoing.withFront { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                outgoing.drop(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return fail(sent < 0 ? errno : EPIPE)
            }
        }
        if closing && outgoing.isEmpty { finishClosing() }
        if sendingShut && !sentEnd && descriptor >= 0 && outgoing.isEmpty {
            sentEnd = true
            shutdown(descriptor, Int32(SHUT_WR))
        }
    }

    /// After the last byte: FIN first, and what the peer sent meanwhile read and dropped, so the close is not
    /// a reset (which may make the peer drop the reply it has not read yet).
    private func finishClosing() {
        shutdown(descriptor, Int32(SHUT_WR))
        var discarded = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let count = discarded.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
        }
        release()
    }

    private func fill() {
        while descriptor >= 0 && !peerFinished && incoming.count < limits.receiveBuffer {
            if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 64 << 10) }
            let room = min(scratch.count, limits.receiveBuffer - incoming.count)
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, room, 0) }
            if count > 0 {
                scratch.withUnsafeBytes { incoming.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                continue
            }
            if count == 0 {
                peerFinished = true
            } else if errno == EINTR {
                continue
            } else if errno != EAGAIN && errno != EWOULDBLOCK {
                fail(errno)
            }
            break
        }
    }

    private func fail(_ error: Int32) {
        ended = SocketFailure(errno: error).description
        release()
    }

    private func release() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
        connecting = false
        outgoing.removeAll()
    }

    /// Copies as much of `bytes` as the send buffer has room for and flushes; how many it took (0 when
    /// full), or nil when the connection can no longer send.
    public func send(_ bytes: UnsafeRawBufferPointer) -> Int? {
        pump()
        guard descriptor >= 0, !closing, !sendingShut else { return nil }
        let taken = min(bytes.count, max(0, limits.sendBuffer - outgoing.count))
        outgoing.append(UnsafeRawBufferPointer(rebasing: bytes[0..<taken]))
        if !connecting { flush() }
        return descriptor >= 0 || taken == 0 ? taken : nil
    }

    /// What arrived so far, at most `max` bytes; empty when nothing is waiting (see `state` for whether
    /// more can come).
    public func receive(max: Int = Int.max) -> [UInt8] {
        pump()
        return incoming.take(max)
    }

    /// Whether bytes or the end are waiting now (after a pump), or, with `connected`, a connect finished
    /// since last asked.
    public func isReady(connected: Bool = false) -> Bool {
        pump()
        if connected && connectedUnseen {
            connectedUnseen = false
            return true
        }
        if !incoming.isEmpty { return true }
        if case .closed = state { return true }
        return false
    }

    /// What `poll` should watch for: readable unless the receive buffer is full, writable while connecting
    /// or holding bytes to send.
    var pollEvents: Int16 {
        var events: Int16 = 0
        if !peerFinished && incoming.count < limits.receiveBuffer { events |= Int16(POLLIN) }
        if connecting || !outgoing.isEmpty { events |= Int16(POLLOUT) }
        return events
    }

    var pollDescriptor: Int32 { descriptor }

    /// Waits until bytes or a change of state (connected, closed) are waiting or `milliseconds` (0…1000)
    /// pass; whether they are.
    public func wait(milliseconds: Int) -> Bool {
        SocketSet.wait([.connection(self)], milliseconds: milliseconds, connected: true)[0]
    }

    /// Closes gracefully: bytes still pending are flushed by later pumps (best effort), then the socket
    /// closes; nothing more is received.
    public func close() {
        guard descriptor >= 0 else { return }
        if ended == nil { ended = "closed" }
        incoming.removeAll()
        peerFinished = true
        closing = true
        flush()
    }

    /// A half-close: nothing more is sent; after the pending bytes the peer sees the end of the stream, and
    /// what it sends is still received.
    public func shutdownSending() {
        guard descriptor >= 0, !closing, !sendingShut else { return }
        sendingShut = true
        if !connecting { flush() }
    }

    /// Whether a closed connection still has bytes to flush (the host keeps pumping it).
    public var isLingering: Bool { closing && descriptor >= 0 }

    /// Closes at once, dropping what is pending.
    public func abort() {
        if ended == nil { ended = "closed" }
        incoming.removeAll()
        release()
    }
}

/// A listening TCP socket: connections wait in the system's queue (at most `backlog`) until accepted.
public final class StreamListener {
    public static let maxBacklog = 256
    private var descriptor: Int32
    public let limits: StreamConnection.Limits

    /// Listens on `address` (nil: every address, IPv6 and IPv4 where the system has both) at `port`.
    public init(
        binding address: sockaddr_storage?, port: UInt16, backlog: Int, limits: StreamConnection.Limits = .init()
    ) throws(SocketFailure) {
        self.limits = limits
        var targets: [sockaddr_storage] = []
        if let address {
            targets = [address]
        } else {
            for host in ["::", "0.0.0.0"] {
                if let target = SocketAddress.numeric(host, port) { targets.append(target) }
            }
        }
        var lastError = SocketFailure(errno: EADDRNOTAVAIL)
        for var target in targets {
            let descriptor = socket(
                Int32(target.ss_family),
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                    | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                lastError = SocketFailure(errno: errno)
                continue
            }
            var on: Int32 = 1, off: Int32 = 0
            // A script reloaded with a peer connected binds its port again at once.
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if address == nil && target.ss_family == AF_INET6 {
                setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            }
            let length = SocketAddress.length(of: target)
            let bound = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            let clamped = Int32(min(max(backlog, 1), Self.maxBacklog))
            guard bound == 0, listen(descriptor, clamped) == 0 else {
                lastError = SocketFailure(errno: errno)
                Glibc.close(descriptor)
                continue
            }
            self.descriptor = descriptor
            return
        }
        throw lastError
    }

    deinit { close() }

    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    public var isClosed: Bool { descriptor < 0 }

    var pollDescriptor: Int32 { descriptor }

    /// The address listened on, with the port the system picked.
    public var localAddress: String { SocketAddress.local(of: descriptor) }

    /// The next waiting connection, or nil when none is waiting (never blocks). A connection the system
    /// could not hand over (out of descriptors, reset before it was taken) is nil too.
    public func accept() -> StreamConnection? {
        guard descriptor >= 0 else { return nil }
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(descriptor, $0, &length)
                }
            }
            if accepted >= 0 {
                // accept4 is not in Swift's Glibc: the flags are set after (no process starts in between).
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                return StreamConnection(accepted: accepted, peer: storage, limits: limits)
            }
            // A connection reset while queued is skipped; anything else (none waiting, no descriptors) ends.
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// Whether a connection is waiting now.
    public var isReady: Bool { wait(milliseconds: 0) }

    /// Waits until a connection is waiting or `milliseconds` (0…1000) pass; whether one is.
    public func wait(milliseconds: Int) -> Bool {
        SocketSet.wait([.listener(self)], milliseconds: milliseconds)[0]
    }
}
