import Emulation
import Foundation
import Libretro
import Support
import Glibc

/// The control socket's JSON door (one reply per request line): the session a run's socket serves —
/// its scenario, its sound, its quit request; the commands themselves are in ControlCommands.swift.
/// Protocol reference: docs/guides/control-socket.md.
public final class ControlSession {
    /// The emulator every door's request runs against.
    let emulator: Emulator
    /// The scenario, `eval` and the console, from the run's scripts (none: neither is offered).
    let scripts: (any ControlScripts)?
    /// Encodes the `frame` request's PNG (handed in: the doors link no image library).
    public var encodePNG: ((RGBAImage) throws -> [UInt8])?
    /// `--scenario`: a script whose global `reward()` and `done()` are reported after each step.
    var scenario: (any ControlScenario)?
    let allowEval: Bool
    /// Sound since the last `audio` request (interleaved stereo int16): the last 30 to 60 seconds of it.
    var audio: [Int16] = []
    /// Whether sound is kept for `audio` requests. A run's own socket (`retrolua attach`) keeps none until
    /// the first request for it: most of its clients never ask, and half a minute of sound is megabytes.
    public var keepsAudio = true
    public private(set) var quitRequested = false
    /// `--die-with-parent`: the run ends once the process that started it is gone (its pid, else nil).
    public var parent: pid_t?
    /// `--exit-on-disconnect`: the run ends when its last client leaves (after the first came).
    public var exitOnDisconnect = false
    /// Whether this session's loop answers batch lanes: the headless serve loop does; a window's loop,
    /// which polls the socket between its own frames, does not (a `batch` request is refused there).
    public private(set) var servesLanes = false
    /// How long the serve loop keeps polling without sleeping after a request (see `serve`).
    static let spinNanoseconds: UInt64 = 2_000_000

    /// The audio hook this session replaced, put back when it ends (the core outlives the session).
    private let previousOnAudio: ((UnsafePointer<Int16>, Int) -> Void)?

    public init(emulator: Emulator, scripts: (any ControlScripts)?, allowEval: Bool) {
        self.emulator = emulator
        self.scripts = scripts
        self.allowEval = allowEval
        let core = emulator.session.core
        let previous = core.onAudio
        previousOnAudio = previous
        let limit = Int((core.avInfo?.sampleRate ?? 48000) * 60) * 2
        core.onAudio = { [unowned self] samples, frames in
            previous?(samples, frames)
            guard keepsAudio else { return }
            audio.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
            // Unclaimed sound is dropped half a minute at a time, so keeping it costs O(1) per frame.
            if audio.count > limit { audio.removeFirst(audio.count - limit / 2) }
        }
    }

    deinit { emulator.session.core.onAudio = previousOnAudio }

    /// Headless: serves requests until `quit`, `emu.exit` or a stop signal; the emulator runs only when
    /// a client steps it. Clients may come and go.
    public func serve(_ server: ControlServer) -> RunReport {
        servesLanes = true
        defer { servesLanes = false }
        let meter = RunMeter(emulator.session)
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        while !quitRequested && emulator.exitCode == nil && !StopSignals.isRequested {
            // Polled without sleeping for a moment after each request: a client stepping in a loop sends
            // its next one within microseconds, and waking a sleeping CPU for it costs more than a frame's
            // share (on VMs, 50–200 µs a wake-up). Past the window the wait blocks as before.
            let now = DispatchTime.now().uptimeNanoseconds
            let spinning = now &- lastActivity < Self.spinNanoseconds
            let lanes = server.batchDoors
            if lanes.isEmpty {
                if server.poll(timeout: spinning ? 0 : 0.1, start) {
                    lastActivity = DispatchTime.now().uptimeNanoseconds
                }
            } else if serveLanes(lanes, server: server, spinning: spinning) {
                lastActivity = DispatchTime.now().uptimeNanoseconds
            }
            if isAbandoned(server) { break }
        }
        return meter.report()
    }

    /// A turn of a batch member: the sockets (without waiting), then the lanes' requests; with none,
    /// the wait is on the batch region's futex (50 ms at most, so sockets, signals and the parent are
    /// still looked at), or, just after a request, a yield that leaves the CPU to the trainer.
    private func serveLanes(_ doors: [ControlBinaryDoor], server: ControlServer, spinning: Bool) -> Bool {
        var busy = server.poll(timeout: 0, start)
        for door in doors where door.serveLane() { busy = true }
        if !busy, let lane = doors.first?.lane {
            if spinning { sched_yield() } else { lane.waitForRequest(nanoseconds: 50_000_000) }
        }
        return busy
    }

