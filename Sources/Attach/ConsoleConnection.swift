import Foundation
import Glibc
import Support

/// A client of a running game's control socket (a Unix socket of this user), speaking its JSON lines:
/// one request, one reply. A game is a stranger: a reply that does not come within `timeout` seconds, or
/// a stop signal while waiting for it, ends the wait with an error (the connection is then done with: a
/// late reply would answer the next request).
final class ConsoleConnection {
    private let fd: Int32
    private var pending: [UInt8] = []
    /// Seconds a reply may take (nil: no limit).
    private let timeout: Double?
    /// The longest reply line read (the socket's own limit on a line is far below).
    private static let maxReply = 64 << 20
    /// How long a reply may take unless told otherwise: well past the 10 seconds a game lets a console
    /// chunk run frames (ScriptConsole.frameSeconds), so only a game that stopped answering meets it.
    static let defaultTimeout = 30.0

    /// Connects and says hello; the error says why not (no game there, a stale socket, refused, silent).
    init(path: String, timeout: Double? = ConsoleConnection.defaultTimeout) throws(AttachError) {
        self.timeout = timeout
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AttachError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw AttachError("\(path): the path is too long for a socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let number = errno
            throw AttachError("\(path): \(String(cString: strerror(number)))", errorNumber: number)
        }
        let hello: [String: Any]
        do { hello = try request(["cmd": "hello"]) } catch {
            throw AttachError("\(path): \(error)", stopped: error.stopped)
        }
        guard hello["ok"] as? Bool == true else {
            throw AttachError("\(path): \(TerminalText.printable(hello["error"] as? String ?? "refused"))")
        }
    }

    /// The one close: an initializer that throws once `fd` is set still runs `deinit`, so closing there as
    /// well closed the number twice — by then another thread's file (a core's `.info`, a script, the
    /// run's socket) could hold it: `run --console`'s connection attempts made its runs fail at random.
    deinit { if fd >= 0 { close(fd) } }

    /// Sends one request and waits for its reply (at most `timeout` seconds, and only until a stop signal).
    func request(_ fields: [String: Any]) throws(AttachError) -> [String: Any] {
        guard let body = try? JSONSerialization.data(withJSONObject: fields) else {
            throw AttachError("cannot encode the request")
        }
        ConsoleWait.isWaitingForReply.store(true, ordering: .relaxed)
        defer { ConsoleWait.isWaitingForReply.store(false, ordering: .relaxed) }
        let deadline = timeout.map { ConsoleWait.now() + $0 }
        var line = [UInt8](body)
        line.append(10)
        var sent = 0
        while sent < line.count {
            try wait(for: Int16(POLLOUT), until: deadline)
            let count = line[sent...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { throw AttachError("the game closed the connection") }
            sent += count
        }
        let reply = try readLine(until: deadline)
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any] else {
            throw AttachError("the game sent a reply that is not JSON")
        }
        return object
    }

    private func readLine(until deadline: Double?) throws(AttachError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            guard pending.count < Self.maxReply else { throw AttachError("the game's reply is too long") }
            try wait(for: Int16(POLLIN), until: deadline)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { throw AttachError("the game closed the connection (it ended?)") }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    private func wait(for events: Int16, until deadline: Double?) throws(AttachError) {
        switch ConsoleWait.wait(fd, for: events, until: deadline) {
        case .ready: return
        case .stopped(let signal):
            throw AttachError(
                "stopped by \(ConsoleWait.name(signal)) while waiting for the game's reply (a chunk it was running "
                    + "may still be running there)", stopped: signal)
        case .timedOut:
            let seconds = timeout ?? 0
            let shown = seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds))" : "\(seconds)"
            throw AttachError(
                "the game sent no reply in \(shown) second\(seconds == 1 ? "" : "s"); it may be stuck "
                    + "(attach --timeout SECONDS waits longer, 0 for ever)")
        }
    }
}

/// Attaching failed: the message says why.
public struct AttachError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// The system's error number when connecting failed (ECONNREFUSED: nobody listens there any more).
    let errorNumber: Int32
    /// The stop signal that ended the wait (nil: none did).
    let stopped: Int32?
    init(_ description: String, errorNumber: Int32 = 0, stopped: Int32? = nil) {
        self.description = description
        self.errorNumber = errorNumber
        self.stopped = stopped
    }
}
