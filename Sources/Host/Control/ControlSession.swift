import Emulation
import Foundation
import Libretro
import Support

/// The control socket's commands (JSON lines, one reply per request): step with input, memory,
/// states, the frame and audio, info, reset, quit, and — with --trust — Lua evaluation.
/// Protocol reference: README "Control socket".
public final class ControlSession {
    let host: ScriptHost
    /// `--scenario`: a script whose global `reward()` and `done()` are reported after each step.
    var scenario: Script?
    let allowEval: Bool
    private var evaluator: Script?
    /// Sound since the last `audio` request (interleaved stereo int16): the last 30 to 60 seconds of it.
    private var audio: [Int16] = []
    public private(set) var quitRequested = false

    public init(host: ScriptHost, allowEval: Bool) {
        self.host = host
        self.allowEval = allowEval
        let core = host.session.core
        let previous = core.onAudio
        let limit = Int((core.avInfo?.sampleRate ?? 48000) * 60) * 2
        core.onAudio = { [unowned self] samples, frames in
            previous?(samples, frames)
            audio.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
            // Unclaimed sound is dropped half a minute at a time, so keeping it costs O(1) per frame.
            if audio.count > limit { audio.removeFirst(audio.count - limit / 2) }
        }
    }

    /// Headless: serves requests until `quit`, `emu.exit` or a stop signal; the emulator runs only when
    /// a client steps it. Clients may come and go.
    public func serve(_ server: ControlServer) -> RunReport {
        let session = host.session
        let (framesBefore, lagBefore) = (session.frameCount, session.lagCount)
        let start = DispatchTime.now().uptimeNanoseconds
        while !quitRequested && host.emulator.exitCode == nil && !StopSignals.isRequested {
            server.poll(timeout: 0.1, handle)
        }
        return RunReport(
            frames: session.frameCount - framesBefore,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
            lagFrames: session.lagCount - lagBefore, lastFrame: session.core.currentFrame())
    }

    /// Loads the scenario script (its main chunk defines `reward()` and `done()`).
    public func loadScenario(_ path: String) throws(ScriptError) {
        try host.load(scriptAt: path)
        scenario = host.scripts.last
    }