    /// Loads the scenario script (its main chunk defines `reward()` and `done()`). A main chunk that
    /// fails is the scenario's error (the run refuses to start): the host would drop the script and
    /// every step would score 0, or the `reward()` of another script.
    public func loadScenario(_ path: String) throws {
        guard let scripts else { throw ControlError("a scenario needs scripts") }
        scenario = try scripts.loadScenario(at: path)
    }

    /// The connection of requests handled in-process (`handle`), which never ends.
    private let ownConnection = ControlConnection()

    /// Handles one request line to the end (a long step runs all its slices); returns the reply line.
    public func handle(_ line: String) -> String {
        switch start(Array(line.utf8)[...], ownConnection) {
        case .reply(let reply): return reply
        case .continuing(let work):
            while true { if let reply = work() { return reply } }
        case .binary: return encode(["ok": false, "error": "binary needs a connection to the socket"])
        }
    }

    /// Starts one request line from `connection`: its reply, or (a long step) work the server runs a slice
    /// at a time.
    public func start(_ line: ArraySlice<UInt8>, _ connection: ControlConnection) -> ControlOutcome {
        do throws(ControlError) {
            let request = try ControlRequest(line)
            try noteActivity(request, from: connection)
            guard let name = try request.string("cmd") else { throw ControlError("the request has no \"cmd\"") }
            switch try ControlCommand.named(name) {
            case .step:
                let step = try ControlStep(request, session: self)
                return .continuing { [self] in step.runSlice().map(encode) }
            case .binary:
                let door = try ControlBinaryDoor(session: self)
                return .binary(door, encode(door.handshake))
            case let command:
                return .reply(encode(try perform(command, request)))
            }
        } catch {
            return .reply(encode(["ok": false, "error": error.description]))
        }
    }

    func encode(_ fields: [String: Any]) -> String { ControlReply.encode(fields) }

    /// `"activity": "text"` on any request: what the client is doing now, told to the scripts when it changes
    /// (`agent(text)`; "" clears it: `agent(nil)`), and `agent(nil)` once its connection ends.
    private func noteActivity(_ request: ControlRequest, from connection: ControlConnection) throws(ControlError) {
        guard let value = request.fields["activity"] else { return }
        guard let text = value as? String else { throw ControlRequest.wrong("activity", "a string", value) }
        let kept = ControlConnection.kept(text)
        guard kept != connection.activity else { return }
        connection.activity = kept
        connection.onEnd = kept == nil ? nil : { [weak self] in self?.emulator.tell(agentActivity: nil) }
        emulator.tell(agentActivity: kept)
    }

    func requestQuit() { quitRequested = true }

    /// `--die-with-parent` and the parent is gone (we were reparented), or `--exit-on-disconnect`
    /// and the last client left.
    public func isAbandoned(_ server: ControlServer) -> Bool {
        if let parent, getppid() != parent { return true }
        return exitOnDisconnect && server.everConnected && server.clientCount == 0
    }

    /// Up to `count` samples (interleaved stereo) of the sound not yet taken, oldest first.
    func takeAudio(upTo count: Int) -> [Int16] {
        keepsAudio = true
        let taken = Array(audio.prefix(count & ~1))
        audio.removeFirst(taken.count)
        return taken
    }

    /// After a frame: the scenario's `reward()` and `done()` (nil without a scenario or once it failed).
    func scoreFrame() -> (reward: Double, done: Bool)? {
        guard let scenario, !scenario.failed else { return nil }
        let reward = scenario.value(of: "reward")
        let done = scenario.value(of: "done") as? Bool ?? false
        return ((reward as? Double) ?? (reward as? Int).map(Double.init) ?? 0, done)
    }

    /// Why the scenario stopped working (its error), once it has: a step then reports it.
    var scenarioFailure: String? { scenario?.failure.map { "the scenario failed: \($0)" } }

    /// After a step: the scenario's `info()` table of named values (nil without a scenario, without
    /// an `info` function, when it returns no table, or once the scenario failed).
    func scenarioInfo() -> [String: Any]? {
        guard let scenario, !scenario.failed else { return nil }
        return scenario.value(of: "info") as? [String: Any]
    }
}
