import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
