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
    }

    /// After the last byte: FIN first, and what the peer sent meanwhile read and dropped, so the close is not
    /// a reset (which may make the peer drop the reply it has not read yet).
    private func finishClosing() {
        shutdown(descriptor, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
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
        guard descriptor >= 0, !closing else { return nil }
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

/// Waiting on several sockets at once (`net.select`).
public enum SocketSet {
    public enum Member {
        case connection(StreamConnection)
        case listener(StreamListener)
        case datagram(DatagramSocket)
    }

    /// Which members are ready (bytes, a connection, a datagram or the end waiting; with `connected`, a
    /// finished connect too), waiting at most `milliseconds` (clamped to 0…1000) for the first; pending
    /// sends are flushed while waiting.
    public static func wait(_ members: [Member], milliseconds: Int, connected: Bool = false) -> [Bool] {
        let deadline = monotonicMilliseconds() &+ Int64(max(0, min(milliseconds, 1000)))
        let readyNow = { (member: Member) in Self.readyNow(member, connected: connected) }
        while true {
            var ready = members.map(readyNow)
            if ready.contains(true) { return ready }
            let remaining = deadline - monotonicMilliseconds()
            guard remaining > 0 else { return ready }
            var entries = members.map { member -> pollfd in
                switch member {
                case .connection(let connection):
                    return pollfd(fd: connection.pollDescriptor, events: connection.pollEvents, revents: 0)
                case .listener(let listener):
                    return pollfd(fd: listener.pollDescriptor, events: Int16(POLLIN), revents: 0)
                case .datagram(let socket):
                    return pollfd(fd: socket.pollDescriptor, events: Int16(POLLIN), revents: 0)
                }
            }
            // A negative descriptor is ignored by poll; one connection left to flush may wake it often, so
            // the loop is bounded by the deadline, not by wake-ups.
            let woken = poll(&entries, nfds_t(entries.count), Int32(remaining))
            if woken < 0 && errno != EINTR { return ready }
            ready = members.map(readyNow)
            if ready.contains(true) { return ready }
        }
    }

    private static func readyNow(_ member: Member, connected: Bool) -> Bool {
        switch member {
        case .connection(let connection): return connection.isReady(connected: connected)
        case .listener(let listener):
            guard !listener.isClosed else { return false }
            var entry = pollfd(fd: listener.pollDescriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) > 0
        case .datagram(let socket):
            guard !socket.isClosed else { return false }
            var entry = pollfd(fd: socket.pollDescriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) > 0
        }
    }

    public static func monotonicMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) &* 1000 &+ Int64(time.tv_nsec / 1_000_000)
    }
}

/// A socket call that failed, in LuaSocket's words where it has them ("connection refused", "address
/// already in use", "timeout", "closed"), else the system's, lower-cased.
public struct SocketFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    public init(errno error: Int32) {
        switch error {
        case ECONNREFUSED: description = "connection refused"
        case EADDRINUSE: description = "address already in use"
        case EADDRNOTAVAIL: description = "address not available"
        case ECONNRESET, ECONNABORTED, EPIPE: description = "closed"
        case ETIMEDOUT: description = "timeout"
        case EACCES, EPERM: description = "permission denied"
        case EHOSTUNREACH: description = "host is unreachable"
        case ENETUNREACH: description = "network is unreachable"
        case EMFILE, ENFILE: description = "too many open files"
        default:
            let text = String(cString: strerror(error))
            description = text.prefix(1).lowercased() + text.dropFirst()
        }
    }
}

/// Bytes in arrival order: appended at the back, taken from the front; the front's gap is reclaimed once
/// it passes half the storage, so each byte is moved a bounded number of times.
struct ByteQueue {
    private var storage: [UInt8] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        storage.append(contentsOf: bytes)
    }

    func withFront<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[head...])) }
    }

    mutating func drop(_ count: Int) { head += min(count, self.count) }

    mutating func take(_ max: Int) -> [UInt8] {
        let taken = Array(storage[head..<(head + min(max, count))])
        drop(taken.count)
        if isEmpty { removeAll() }
        return taken
    }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: false)
        head = 0
    }

    private mutating func compact() {
        if head > 0 && head >= storage.count / 2 {
            storage.removeFirst(head)
            head = 0
        }
    }
}
