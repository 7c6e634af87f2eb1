import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Socket addresses as text: `HOST:PORT`, `[V6]:PORT`; resolving, printing, and telling loopback.
public enum SocketAddress {
    /// `HOST:PORT` or `[V6]:PORT` into its parts; the port 0…65535.
    public static func split(_ address: String) throws(SocketFailure) -> (host: String, port: UInt16) {
        guard let colon = address.lastIndex(of: ":") else {
            throw SocketFailure("'\(address)' is not HOST:PORT")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.utf8.contains(0), let port = UInt16(address[address.index(after: colon)...]) else {
            throw SocketFailure("'\(address)' is not HOST:PORT (port 0…65535)")
        }
        return (host, port)
    }

    /// The first address `host` resolves to (a name is looked up once, blocking).
    public static func resolve(
        _ host: String, _ port: UInt16, passive: Bool, family: Int32 = AF_UNSPEC
    ) throws(SocketFailure) -> sockaddr_storage {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) | (family == AF_INET6 ? AI_V4MAPPED : 0)
        switch first(host, port, hints) {
        case .success(let storage): return storage
        case .failure(let error):
            throw SocketFailure("cannot resolve '\(host)': \(String(cString: gai_strerror(error.status)))")
        }
    }

    /// The first answer of `getaddrinfo`, or its status.
    private static func first(
        _ host: String, _ port: UInt16, _ hints: addrinfo
    ) -> Result<sockaddr_storage, AddressError> {
        var hints = hints
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { return .failure(AddressError(status: status)) }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            let count = min(Int(first.pointee.ai_addrlen), target.count)
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: count))
        }
        return .success(storage)
    }

    public static func length(of storage: sockaddr_storage) -> socklen_t {
        socklen_t(storage.ss_family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    /// `A.B.C.D:PORT`, `[V6]:PORT`; an IPv4-mapped IPv6 address as IPv4.
    public static func text(of storage: sockaddr_storage) -> String {
        var storage = storage
        let size = length(of: storage)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, size, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "?" }
        var name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if name.hasPrefix("::ffff:") && name.contains(".") { name = String(name.dropFirst(7)) }
        return name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
    }

    /// `host` as a numeric IPv4 or IPv6 address (no lookup), or nil when it is not one.
    public static func numeric(_ host: String, _ port: UInt16) -> sockaddr_storage? {
        guard !host.utf8.contains(0) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        return try? first(host, port, hints).get()
    }

    /// Whether the address is loopback: 127.0.0.0/8, ::1, or 127.x mapped into IPv6.
    public static func isLoopback(_ storage: sockaddr_storage) -> Bool {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw -> Bool in
            if family == AF_INET {
                let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!
                return raw[offset] == 127
            }
            guard family == AF_INET6 else { return false }
            let offset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!
            let bytes = Array(raw[offset..<(offset + 16)])
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff
            return mapped && bytes[12] == 127
        }
    }

    /// The address a socket is bound to, as text ("?" when it has none).
    static func local(of descriptor: Int32) -> String {
        guard descriptor >= 0 else { return "?" }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return result == 0 ? text(of: storage) : "?"
    }
}

/// `getaddrinfo`'s status when it found nothing.
struct AddressError: Error {
    let status: Int32
}
