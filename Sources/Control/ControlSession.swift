import Emulation
import Foundation
import Libretro
import Support
import Glibc

/// The control socket's commands (JSON lines, one reply per request): step with input, memory,
/// states, the frame and audio, info, reset, quit, and — with --trust — Lua evaluation.
/// Protocol reference: docs/guides/control-socket.md.
public final class ControlSession {
    /// The emulator every door's request runs against.
    let emulator: Emulator
    /// The scenario and `eval`, from the run's scripts (none: neither is offered).
    let scripts: (any ControlScripts)?
    /// `--scenario`: a script whose global `reward()` and `done()` are reported after each step.
    var scenario: (any ControlScenario)?
    let allowEval: Bool
    /// Sound since the last `audio` request (interleaved stereo int16): the last 30 to 60 seconds of it.
    private var audio: [Int16] = []
    public private(set) var quitRequested = false
    /// `--die-with-parent`: the run ends once the process that started it is gone (its pid, else nil).
    public var parent: pid_t?
    /// `--exit-on-disconnect`: the run ends when its last client leaves (after the first came).
    public var exitOnDisconnect = false
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
            audio.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
            // Unclaimed sound is dropped half a minute at a time, so keeping it costs O(1) per frame.
            if audio.count > limit { audio.removeFirst(audio.count - limit / 2) }
        }
    }

    deinit { emulator.session.core.onAudio = previousOnAudio }

    /// Headless: serves requests until `quit`, `emu.exit` or a stop signal; the emulator runs only when
    /// a client steps it. Clients may come and go.
    public func serve(_ server: ControlServer) -> RunReport {
        let meter = RunMeter(emulator.session)
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        while !quitRequested && emulator.exitCode == nil && !StopSignals.isRequested {
            // Polled without sleeping for a moment after each request: a client stepping in a loop sends
            // its next one within microseconds, and waking a sleeping CPU for it costs more than a frame's
            // share (on VMs, 50–200 µs a wake-up). Past the window the wait blocks as before.
            let now = DispatchTime.now().uptimeNanoseconds
            let spinning = now &- lastActivity < Self.spinNanoseconds
            if server.poll(timeout: spinning ? 0 : 0.1, start) { lastActivity = DispatchTime.now().uptimeNanoseconds }
            if isAbandoned(server) { break }
        }
        return meter.report()
    }

    /// Loads the scenario script (its main chunk defines `reward()` and `done()`). A main chunk that
    /// fails is the scenario's error (the run refuses to start): the host would drop the script and
    /// every step would score 0, or the `reward()` of another script.
    public func loadScenario(_ path: String) throws {
        guard let scripts else { throw ControlError("a scenario needs scripts") }
        scenario = try scripts.loadScenario(at: path)
    }

    /// Handles one request line to the end (a long step runs all its slices); returns the reply line.
    public func handle(_ line: String) -> String {
        switch start(Array(line.utf8)[...]) {
        case .reply(let reply): return reply
        case .continuing(let work):
            while true { if let reply = work() { return reply } }
        case .binary: return encode(["ok": false, "error": "binary needs a connection to the socket"])
        }
    }

    /// Starts one request line: its reply, or (a long step) work the server runs a slice at a time.
    public func start(_ line: ArraySlice<UInt8>) -> ControlOutcome {
        do throws(ControlError) {
            let request = try ControlRequest(line)
            guard let command = try request.string("cmd") else { throw ControlError("the request has no \"cmd\"") }
            if command == "step" {
                let step = try ControlStep(request, session: self)
                return .continuing { [self] in step.runSlice().map(encode) }
            }
            if command == "binary" {
                let door = try ControlBinaryDoor(session: self)
                return .binary(door, encode(door.handshake))
            }
            return .reply(encode(try perform(command, request)))
        } catch {
            return .reply(encode(["ok": false, "error": error.description]))
        }
    }

    func encode(_ fields: [String: Any]) -> String { ControlReply.encode(fields) }

    func requestQuit() { quitRequested = true }

    /// `--die-with-parent` and the parent is gone (we were reparented), or `--exit-on-disconnect`
    /// and the last client left.
    public func isAbandoned(_ server: ControlServer) -> Bool {
        if let parent, getppid() != parent { return true }
        return exitOnDisconnect && server.everConnected && server.clientCount == 0
    }

    /// Up to `count` samples (interleaved stereo) of the sound not yet taken, oldest first.
    func takeAudio(upTo count: Int) -> [Int16] {
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

    private func perform(_ command: String, _ request: ControlRequest) throws(ControlError) -> [String: Any] {
        do { return try perform(command, request, emulator) } catch { throw ControlFacts.error(error) }
    }

    private func perform(_ command: String, _ request: ControlRequest, _ emulator: Emulator) throws -> [String: Any] {
        switch command {
        case "hello": return [:]  // Unix peers are admitted by their uid; TCP's hello is the server's.
        case "read", "write": return try performMemory(command, request, emulator)
        case "save_state", "load_state": return try performState(command, request, emulator)
        case "frame", "audio": return try performPicture(command, request, emulator)
        case "info", "reset", "quit", "eval": return try performSession(command, request, emulator)
        default:
            throw ControlError(
                """
                unknown command '\(command.prefix(40))' (commands: hello, step, read, write, save_state, load_state, \
                frame, audio, info, reset, quit, eval, binary)
                """
            )
        }
    }

    /// Reads and writes of memory.
    private func performMemory(
        _ command: String, _ request: ControlRequest, _ emulator: Emulator
    ) throws -> [String: Any] {
        switch command {
        case "read":
            let length = try request.integer("length", in: 1...ControlFacts.maxRead) ?? 1
            let (domain, address) = try place(request)
            // On a bus, gathered across blocks and mirrors (refused where unmapped).
            return ["data": ControlPayload(Data(try emulator.memory.read(domain, address: address, count: length)))]
        case "write":
            guard let text = try request.string("data"), let bytes = Data(base64Encoded: text) else {
                throw ControlError("write needs \"data\": base64 bytes")
            }
            if let length = try request.integer("length"), length != bytes.count {
                throw ControlError("\"length\" (\(length)) differs from the \(bytes.count) bytes of \"data\"")
            }
            let (domain, address) = try place(request)
            try emulator.write([UInt8](bytes), to: domain, address: address)
            return [:]
        default:
            preconditionFailure("\(#function) does not answer \(command)")
        }
    }

    /// Savestates, to a slot or in the reply.
    private func performState(
        _ command: String, _ request: ControlRequest, _ emulator: Emulator
    ) throws -> [String: Any] {
        let session = emulator.session
        switch command {
        case "save_state":
            if let slot = try request.integer("slot") {
                try emulator.saveState(to: .slot(slot))
                return ["slot": slot]
            }
            let bytes = try emulator.encodeState()
            return ["state": ControlPayload(Data(bytes))]
        case "load_state":
            if let slot = try request.integer("slot") {
                try emulator.loadState(from: .slot(slot))
            } else if let text = try request.string("state"), let data = Data(base64Encoded: text) {
                try emulator.loadState([UInt8](data), trusted: false)
            } else {
                throw ControlError("load_state needs \"slot\" or \"state\" (base64)")
            }
            return ["frame": session.frameCount]
        default:
            preconditionFailure("\(#function) does not answer \(command)")
        }
    }

    /// The picture and the sound.
    private func performPicture(
        _ command: String, _ request: ControlRequest, _ emulator: Emulator
    ) throws -> [String: Any] {
        let session = emulator.session
        switch command {
        case "frame":
            let format = try request.string("format") ?? "rgb"
            guard ["rgb", "rgba", "native"].contains(format) else {
                throw ControlError("\"format\" is rgb, rgba or native")
            }
            if format == "native" {
                // The core's own pixels (its pixel format, rows packed), without the overlay: the cheapest.
                guard let frame = session.core.currentFrame() else {
                    throw ControlError("the core has not drawn a frame yet")
                }
                return [
                    "width": frame.width, "height": frame.height, "format": "native",
                    "pixel_format": frame.format.description,
                    "data": ControlPayload(Data(frame.pixels)),
                ]
            }
            guard let frame = emulator.picture() else { throw ControlError("the core has not drawn a frame yet") }
            let pixels = format == "rgb" ? VideoFrame.rgb(fromRGBA: frame.rgba) : frame.rgba
            return [
                "width": frame.width, "height": frame.height, "format": format,
                "data": ControlPayload(Data(pixels)),
            ]
        case "audio":
            let samples = audio
            audio.removeAll(keepingCapacity: true)
            let data = samples.withUnsafeBytes { Data($0) }
            return [
                "rate": session.core.avInfo?.sampleRate ?? 0, "channels": 2, "frames": samples.count / 2,
                "data": ControlPayload(data),
            ]
        default:
            preconditionFailure("\(#function) does not answer \(command)")
        }
    }

    /// What is running, reset, quit and trusted Lua.
    private func performSession(
        _ command: String, _ request: ControlRequest, _ emulator: Emulator
    ) throws -> [String: Any] {
        let session = emulator.session
        switch command {
        case "info":
            let core = session.core
            let description = ControlFacts.Description(emulator)
            return [
                "core": session.coreName, "core_library": core.systemInfo.libraryName,
                "core_version": core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces),
                "content": session.content?.fileName ?? "", "content_sha1": session.content?.sha1 ?? "",
                "fps": core.avInfo?.fps ?? 0, "sample_rate": core.avInfo?.sampleRate ?? 0,
                "width": core.frameWidth, "height": core.frameHeight, "frame": session.frameCount,
                "lag": session.lagCount,
                "domains": description.domainList,
                "default_domain": description.defaultDomain.map { description.domains[$0].name } ?? "",
                "buttons": ControlFacts.buttons, "scenario": scenario != nil,
            ]
        case "reset":
            try emulator.reset()
            return ["frame": session.frameCount]
        case "quit":
            quitRequested = true
            return [:]
        case "eval":
            guard allowEval else { throw ControlError("eval is only allowed with --trust") }
            guard let source = try request.string("lua") else {
                throw ControlError("eval needs \"lua\": a chunk of Lua")
            }
            guard let scripts else { throw ControlError("eval needs scripts") }
            switch scripts.evaluate(source) {
            case .success(let values): return ["values": values]
            case .failure(let error): throw error
            }
        default:
            preconditionFailure("\(#function) does not answer \(command)")
        }
    }

    /// The domain and address a read or write names: `domain` (default: the default domain), `address`.
    private func place(_ request: ControlRequest) throws -> (MemoryAccess.Domain, Int) {
        guard let address = try request.integer("address") else { throw ControlError("needs \"address\": an integer") }
        return (try emulator.memory.domain(named: try request.string("domain")), address)
    }
}
