import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking UDP socket for scripts (netplay): bounded datagrams, addresses as `HOST:PORT` text
/// (`[V6]:PORT` for IPv6), and a per-peer rate limit so that a flood from one address costs a bounded
/// amount of work per call. Everything that arrives is untrusted: the socket only bounds it.
public final class DatagramSocket {
    public typealias Failure = SocketFailure

    /// Limits a datagram's payload and each peer's rate.
    public struct Limits: Sendable {
        /// Largest datagram sent or accepted; a bigger one arriving is dropped (counted as oversized).
        public var maxSize = 1400
        /// Datagrams a second from one address before the rest are dropped (a token bucket)…
        public var rate = 2000.0
        /// …with this many allowed at once.
        public var burst = 500.0
        public init() {}
    }

    /// What the socket has dropped and moved.
    public struct Counters: Sendable {
        public var sent = 0, received = 0, oversized = 0, rateLimited = 0, sendFailures = 0
    }

    public let limits: Limits
    public private(set) var counters = Counters()
    private var descriptor: Int32
    private let family: Int32
    /// Token buckets of the peers heard from recently (at most `maxPeers`; the stalest is forgotten).
    private var buckets: [String: (tokens: Double, time: Double)] = [:]
    private static let maxPeers = 256
    private var buffer: [UInt8]

    /// Binds to `address` (`HOST:PORT`; port 0 picks one; `*:PORT` every IPv4 and IPv6 address, or every
    /// IPv4 one where the system has no IPv6).
    public init(binding address: String, limits: Limits = Limits()) throws(Failure) {
        self.limits = limits
        buffer = [UInt8](repeating: 0, count: limits.maxSize + 1)
        let (host, port) = try SocketAddress.split(address)
        let opened: (Int32, Int32)
        if host == "*" {
            do throws(Failure) { opened = try Self.open(host: "::", port, dualStack: true) } catch {
                opened = try Self.open(host: "0.0.0.0", port, dualStack: false)
            }
        } else {
            opened = try Self.open(host: host, port, dualStack: false)
        }
        (descriptor, family) = opened
    }

    /// A bound non-blocking socket and its address family.
    private static func open(host: String, _ port: UInt16, dualStack: Bool) throws(Failure) -> (Int32, Int32) {
        var resolved = try SocketAddress.resolve(host, port, passive: true)
        let family = Int32(resolved.ss_family)
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        if dualStack {
            var off: Int32 = 0  // IPv4 peers arrive as mapped addresses.
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        let length = SocketAddress.length(of: resolved)
        let result = withUnsafePointer(to: &resolved) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure("cannot bind \(host):\(port): \(message)")
        }
        return (descriptor, family)
    }

    deinit { close() }

    /// Closes the socket; later calls fail.
    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    public var isClosed: Bool { descriptor < 0 }

    /// The address the socket is bound to, with the port the system picked.
    public var localAddress: String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return SocketAddress.text(of: storage)
    }

    /// Sends one datagram to `address` (resolved each time: pass the text `receive` returned, or a name).
    public func send(_ bytes: UnsafeRawBufferPointer, to address: String) throws(Failure) {
        guard descriptor >= 0 else { throw Failure("the socket is closed") }
        guard bytes.count <= limits.maxSize else {
            throw Failure("\(bytes.count) bytes is more than the largest datagram (\(limits.maxSize))")
        }
        let (host, port) = try SocketAddress.split(address)
        var target = try SocketAddress.resolve(host, port, passive: false, family: family)
        let length = SocketAddress.length(of: target)
        let sent = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
            }
        }
        guard sent == bytes.count else {
            counters.sendFailures += 1
            throw Failure("send to \(address): \(String(cString: strerror(errno)))")
        }
        counters.sent += 1
    }

    /// The next datagram within the limits and its sender, or nil when none is waiting. Oversized and
    /// rate-limited ones are read and dropped; at most `budget` are read in one call, so a flood cannot
    /// hold the caller.
    public func receive(budget: Int = 64) -> (bytes: ArraySlice<UInt8>, from: String)? {
        guard descriptor >= 0 else { return nil }
        for _ in 0..<budget {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let capacity = buffer.count
            // MSG_TRUNC: the datagram's real length, so an oversized one is seen as such.
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, raw.baseAddress, capacity, Int32(MSG_TRUNC), $0, &length)
                    }
                }
            }
            // EAGAIN (nothing waiting) or an error queued by an earlier send (ECONNREFUSED): nothing to read.
            if count < 0 { return nil }
            let from = SocketAddress.text(of: storage)
            guard admit(from) else {
                counters.rateLimited += 1
                continue
            }
            guard count <= limits.maxSize else {
                counters.oversized += 1
                continue
            }
            counters.received += 1
            return (buffer[0..<count], from)
        }
        return nil
    }

    var pollDescriptor: Int32 { descriptor }

    /// Waits until a datagram is waiting or `milliseconds` pass (at most a second); whether one is.
    public func wait(milliseconds: Int) -> Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(max(0, min(milliseconds, 1000)))) > 0
    }

    /// Whether `peer`'s token bucket holds a token (and takes it).
    private func admit(_ peer: String) -> Bool {
        let time = ProcessInfo.processInfo.systemUptime
        var bucket = buckets[peer] ?? (tokens: limits.burst, time: time)
        bucket.tokens = min(limits.burst, bucket.tokens + (time - bucket.time) * limits.rate)
        bucket.time = time
        let admitted = bucket.tokens >= 1
        if admitted { bucket.tokens -= 1 }
        if buckets[peer] == nil && buckets.count >= Self.maxPeers,
            let stalest = buckets.min(by: { $0.value.time < $1.value.time })
        {
            buckets[stalest.key] = nil
        }
        buckets[peer] = bucket
        return admitted
    }
}
