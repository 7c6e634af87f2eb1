import Emulation
import Foundation
import Glibc

/// What a request line becomes: its reply now, or work that runs a slice at a time (one slice per
/// turn, between other clients' turns) and returns the reply once done.
public enum ControlOutcome {
    case reply(String)
    case continuing(() -> String?)
    /// `{"cmd": "binary"}`: the handshake line to send with the door's shared memory, after which the
    /// connection speaks the door's binary framing.
    case binary(ControlBinaryDoor, String)
}

/// The control socket's transport: a listening Unix or loopback TCP socket, clients that come and
/// go, and newline-delimited messages. Single-threaded: `poll` is called from the emulation loop and
/// never waits on a client: replies are queued and sent as each peer takes them; a client whose
/// queue or input grows past the limits is dropped.
public final class ControlServer {
    private var listener: Int32 = -1
    private var clients: [ControlClient] = []
    private let address: Address
    private let access: ControlAccess
    /// Where clients can connect (for tcp with port 0: the port the system chose).
    public private(set) var description: String = ""
    /// Largest request line accepted (a state sent back can be large; requests are small).
    static let maxLine = 64 << 20
    /// Partial lines of all clients together: past this, the client that filled it is dropped.
    static let maxInputTotal = 128 << 20
    /// Replies a client has not taken yet: past this, it is dropped (the largest reply, a 16 MiB
    /// read as base64, fits).
    static let maxQueued = 32 << 20
    /// Replies queued for all clients together.
    static let maxQueuedTotal = 160 << 20
    static let maxClients = 32
    /// Connections that have not shown the token yet: past this, the oldest of them is dropped, so
    /// strangers holding connections open never keep a client with the token out.
    static let maxWaitingForHello = 8
    /// Seconds a TCP connection has to show the token.
    static let helloDeadline = 5.0
    /// Before the token is shown, a connection may not make the server hold more than a hello.
    static let maxHello = 4096
    /// Read per client per turn, so one fast sender cannot keep the others waiting.
    static let readPerTurn = 1 << 20

    /// Listens on `address`; a TCP address needs `access.token` (every connection must show it).
    public init(_ address: Address, access: ControlAccess) throws(ControlError) {
        self.address = address
        self.access = access
        if address.isTCP && access.token == nil { throw ControlError("a TCP control socket needs a token") }
        switch address {
        case .unix(let path):
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            var info = stat()
            if lstat(path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFSOCK else {
                    throw ControlError("\(path) exists and is not a socket; not replacing it")
                }
                if let problem = Self.liveSocketProblem(path, socketAddress) { throw ControlError(problem) }
                unlink(path)  // A stale socket from an earlier run: nobody listens there.
            }
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard listener >= 0 else { throw ControlError("cannot create a socket: \(Self.lastError())") }
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0 else { throw closing(ControlError("cannot listen on \(path): \(Self.lastError())")) }
            chmod(path, 0o600)  // The emulator's memory and input are the user's alone.
            if lstat(path, &info) == 0 { boundInode = info.st_ino }
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
        guard listen(listener, SOMAXCONN) == 0 else {
            throw closing(ControlError("cannot listen: \(Self.lastError())"))
        }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    }

    /// The inode of the Unix socket this server bound: removed at close only while it is still that one.
    private var boundInode: ino_t?

    /// Why a socket file at `path` may not be replaced: a process listens there (a connection is
    /// accepted or queued). Nil when nobody does (connection refused: a stale file of a run that ended).
    private static func liveSocketProblem(_ path: String, _ address: sockaddr_un) -> String? {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return "cannot create a socket: \(lastError())" }
        defer { Glibc.close(probe) }
        _ = fcntl(probe, F_SETFL, fcntl(probe, F_GETFL) | O_NONBLOCK)
        var address = address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 && (errno == ECONNREFUSED || errno == ENOENT) { return nil }
        let why = connected == 0 ? "it accepts connections" : "connecting gives \(lastError())"
        return """
            \(path): another process is listening on this control socket (\(why)); \
            give another --control unix:PATH, or end the run that uses it
            """
    }