    /// Handles one request line; returns the reply line.
    public func handle(_ line: String) -> String {
        let reply: [String: Any]
        do {
            guard let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ControlError("a request is a JSON object, e.g. {\"cmd\": \"info\"}")
            }
            guard let command = request["cmd"] as? String else { throw ControlError("the request has no \"cmd\"") }
            var result = try perform(command, request)
            result["ok"] = true
            reply = result
        } catch let error as ControlError {
            reply = ["ok": false, "error": error.description]
        } catch {
            reply = ["ok": false, "error": "malformed request: not valid JSON"]
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys]))
            ?? Data("{\"ok\":false,\"error\":\"the reply could not be encoded\"}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private func perform(_ command: String, _ request: [String: Any]) throws(ControlError) -> [String: Any] {
        do {
            return try perform(command, request, host.emulator)
        } catch let error as ControlError {
            throw error
        } catch let refusal as Refusal {
            throw ControlError(refusal.reason)  // The socket's one translation of the emulator's refusals.
        } catch {
            throw ControlError("\(error)")
        }
    }

    private func perform(_ command: String, _ request: [String: Any], _ emulator: Emulator) throws -> [String: Any] {
        let session = emulator.session
        switch command {
        case "step": return try step(request)
        case "read":
            let length = request["length"] as? Int ?? 1
            guard (1...(16 << 20)).contains(length) else { throw ControlError("\"length\" must be 1…16777216") }
            let (domain, address) = try place(request)
            let pointer = try emulator.memory.pointer(domain, address: address, width: length)
            return ["data": Data(bytes: pointer, count: length).base64EncodedString()]
        case "write":
            guard let text = request["data"] as? String, let bytes = Data(base64Encoded: text) else {
                throw ControlError("write needs \"data\": base64 bytes")
            }
            guard request["length"] == nil || (request["length"] as? Int) == bytes.count else {
                throw ControlError(
                    "\"length\" (\(request["length"]!)) differs from the \(bytes.count) bytes of \"data\"")
            }
            let (domain, address) = try place(request)
            try emulator.write([UInt8](bytes), to: domain, address: address)
            return [:]
        case "save_state":
            if let slot = request["slot"] {
                guard let slot = slot as? Int else { throw ControlError("\"slot\" must be 0…999") }
                try emulator.saveState(to: .slot(slot))
                return ["slot": slot]
            }
            let bytes = try emulator.encodeState()
            return ["state": Data(bytes).base64EncodedString()]
        case "load_state":
            if let slot = request["slot"] {
                guard let slot = slot as? Int else { throw ControlError("\"slot\" must be 0…999") }
                try emulator.loadState(from: .slot(slot))
            } else if let text = request["state"] as? String, let data = Data(base64Encoded: text) {
                try emulator.loadState([UInt8](data), trusted: false)
            } else {
                throw ControlError("load_state needs \"slot\" or \"state\" (base64)")
            }
            return ["frame": session.frameCount]
        case "frame":
            let format = request["format"] as? String ?? "rgb"
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
                    "data": Data(frame.pixels).base64EncodedString(),
                ]
            }
            guard let frame = host.frameWithOverlay() else { throw ControlError("the core has not drawn a frame yet") }
            var pixels = frame.rgba
            if format == "rgb" {
                var rgb = [UInt8](repeating: 0, count: frame.width * frame.height * 3)
                for index in 0..<frame.width * frame.height {
                    rgb[index * 3] = pixels[index * 4]
                    rgb[index * 3 + 1] = pixels[index * 4 + 1]
                    rgb[index * 3 + 2] = pixels[index * 4 + 2]
                }
                pixels = rgb
            }
            return [
                "width": frame.width, "height": frame.height, "format": format,
                "data": Data(pixels).base64EncodedString(),
            ]
        case "audio":
            let samples = audio
            audio.removeAll(keepingCapacity: true)
            let data = samples.withUnsafeBytes { Data($0) }
            return [
                "rate": session.core.avInfo?.sampleRate ?? 0, "channels": 2, "frames": samples.count / 2,
                "data": data.base64EncodedString(),
            ]
        case "info":
            let core = session.core
            return [
                "core": session.coreName, "core_library": core.systemInfo.libraryName,
                "core_version": core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces),
                "content": session.content?.fileName ?? "", "content_sha1": session.content?.sha1 ?? "",
                "fps": core.avInfo?.fps ?? 0, "sample_rate": core.avInfo?.sampleRate ?? 0,
                "width": core.frameWidth, "height": core.frameHeight, "frame": session.frameCount,
                "lag": session.lagCount,
                "domains": emulator.memory.names.enumerated().map {
                    ["name": $1, "size": emulator.memory.domains[$0].size]
                },
                "default_domain": emulator.memory.domains.isEmpty
                    ? "" : emulator.memory.names[emulator.memory.defaultIndex],
                "buttons": RetroPadButton.allCases.map(\.name), "scenario": scenario != nil,
            ]
        case "reset":
            try emulator.reset()
            return ["frame": session.frameCount]
        case "quit":
            quitRequested = true
            return [:]
        case "eval":
            guard allowEval else { throw ControlError("eval is only allowed with --trust") }
            guard let source = request["lua"] as? String else {
                throw ControlError("eval needs \"lua\": a chunk of Lua")
            }
            if evaluator == nil {
                do { evaluator = try Script(path: "control", host: host, source: "") } catch {
                    throw ControlError(error.message)
                }
            }
            switch evaluator!.evaluate(source) {
            case .success(let values): return ["values": values]
            case .failure(let message): throw ControlError(message.description)
            }
        default:
            throw ControlError(
                """
                unknown command '\(command)' (commands: step, read, write, save_state, load_state, frame, audio, \
                info, reset, quit, eval)
                """
            )
        }
    }

    /// `{"cmd": "step", "frames": N, "input": {"a": true, …} | "inputs": [{…}, {…}]}`: holds the input
    /// for N frames (the player's layer, under scripts); stops early when the scenario says done.
    private func step(_ request: [String: Any]) throws(ControlError) -> [String: Any] {
        let frames = request["frames"] as? Int ?? 1
        guard (0...1_000_000).contains(frames) else { throw ControlError("\"frames\" must be 0…1000000") }
        let emulator = host.emulator
        var input = emulator.playerInput
        var ports: [[String: Any]] = []
        if let one = request["input"] {
            guard let table = one as? [String: Any] else {
                throw ControlError("\"input\" is an object of buttons, e.g. {\"a\": true}")
            }
            ports = [table]
        } else if let many = request["inputs"] {
            guard let list = many as? [[String: Any]], list.count <= InputState.maxPorts else {
                throw ControlError("\"inputs\" is a list of up to 8 button objects")
            }
            ports = list
        }
        for (port, table) in ports.enumerated() {
            input.buttons[port] = 0
            for (name, value) in table {
                guard let button = RetroPadButton.named(name) else {
                    throw ControlError(
                        """
                        unknown button '\(name)' (buttons: \
                        \(RetroPadButton.allCases.map(\.name).joined(separator: ", ")))
                        """
                    )
                }
                guard let pressed = value as? Bool else { throw ControlError("button '\(name)' must be true or false") }
                input.set(button, pressed, port: port)
            }
        }
        emulator.playerInput = input
        var reward = 0.0, done = false, ran = 0, lagged = 0
        while ran < frames && !done && emulator.exitCode == nil && !StopSignals.isRequested {
            emulator.runFrame()
            ran += 1
            if host.session.lastFrameLagged { lagged += 1 }
            if let scenario, !scenario.failed {
                if case .success(let value) = scenario.callGlobal("reward") {
                    reward += (value as? Double) ?? (value as? Int).map(Double.init) ?? 0
                }
                if case .success(let value) = scenario.callGlobal("done"), let flag = value as? Bool { done = flag }
            }
        }
        var reply: [String: Any] = ["frame": host.session.frameCount, "frames": ran, "lag": lagged]
        if scenario != nil {
            reply["reward"] = reward
            reply["done"] = done
        }
        if let failure = scenario?.failed == true ? host.failures.last : nil {
            reply["scenario_error"] = failure.message
        }
        return reply
    }

    /// The domain and address a read or write names: `domain` (default: the default domain), `address`.
    private func place(_ request: [String: Any]) throws -> (MemoryAccess.Domain, Int) {
        guard let address = request["address"] as? Int else { throw ControlError("needs \"address\": an integer") }
        if let name = request["domain"], !(name is String) { throw ControlError("\"domain\" is a domain's name") }
        return (try host.emulator.memory.domain(named: request["domain"] as? String), address)
    }
}
