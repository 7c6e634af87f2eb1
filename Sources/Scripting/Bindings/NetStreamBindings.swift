import CLua
import LuaRuntime
import Support

/// TCP for scripts (`net.tcp_listen`, `net.tcp_connect`, `net.select`): a door over Support's
/// `StreamListener`/`StreamConnection`; which addresses are reachable is `NetworkPermission`'s rule.
extension Bindings {
    static let listenerMetatable = LuaTypeName("retrolua.tcp_listener")
    static let connectionMetatable = LuaTypeName("retrolua.tcp_connection")
    /// Sockets (UDP, listeners, connections) one script may hold open at once.
    static let maxSocketsPerScript = 64

    static let streamFunctions: [LuaFunction] = [
        LuaFunction(
            "tcp_listen", "options?: table", returns: "tcp_listener?, string?",
            doc:
                """
                A TCP listener on `bind` (default `"127.0.0.1:0"`: loopback, a port the system picks; `"*:PORT"` \
                every address, which needs `--trust` or a grant naming it); `backlog` (1…256, default 16) \
                connections may wait to be accepted. `nil, message` without the permission, when the address \
                cannot be bound ("address already in use") or when the script holds 64 sockets.
                """
        ) { run($0, $1, netTCPListen) },
        LuaFunction(
            "tcp_connect", "address: string", returns: "tcp_connection?, string?",
            doc:
                """
                Starts connecting to `address` (`HOST:PORT`) without waiting: `state()` says when it is open \
                (or why it closed). Loopback needs `--allow-net`; other hosts a grant naming them or \
                `--trust`; host names other than `localhost` are looked up only when granted.
                """
        ) { run($0, $1, netTCPConnect) },
        LuaFunction(
            "select", "objects: table, milliseconds?: integer", returns: "table",
            doc:
                """
                The sockets of the list `objects` (TCP listeners and connections, UDP sockets) that are ready — \
                a connection, bytes, a datagram or a closed state waiting — waiting at most `milliseconds` \
                (0…1000, default 0) for the first. The wait is the host's time, not the script's.
                """
        ) { run($0, $1, netSelect) },
        LuaFunction(
            "allowed", returns: "string?, table",
            doc:
                """
                What this script may reach: `"all"`, `"loopback"` (plus the granted `HOST[:PORT]` texts, the \
                second result) or nil with an empty list when it has no network permission.
                """
        ) { run($0, $1, netAllowed) },
    ]

    static let listenerMethods: [LuaFunction] = [
        LuaFunction(
            "accept", returns: "tcp_connection?, string?",
            doc:
                """
                The next waiting connection, or nil when none is waiting (never blocks); `nil, message` when \
                the script already holds 64 sockets (the connection keeps waiting).
                """
        ) { run($0, $1, listenerAccept) },
        LuaFunction(
            "wait", "milliseconds: integer", returns: "boolean",
            doc: "Sleeps until a connection is waiting or `milliseconds` (0…1000) pass; whether one is waiting."
        ) { run($0, $1, listenerWait) },
        LuaFunction("address", returns: "string", doc: "The address listened on, with the port the system picked.") {
            run($0, $1, listenerAddress)
        },
        LuaFunction("close", doc: "Stops listening (also when it is collected or the script ends).") {
            run($0, $1, listenerClose)
        },
        LuaFunction("__gc", doc: "Stops listening when it is collected.") {
            collectHandle($0, $1, listenerMetatable) { script, id in script.listeners[id] = nil }
        },
    ]

    static let connectionMethods: [LuaFunction] = [
        LuaFunction(
            "state", returns: "string, string?",
            doc:
                """
                `"connecting"`, `"open"` or `"closed"` and why (`"closed by the peer"`, `"connection \
                refused"`, `"closed"` when closed here, …). Closed by the peer means once its bytes are read.
                """
        ) { run($0, $1, connectionState) },
        LuaFunction(
            "send", "data: string", returns: "integer?, string?",
            doc:
                """
                Copies what fits of `data` into the send buffer (1 MiB), flushed now, on every call and between \
                frames: how many bytes were taken (fewer than `#data`, even 0, when the buffer is full — send \
                the rest later), or `nil, "closed"`.
                """
        ) { run($0, $1, connectionSend) },
        LuaFunction(
            "receive", "max?: integer", returns: "string?, string?",
            doc:
                """
                The bytes arrived so far, at most `max` (default: all buffered, up to 1 MiB; the peer waits \
                while the buffer is full); `nil, "timeout"` when none are waiting, `nil, "closed"` once \
                everything has been read and the peer closed or the connection failed.
                """
        ) { run($0, $1, connectionReceive) },
        LuaFunction(
            "wait", "milliseconds: integer", returns: "boolean",
            doc:
                """
                Sleeps until bytes or a change of state are waiting or `milliseconds` (0…1000) pass; whether \
                they are. The wait is the host's time, not the script's.
                """
        ) { run($0, $1, connectionWait) },
        LuaFunction("pending", returns: "integer", doc: "Bytes accepted by `send` and not yet sent.") {
            run($0, $1, connectionPending)
        },
        LuaFunction("address", returns: "string", doc: "This end's address (`IP:PORT`).") {
            run($0, $1, connectionAddress)
        },
        LuaFunction("peer", returns: "string", doc: "The other end's address (`IP:PORT`).") {
            run($0, $1, connectionPeer)
        },
        LuaFunction(
            "shutdown", "how: string",
            doc:
                """
                `"send"`: a half-close — `send` takes nothing more, and once the pending bytes are out the \
                peer sees the end of the stream; receiving goes on (LuaSocket's `shutdown("send")`).
                """
        ) { run($0, $1, connectionShutdown) },
        LuaFunction(
            "close",
            doc: "Closes the connection; bytes still pending are flushed between frames, best effort."
        ) { run($0, $1, connectionClose) },
        LuaFunction("__gc", doc: "Closes the connection when it is collected.") {
            collectHandle($0, $1, connectionMetatable) { script, id in script.forget(connection: id) }
        },
    ]

