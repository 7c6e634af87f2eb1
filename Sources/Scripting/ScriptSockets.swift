import CLuaShim
import Support

/// What a script owns of the network: its sockets' limit, their closing, their pumping between frames, and
/// how long it may wait on them as the host's time.
extension Script {
    /// Sockets this script holds open (UDP, listeners, connections, closed ones still flushing).
    var openSockets: Int {
        sockets.values.count { !$0.isClosed } + listeners.values.count { !$0.isClosed }
            + streams.values.count { !$0.isClosed } + lingering.count
    }

    /// Nil while the script may open one more socket, else why not. Closed connections still flushing give
    /// their place up first.
    func socketLimitProblem() -> String? {
        if openSockets >= Bindings.maxSocketsPerScript {
            for connection in lingering { connection.abort() }
            lingering.removeAll()
            for connection in streams.values where connection.isLingering { connection.abort() }
        }
        guard openSockets >= Bindings.maxSocketsPerScript else { return nil }
        return "too many sockets: a script may hold \(Bindings.maxSocketsPerScript) open at once (close some)"
    }

    /// Closes every socket the script holds (it failed, unloads or is replaced by a reload): listeners and
    /// UDP at once, connections after one last flush (what still does not fit is dropped).
    func closeSockets() {
        for listener in listeners.values { listener.close() }
        for socket in sockets.values { socket.close() }
        for connection in Array(streams.values) + lingering {
            connection.close()
            connection.abort()
        }
        lingering.removeAll()
    }

    /// A collected connection: bytes it still has to send are flushed between frames (best effort).
    func forget(connection id: Int) {
        guard let connection = streams.removeValue(forKey: id) else { return }
        if connection.isLingering { lingering.append(connection) }
    }

    /// Host time a script may spend waiting on sockets between two frames (or paused redraws).
    nonisolated(unsafe) static var socketWaitAllowance = 60_000

    /// Runs a socket wait as the host's time, so the runaway-script clock stops (a peer's timeouts are longer
    /// than a script's deadline) — up to `socketWaitAllowance` ms between frames; past that, waits count as
    /// the script's own time, so a script that only ever waits is stopped like any other that never returns.
    /// Retrolua's own defaults (netplay's transfer waits on the person's peer) are not limited.
    func waitOnSockets<Result>(_ wait: () -> Result) -> Result {
        let started = SocketSet.monotonicMilliseconds()
        let asHost = isFrontendDefault || socketWaitSpent < Script.socketWaitAllowance
        if asHost { lh_host_work_begin() }
        let result = wait()
        if asHost { lh_host_work_end() }
        socketWaitSpent &+= Int(clamping: SocketSet.monotonicMilliseconds() &- started)
        return result
    }

    /// Between frames: every connection flushes and reads; closed ones done flushing are let go.
    func pumpStreams() {
        socketWaitSpent = 0
        guard !streams.isEmpty || !lingering.isEmpty else { return }
        for connection in streams.values { connection.pump() }
        for connection in lingering { connection.pump() }
        lingering.removeAll { !$0.isLingering }
    }
}
