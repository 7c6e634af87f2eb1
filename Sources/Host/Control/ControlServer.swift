import Emulation
import Foundation
import Glibc

/// The control socket's transport: a listening Unix or loopback TCP socket, clients that come and
/// go, and newline-delimited messages. Single-threaded: `poll` is called from the emulation loop.
public final class ControlServer {
    public enum Address: Equatable, Sendable {
        case unix(String)
        case tcp(port: UInt16)

        /// `unix:PATH` or `tcp:127.0.0.1:PORT` (loopback only: anything else is refused).
        public static func parse(_ text: String) throws(ControlError) -> Address {
            if text.hasPrefix("unix:") {
                let path = String(text.dropFirst(5))
                guard !path.isEmpty, path.utf8.count < 100 else {
                    throw ControlError("--control unix:PATH needs a path of under 100 bytes")
                }
                return .unix(path)
            }
            guard text.hasPrefix("tcp:"), let colon = text.lastIndex(of: ":"),
                colon > text.index(text.startIndex, offsetBy: 3)
            else {
                throw ControlError("--control expects unix:PATH or tcp:127.0.0.1:PORT, got '\(text)'")
            }
            let host = String(text[text.index(text.startIndex, offsetBy: 4)..<colon])
            guard host == "127.0.0.1" || host == "localhost" else {
                throw ControlError(
                    "refusing to listen on '\(host)': the control socket only listens on loopback (127.0.0.1)")
            }
            guard let port = UInt16(text[text.index(after: colon)...]) else {
                throw ControlError("bad port in '\(text)'")
            }
            return .tcp(port: port)
        }
    }

    private var listener: Int32 = -1
    private var clients: [Client] = []
    private let address: Address
    /// Where clients can connect (for tcp with port 0: the port the system chose).
    public private(set) var description: String = ""
    /// Largest request line accepted (a state or frame sent back can be large; requests are small).
    static let maxLine = 64 << 20

    private final class Client {
        let fd: Int32
        var input: [UInt8] = []
        init(fd: Int32) { self.fd = fd }
    }

    public init(_ address: Address) throws(ControlError) {
        self.address = address
        switch address {
        case .unix(let path):
            var info = stat()
            if lstat(path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFSOCK else {
                    throw ControlError("\(path) exists and is not a socket; not replacing it")
                }
                unlink(path)  // A stale socket from an earlier run.
            }
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard listener >= 0 else { throw ControlError("cannot create a socket: \(Self.lastError())") }
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0 else { throw closing(ControlError("cannot listen on \(path): \(Self.lastError())")) }
            chmod(path, 0o600)  // The emulator's memory and input are the user's alone.
            description = "unix:" + path
        case .tcp(let port):
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard listener >= 0 else { throw ControlError("cannot create a socket: \(Self.lastError())") }
            var yes: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            socketAddress.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1 only
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                throw closing(ControlError("cannot listen on 127.0.0.1:\(port): \(Self.lastError())"))
            }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            description = "tcp:127.0.0.1:\(UInt16(bigEndian: actual.sin_port))"
        }
        guard listen(listener, 8) == 0 else { throw closing(ControlError("cannot listen: \(Self.lastError())")) }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    }

    private func closing(_ error: ControlError) -> ControlError {
        Glibc.close(listener)
        listener = -1
        return error
    }

    deinit { close() }

    public func close() {
        for client in clients { Glibc.close(client.fd) }
        clients.removeAll()
        if listener >= 0 {
            Glibc.close(listener)
            listener = -1
            if case .unix(let path) = address { unlink(path) }
        }
    }

    /// Waits up to `timeout` seconds for activity, accepts clients, and hands every complete line to
    /// `handle`, writing back the reply it returns. A client that goes away is dropped quietly.
    public func poll(timeout: Double, _ handle: (String) -> String) {
        var fds =
            [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            + clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        guard Glibc.poll(&fds, nfds_t(fds.count), Int32(timeout * 1000)) > 0 else { return }
        if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
        for (index, client) in zip(fds.indices.dropFirst(), clients) where fds[index].revents != 0 {
            readAndServe(client, handle)
        }
        clients.removeAll { $0.fd < 0 }
    }

    private func acceptClients() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            clients.append(Client(fd: fd))
        }
    }

    /// Reused for every read (allocating 64 KB per request would cost more than the request).
    private var buffer = [UInt8](repeating: 0, count: 65536)

    private func readAndServe(_ client: Client, _ handle: (String) -> String) {
        let count = read(client.fd, &buffer, buffer.count)
        guard count > 0 else {
            drop(client)
            return
        }
        client.input += buffer[0..<count]
        while let newline = client.input.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: client.input[0..<newline], as: UTF8.self)
            client.input.removeSubrange(0...newline)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard send(handle(line) + "\n", to: client) else { return }
        }
        if client.input.count > Self.maxLine {
            _ = send("{\"ok\":false,\"error\":\"request line longer than \(Self.maxLine) bytes\"}\n", to: client)
            drop(client)
        }
    }

    /// Writes a whole reply (blocking until sent); false when the client is gone.
    private func send(_ reply: String, to client: Client) -> Bool {
        var bytes = Array(reply.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.send(client.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var pfd = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
                    _ = Glibc.poll(&pfd, 1, 1000)
                    continue
                }
                drop(client)
                return false
            }
            offset += written
        }
        return true
    }

    private func drop(_ client: Client) {
        guard let index = clients.firstIndex(where: { $0 === client }) else { return }
        Glibc.close(client.fd)
        clients[index] = Client(fd: -1)
    }

    public var clientCount: Int { clients.filter { $0.fd >= 0 }.count }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

public struct ControlError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
