import CLua
import Foundation
import LuaRuntime
import Support

extension Bindings {
    static let udpMetatable = LuaTypeName("retrolua.udp")

    static let net = LuaModule(
        "net",
        doc: """
            TCP and UDP sockets, for netplay and tools beside the emulator. `--allow-net` (or the menu's \
            grant for one script) reaches loopback (127.0.0.0/8, ::1, `localhost`); `--allow-net=HOST[:PORT],…` \
            adds those addresses; `--trust` and Retrolua's own defaults reach everything; without any, every \
            function returns `nil, message` naming the flag. Sockets never block: `receive` returns what is \
            waiting, `wait` and `select` sleep a bounded time (the host's, not the script's). A script holds \
            at most 64 sockets; each TCP connection buffers at most 1 MiB each way; all close when the script \
            ends or reloads. What arrives is untrusted: a datagram over `max_size` is dropped, and so is \
            everything over each sender's rate (counted in `stats`). Addresses are `HOST:PORT` text \
            (`[V6]:PORT` for IPv6).
            """,
        functions: [
            LuaFunction(
                "udp", "options?: table", returns: "udp?, string?",
                doc:
                    """
                    A socket bound to `bind` (default `"*:0"`, every address, where the script may reach every \
                    address, else `"127.0.0.1:0"`; port 0: one the system picks); \
                    `max_size` (bytes, 64…65507, default 1400), `rate` (datagrams a second from one sender, \
                    default 2000) and `burst` (default 500) bound what is accepted. `nil, message` without the \
                    permission or when the address cannot be bound.
                    """
            ) { run($0, $1, netUDP) },
            LuaFunction(
                "netplay", returns: "table?",
                doc:
                    """
                    The session the command line asked for, for the netplay default: `{mode= ("host", "join" \
                    or "check"), address=, delay=, options= ("host": take the host's deciding core options), \
                    room= (the room's secret), relay= (the relay's HOST:PORT), frames=, rollback=, buttons= (a \
                    RetroPad mask), spectate= (true: \
                    `--spectate`, watch without playing)}` (absent fields: the default's own), or nil.
                    """
            ) { run($0, $1, netNetplay) },
            LuaFunction(
                "cookie", "text: string", returns: "string",
                doc:
                    """
                    A 16-byte keyed hash (HMAC-SHA-256) of `text` under a secret drawn once per process from the \
                    system's generator: a stateless cookie a peer echoes to prove it receives at its address \
                    (netplay's hello; hash the address with a coarse time so old cookies expire).
                    """
            ) { run($0, $1, netCookie) },
            LuaFunction(
                "hmac", "key: string, text: string", returns: "string",
                doc:
                    """
                    HMAC-SHA-256 of `text` under `key` (32 bytes): keys and signatures both players derive from \
                    a secret they share (netplay's rooms: the room's id and the key that signs each packet).
                    """
            ) { run($0, $1, netHMAC) },
            LuaFunction(
                "resolve", "address: string", returns: "string?, string?",
                doc:
                    """
                    `address` (`HOST:PORT`) with its host looked up now, as the numeric text a socket's `receive` \
                    names senders by; `nil, message` when it may not be reached or does not resolve. A socket \
                    looks a name up on every send: resolve once a peer that is sent to often.
                    """
            ) { run($0, $1, netResolve) },
            LuaFunction(
                "clock", returns: "number",
                doc: "Seconds on a monotonic clock (pings, timeouts, pacing); only differences mean anything."
            ) { run($0, $1, netClock) },
        ] + streamFunctions)

    static let udpMethods: [LuaFunction] = [
        LuaFunction(
            "send", "data: string, address: string", returns: "boolean?, string?",
            doc: "Sends one datagram (at most `max_size` bytes) to `address`; `nil, message` when it cannot go."
        ) { run($0, $1, udpSend) },
        LuaFunction(
            "receive", returns: "string?, string?",
            doc:
                """
                The next waiting datagram and its sender's address, or nil when none is waiting (dropped ones \
                are skipped, at most 64 per call).
                """
        ) { run($0, $1, udpReceive) },
        LuaFunction(
            "wait", "milliseconds: integer", returns: "boolean",
            doc: "Sleeps until a datagram is waiting or `milliseconds` (at most 1000) pass; whether one is waiting."
        ) { run($0, $1, udpWait) },
        LuaFunction("address", returns: "string", doc: "The bound address, with the port the system picked.") {
            run($0, $1, udpAddress)
        },
        LuaFunction(
            "stats", returns: "table",
            doc: "`{sent=, received=, oversized=, rate_limited=, send_failures=}`: datagrams counted so far."
        ) { run($0, $1, udpStats) },
        LuaFunction("close", doc: "Closes the socket (also when it is collected or the script ends).") {
            run($0, $1, udpClose)
        },
        LuaFunction("__gc", doc: "Closes the socket when it is collected.") {
            collectHandle($0, $1, udpMetatable) { script, id in script.sockets[id] = nil }
        },
    ]