    // MARK: - The functions

    private static func netTCPListen(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let permission = script.networkAccess() else { return call.failure(NetworkPermission.refusal) }
        var address = "127.0.0.1:0", backlog = 16
        if try call.optionalTable(1, "options") {
            address = try call.stringField(1, "bind", argument: 1) ?? address
            if let value = try call.integerField(1, "backlog", argument: 1) {
                guard (1...StreamListener.maxBacklog).contains(value) else {
                    throw call.badField(1, "backlog", "must be 1…\(StreamListener.maxBacklog)")
                }
                backlog = value
            }
        }
        if let full = script.socketLimitProblem() { return call.failure(full) }
        let listener: StreamListener
        do {
            switch try permission.resolve(address, binding: true) {
            case .address(let target):
                let port = try SocketAddress.split(address).port
                listener = try StreamListener(binding: target, port: port, backlog: backlog)
            case .everyAddress(let port):
                listener = try StreamListener(binding: nil, port: port, backlog: backlog)
            }
        } catch {
            return call.failure(error.description)
        }
        pushNewHandle(listener, call, script, in: \.listeners, listenerMetatable)
        return 1
    }

    private static func netTCPConnect(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let address = try call.string(1, "address")
        guard let permission = script.networkAccess() else { return call.failure(NetworkPermission.refusal) }
        if let full = script.socketLimitProblem() { return call.failure(full) }
        let connection: StreamConnection
        do {
            guard case .address(let target) = try permission.resolve(address, binding: false) else {
                return call.failure("'\(address)': not an address to connect to")
            }
            connection = try StreamConnection(connectingTo: target)
        } catch {
            return call.failure(error.description)
        }
        pushNewHandle(connection, call, script, in: \.streams, connectionMetatable)
        return 1
    }

    /// Longest list `net.select` takes (a list may name a socket twice; each entry costs a poll slot).
    static let maxSelected = 1024

    private static func netSelect(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try call.table(1, "objects")
        let milliseconds = try call.optionalInteger(2, "milliseconds") ?? 0
        guard (0...1000).contains(milliseconds) else { throw call.badArgument(2, "milliseconds", "must be 0…1000") }
        let count = Int(clamping: lua_rawlen(call.L, 1))
        guard count <= maxSelected else { throw call.badArgument(1, "objects", "at most \(maxSelected) sockets") }
        var members: [SocketSet.Member] = []
        var indices: [Int] = []
        for index in stride(from: 1, through: count, by: 1) {
            lua_rawgeti(call.L, 1, lua_Integer(index))
            defer { lua_settop(call.L, -2) }
            if let memory = luaL_testudata(call.L, -1, connectionMetatable.cString) {
                if let connection = script.streams[memory.load(as: Int.self)] {
                    members.append(.connection(connection))
                    indices.append(index)
                }
            } else if let memory = luaL_testudata(call.L, -1, listenerMetatable.cString) {
                if let listener = script.listeners[memory.load(as: Int.self)] {
                    members.append(.listener(listener))
                    indices.append(index)
                }
            } else if let memory = luaL_testudata(call.L, -1, udpMetatable.cString) {
                if let socket = script.sockets[memory.load(as: Int.self)] {
                    members.append(.datagram(socket))
                    indices.append(index)
                }
            } else {
                throw call.badArgument(
                    1, "objects", "entry \(index) is a \(call.typeName(-1)), not a socket from the net module")
            }
        }
        let ready = script.waitOnSockets { SocketSet.wait(members, milliseconds: milliseconds) }
        call.newTable(array: ready.count { $0 })
        var slot: lua_Integer = 1
        for (position, isReady) in ready.enumerated() where isReady {
            lua_rawgeti(call.L, 1, lua_Integer(indices[position]))
            lua_rawseti(call.L, -2, slot)
            slot += 1
        }
        return 1
    }