    private func closing(_ error: ControlError) -> ControlError {
        Glibc.close(listener)
        listener = -1
        return error
    }

    deinit { close() }

    public func close() {
        for client in clients { client.close() }
        clients.removeAll()
        if listener >= 0 {
            Glibc.close(listener)
            listener = -1
            // Only the socket this server made: a file put there since (by another run) stays.
            var info = stat()
            if case .unix(let path) = address, lstat(path, &info) == 0, info.st_ino == boundInode { unlink(path) }
        }
    }

    /// The port a TCP socket listens on ("" for a Unix socket).
    public var port: String {
        guard address.isTCP, let colon = description.lastIndex(of: ":") else { return "" }
        return String(description[description.index(after: colon)...])
    }

    /// Waits up to `timeout` seconds for activity (not at all while requests are waiting), accepts
    /// clients, reads and sends what the sockets allow, then gives every client one turn: a slice
    /// of its running request, or its next request line handed to `handle`.
    /// A client has connected and sent something at some time (`--exit-on-disconnect` waits for the first).
    public private(set) var everConnected = false

    /// Returns whether anything happened (a socket was ready or a request had its turn).
    @discardableResult
    public func poll(timeout: Double, _ handle: (ArraySlice<UInt8>, ControlConnection) -> ControlOutcome) -> Bool {
        let busy = clients.contains { $0.hasTurn }
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
        for client in clients {
            let events = (client.wantsInput ? POLLIN : 0) | (client.queuedOutput > 0 ? POLLOUT : 0)
            fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
        }
        let milliseconds = busy ? 0 : Int32(max(0, min(timeout, 60)) * 1000)
        let ready = Glibc.poll(&fds, nfds_t(fds.count), milliseconds) > 0
        if ready {
            for (index, client) in zip(fds.indices.dropFirst(), clients) where fds[index].revents != 0 {
                transfer(client, fds[index].revents)
            }
            // After the hang-ups: a client that left makes room for one that just came.
            clients.removeAll { $0.isClosed }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
        }
        for client in clients where !client.isClosed { turn(client, handle) }
        dropLateHellos()
        for client in clients where client.isFinished { client.close() }
        clients.removeAll { $0.isClosed }
        return ready || busy
    }