    private static func selfSocket(_ call: LuaCall, _ script: Script) throws(LuaCallError) -> DatagramSocket {
        let id = try handleID(call, udpMetatable, expected: "udp socket")
        guard let socket = script.sockets[id], !socket.isClosed else { throw call.error("the socket is closed") }
        return socket
    }

    // MARK: - The functions

    private static func netUDP(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let permission = script.networkAccess() else { return call.failure(NetworkPermission.refusal) }
        var limits = DatagramSocket.Limits()
        var address = permission.level == .all ? "*:0" : "127.0.0.1:0"
        if try call.optionalTable(1, "options") {
            address = try call.stringField(1, "bind", argument: 1) ?? address
            if let size = try call.integerField(1, "max_size", argument: 1) {
                guard (64...65507).contains(size) else { throw call.badField(1, "max_size", "must be 64…65507") }
                limits.maxSize = size
            }
            if let rate = try call.numberField(1, "rate", argument: 1) {
                guard rate >= 1, rate <= 1_000_000 else { throw call.badField(1, "rate", "must be 1…1000000") }
                limits.rate = rate
            }
            if let burst = try call.numberField(1, "burst", argument: 1) {
                guard burst >= 1, burst <= 1_000_000 else { throw call.badField(1, "burst", "must be 1…1000000") }
                limits.burst = burst
            }
        }
        if let full = script.socketLimitProblem() { return call.failure(full) }
        let socket: DatagramSocket
        do {
            switch try permission.resolve(address, binding: true) {
            case .everyAddress(let port): socket = try DatagramSocket(binding: "*:\(port)", limits: limits)
            case .address(let target):
                socket = try DatagramSocket(binding: SocketAddress.text(of: target), limits: limits)
            }
        } catch {
            return call.failure(error.description)
        }
        pushNewHandle(socket, call, script, in: \.sockets, udpMetatable)
        return 1
    }

    private static func netNetplay(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let request = script.host.options.netplay else {
            call.pushNil()
            return 1
        }
        call.newTable(fields: 10)
        call.set("mode", request.mode.rawValue)
        call.set("address", request.address)
        if let delay = request.delay { call.set("delay", delay) }
        if let options = request.options { call.set("options", options) }
        if let room = request.room { call.set("room", room) }
        if let relay = request.relay { call.set("relay", relay) }
        if let frames = request.frames { call.set("frames", frames) }
        if let rollback = request.rollback { call.set("rollback", rollback) }
        if let buttons = request.buttons { call.set("buttons", buttons) }
        if request.spectate { call.set("spectate", true) }
        return 1
    }

    private static func netCookie(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.bytes(1, "text")
        AddressCookie.of(Array(text)).withUnsafeBytes { call.push(bytes: $0) }
        return 1
    }

    private static func netHMAC(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let key = try call.bytes(1, "key"), text = try call.bytes(2, "text")
        KeyedHash.hmacSHA256(key: Array(key), message: Array(text)).withUnsafeBytes { call.push(bytes: $0) }
        return 1
    }

    private static func netResolve(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let address = try call.string(1, "address")
        do {
            guard case .address(let target) = try script.networkPermission.resolve(address, binding: false) else {
                return call.failure("'\(address)': not an address to send to")
            }
            return call.returning(SocketAddress.text(of: target))
        } catch {
            return call.failure(error.description)
        }
    }

    private static func netClock(_ call: LuaCall, _ script: Script) throws -> Int32 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return call.returning(Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    private static func udpSend(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let socket = try selfSocket(call, script)
        let data = try call.bytes(2, "data"), address = try call.string(3, "address")
        do {
            // Each datagram's address meets the permission: loopback, granted, or everything.
            guard case .address(let target) = try script.networkPermission.resolve(address, binding: false) else {
                return call.failure("'\(address)': not an address to send to")
            }
            try socket.send(data, to: SocketAddress.text(of: target))
        } catch {
            return call.failure(error.description)
        }
        return call.returning(true)
    }

    private static func udpReceive(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let (bytes, from) = try selfSocket(call, script).receive() else {
            call.pushNil()
            return 1
        }
        bytes.withUnsafeBytes { call.push(bytes: $0) }
        call.push(from)
        return 2
    }

    private static func udpWait(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let socket = try selfSocket(call, script)
        let milliseconds = try call.integer(2, "milliseconds")
        guard (0...1000).contains(milliseconds) else { throw call.badArgument(2, "milliseconds", "must be 0…1000") }
        // Waiting is the host's time, not the script's (a session's timeouts are longer than its deadline).
        return call.returning(script.waitOnSockets { socket.wait(milliseconds: milliseconds) })
    }

    private static func udpAddress(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try selfSocket(call, script).localAddress)
    }

    private static func udpStats(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let counters = try selfSocket(call, script).counters
        call.newTable(fields: 5)
        call.set("sent", counters.sent)
        call.set("received", counters.received)
        call.set("oversized", counters.oversized)
        call.set("rate_limited", counters.rateLimited)
        call.set("send_failures", counters.sendFailures)
        return 1
    }

    private static func udpClose(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.sockets[try handleID(call, udpMetatable, expected: "udp socket")]?.close()
        return 0
    }
}