    private static func netAllowed(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let (level, grants) = script.networkPermission.summary
        if let level { call.push(level) } else { call.pushNil() }
        call.pushList(grants) { grant in
            call.push(grant)
        }
        return 2
    }

    // MARK: Listener methods

    private static func selfListener(_ call: LuaCall, _ script: Script) throws(LuaCallError) -> StreamListener {
        let id = try handleID(call, listenerMetatable, expected: "tcp listener")
        guard let listener = script.listeners[id], !listener.isClosed else {
            throw call.error("the listener is closed")
        }
        return listener
    }

    private static func listenerAccept(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let listener = try selfListener(call, script)
        if let full = script.socketLimitProblem() {
            // Nothing is taken from the queue: the peer waits, and the script may close something first.
            guard listener.isReady else {
                call.pushNil()
                return 1
            }
            return call.failure(full)
        }
        guard let connection = listener.accept() else {
            call.pushNil()
            return 1
        }
        pushNewHandle(connection, call, script, in: \.streams, connectionMetatable)
        return 1
    }

    private static func listenerWait(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let listener = try selfListener(call, script)
        let milliseconds = try waitArgument(call)
        return call.returning(script.waitOnSockets { listener.wait(milliseconds: milliseconds) })
    }

    private static func listenerAddress(_ call: LuaCall, _ script: Script) throws -> Int32 {
        call.returning(try selfListener(call, script).localAddress)
    }

    private static func listenerClose(_ call: LuaCall, _ script: Script) throws -> Int32 {
        script.listeners[try handleID(call, listenerMetatable, expected: "tcp listener")]?.close()
        return 0
    }

    private static func waitArgument(_ call: LuaCall) throws(LuaCallError) -> Int {
        let milliseconds = try call.integer(2, "milliseconds")
        guard (0...1000).contains(milliseconds) else { throw call.badArgument(2, "milliseconds", "must be 0…1000") }
        return milliseconds
    }

    // MARK: Connection methods

    /// The connection `self` names; a closed one is still returned (its state and last bytes are read).
    private static func selfConnection(_ call: LuaCall, _ script: Script) throws(LuaCallError) -> StreamConnection? {
        script.streams[try handleID(call, connectionMetatable, expected: "tcp connection")]
    }

    private static func connectionState(_ call: LuaCall, _ script: Script) throws -> Int32 {
        guard let connection = try selfConnection(call, script) else {
            call.push("closed")
            call.push("closed")
            return 2
        }
        connection.pump()
        switch connection.state {
        case .connecting: return call.returning("connecting")
        case .open: return call.returning("open")
        case .closed(let why):
            call.push("closed")
            call.push(why)
            return 2
        }
    }

    private static func connectionSend(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let connection = try selfConnection(call, script)
        let data = try call.bytes(2, "data")
        guard let connection, let taken = connection.send(data) else { return call.failure("closed") }
        return call.returning(taken)
    }

    private static func connectionReceive(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let connection = try selfConnection(call, script)
        let limit = try call.optionalInteger(2, "max")
        if let limit, limit < 1 { throw call.badArgument(2, "max", "must be at least 1") }
        guard let connection else { return call.failure("closed") }
        let bytes = connection.receive(max: limit ?? Int.max)
        guard bytes.isEmpty else {
            bytes.withUnsafeBytes { call.push(bytes: $0) }
            return 1
        }
        if case .closed = connection.state { return call.failure("closed") }
        return call.failure("timeout")
    }

    private static func connectionWait(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let connection = try selfConnection(call, script)
        let milliseconds = try waitArgument(call)
        guard let connection else { return call.returning(true) }
        return call.returning(script.waitOnSockets { connection.wait(milliseconds: milliseconds) })
    }

    private static func connectionPending(_ call: LuaCall, _ script: Script) throws -> Int32 {
        call.returning(try selfConnection(call, script)?.pending ?? 0)
    }

    private static func connectionAddress(_ call: LuaCall, _ script: Script) throws -> Int32 {
        call.returning(try selfConnection(call, script)?.localAddress ?? "?")
    }

    private static func connectionPeer(_ call: LuaCall, _ script: Script) throws -> Int32 {
        call.returning(try selfConnection(call, script)?.peerAddress ?? "?")
    }

    private static func connectionShutdown(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let how = try call.string(2, "how")
        guard how == "send" else { throw call.badArgument(2, "how", "must be \"send\", got '\(how)'") }
        try selfConnection(call, script)?.shutdownSending()
        return 0
    }

    private static func connectionClose(_ call: LuaCall, _ script: Script) throws -> Int32 {
        try selfConnection(call, script)?.close()
        return 0
    }
}