    private func transfer(_ client: ControlClient, _ events: Int16) {
        if events & Int16(POLLOUT) != 0 { client.flush() }
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 && client.wantsInput {
            if !client.receive(into: &buffer, limit: Self.readPerTurn) { client.ended = true }
            // A client is one that said something: a connection that only probes (another run checking
            // whether this path is live) never makes --exit-on-disconnect end the run.
            if client.bufferedInput > 0 { everConnected = true }
            checkInputBounds(client)
        } else if events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            client.close()  // Gone: a request it left running is abandoned.
        }
    }

    private func checkInputBounds(_ client: ControlClient) {
        if !client.admitted && client.bufferedInput > Self.maxHello && !client.hasCompleteLine {
            refuse(client, "the first request (hello) is longer than \(Self.maxHello) bytes; closing")
        } else if let payload = client.declaredPayload, payload > Self.maxLine - ControlBinaryProtocol.requestSize {
            refuse(client, "binary request of \(payload) bytes is longer than \(Self.maxLine); closing")
        } else if client.bufferedInput > Self.maxLine && !client.hasCompleteLine {
            refuse(client, "request line longer than \(Self.maxLine) bytes; closing")
        } else if clients.reduce(0, { $0 + $1.bufferedInput }) > Self.maxInputTotal {
            refuse(client, "the control socket's input buffers are full; closing")
        }
    }

    /// One request's worth of work for one client.
    private func turn(_ client: ControlClient, _ handle: (ArraySlice<UInt8>, ControlConnection) -> ControlOutcome) {
        if let work = client.work {
            if let reply = work() {
                client.work = nil
                send(bytes: reply, to: client)
            }
            return
        }
        if let door = client.door {
            guard !client.closing, let message = client.nextMessage() else { return }
            switch door.start(message) {
            case .reply(let reply): send(bytes: reply, to: client)
            case .continuing(let work): client.work = work
            }
            return
        }
        guard !client.closing, let line = client.nextLine() else { return }
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
            return
        }
        guard client.admitted else {
            if let refusal = access.checkHello(line) {
                refuse(client, refusal)
            } else {
                client.admitted = true
                send("{\"ok\":true}", to: client)
            }
            return
        }
        switch handle(line, client.connection) {
        case .reply(let reply): send(reply, to: client)
        case .continuing(let work): client.work = { work().map { Array($0.utf8) + [UInt8(ascii: "\n")] } }
        case .binary(let door, let handshake): switchToBinary(client, door, handshake)
        }
    }

    /// Sends the handshake with the shared memory's descriptor; from then on the client is binary.
    private func switchToBinary(_ client: ControlClient, _ door: ControlBinaryDoor, _ handshake: String) {
        guard !address.isTCP else {
            send(Self.error("binary needs a Unix socket (it passes shared memory as a descriptor)"), to: client)
            return
        }
        guard client.queuedOutput == 0, door.region.send(Array(handshake.utf8) + [10], over: client.fd) else {
            send(Self.error("binary: the switch needs every earlier reply read first"), to: client)
            return
        }
        door.takeDescriptor = { [unowned client] in client.takeDescriptor() }
        client.door = door
    }

    /// The doors of clients that joined a batch region: the serve loop answers their lanes.
    var batchDoors: [ControlBinaryDoor] {
        clients.compactMap { client in client.isClosed ? nil : client.door.flatMap { $0.lane == nil ? nil : $0 } }
    }

    private func dropLateHellos() {
        let now = Self.monotonicSeconds()
        for client in clients where !client.admitted && !client.closing && now - client.connectedAt > Self.helloDeadline
        {
            refuse(client, "no hello with the token within \(Int(Self.helloDeadline)) s; closing")
        }
    }

    /// Queues a reply; a client that has let too much pile up (or the socket as a whole) is dropped.
    private func send(_ reply: String, to client: ControlClient) { send(bytes: Array(reply.utf8) + [10], to: client) }

    private func send(bytes reply: [UInt8], to client: ControlClient) {
        client.queue(bytes: reply)
        if client.queuedOutput > Self.maxQueued
            || clients.reduce(0, { $0 + $1.queuedOutput }) > Self.maxQueuedTotal
        {
            client.close()
        }
    }

    /// A last reply in the connection's own framing, then the connection closes.
    private func refuse(_ client: ControlClient, _ message: String) {
        if client.door != nil {
            client.refuse(bytes: ControlBinaryProtocol.error(message))
        } else {
            client.refuse(Self.error(message))
        }
    }

    private func acceptClients() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let client = ControlClient(fd: fd, admitted: !address.isTCP, connectedAt: Self.monotonicSeconds())
            clients.append(client)
            if address.isTCP {
                var yes: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            } else if let refusal = ControlAccess.admits(peer: ControlAccess.peerUID(fd), own: geteuid()) {
                refuse(client, refusal)
                continue
            }
            let waiting = clients.filter { !$0.isClosed && !$0.closing && !$0.admitted }
            if waiting.count > Self.maxWaitingForHello {
                refuse(waiting[0], "too many connections waiting to say hello; closing the oldest")
            }
            if clients.filter({ !$0.isClosed && !$0.closing }).count > Self.maxClients {
                closeHungUp()  // clients that left since the last poll make room first
            }
            if clients.filter({ !$0.isClosed && !$0.closing }).count > Self.maxClients {
                refuse(client, "too many control clients (\(Self.maxClients)); closing")
            }
        }
    }

    /// Closes the clients whose peers have hung up (a look at their sockets, no waiting).
    private func closeHungUp() {
        var fds = clients.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        guard Glibc.poll(&fds, nfds_t(fds.count), 0) > 0 else { return }
        for (pollFD, client) in zip(fds, clients) where pollFD.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            client.close()
        }
    }

    /// Reused for every read (allocating 64 KB per request would cost more than the request).
    private var buffer = [UInt8](repeating: 0, count: 65536)

    public var clientCount: Int { clients.filter { !$0.isClosed }.count }

    static func error(_ message: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: ["ok": false, "error": message], options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{\"ok\":false}"
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

public struct ControlError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
