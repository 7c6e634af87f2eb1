import Emulation
import Foundation
import Libretro

/// The JSON door's commands by the names requests give them (protocol: docs/guides/control-socket.md).
enum ControlCommand: String, CaseIterable {
    case hello, step, read, write, binary, info, reset, quit, eval, console, complete, frame, audio, tools
    case saveState = "save_state"
    case callTool = "call_tool"
    case loadState = "load_state"

    static func named(_ name: String) throws(ControlError) -> ControlCommand {
        guard let command = ControlCommand(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            throw ControlError("unknown command '\(name.prefix(40))' (commands: \(names))")
        }
        return command
    }
}

/// One method a command: each reads its request's fields and answers through the emulator (or the run's
/// scripts); the emulator's refusals become the door's errors in one place (`ControlFacts.error`).
extension ControlSession {
    func perform(_ command: ControlCommand, _ request: ControlRequest) throws(ControlError) -> [String: Any] {
        do {
            switch command {
            case .hello: return [:]  // Unix peers are admitted by their uid; TCP's hello is the server's.
            case .read: return try read(request)
            case .write: return try write(request)
            case .saveState: return try saveState(request)
            case .loadState: return try loadState(request)
            case .frame: return try frame(request)
            case .audio: return takeAllAudio()
            case .info: return info()
            case .reset:
                try emulator.reset()
                return ["frame": emulator.frameCount]
            case .quit:
                requestQuit()
                return [:]
            case .eval: return try evaluate(request)
            case .console: return try console(request)
            case .complete: return try complete(request)
            case .tools: return try tools()
            case .callTool: return try callTool(request)
            case .step, .binary: preconditionFailure("\(command) starts in ControlSession.start")
            }
        } catch {
            throw ControlFacts.error(error)
        }
    }

    // MARK: Memory

    /// `read`: bytes as base64 (`"encoding": "base64"`, the default) or a list of integers.
    private func read(_ request: ControlRequest) throws -> [String: Any] {
        let length = try request.integer("length", in: 1...ControlFacts.maxRead) ?? 1
        let encoding = try request.string("encoding") ?? "base64"
        guard encoding == "base64" || encoding == "integers" else {
            throw ControlError("\"encoding\" is base64 or integers, got \"\(encoding.prefix(40))\"")
        }
        let (domain, address) = try place(request)
        // On a bus, gathered across blocks and mirrors (refused where unmapped).
        let bytes = try emulator.memory.read(domain, address: address, count: length)
        return encoding == "integers" ? ["values": bytes.map(Int.init)] : ["data": ControlPayload(Data(bytes))]
    }

    private func write(_ request: ControlRequest) throws -> [String: Any] {
        guard let text = try request.string("data"), let bytes = Data(base64Encoded: text) else {
            throw ControlError("write needs \"data\": base64 bytes")
        }
        if let length = try request.integer("length"), length != bytes.count {
            throw ControlError("\"length\" (\(length)) differs from the \(bytes.count) bytes of \"data\"")
        }
        let (domain, address) = try place(request)
        try emulator.write([UInt8](bytes), to: domain, address: address)
        return [:]
    }

    /// The domain and address a read or write names: `domain` (default: the default domain), `address`.
    private func place(_ request: ControlRequest) throws -> (MemoryAccess.Domain, Int) {
        guard let address = try request.integer("address") else { throw ControlError("needs \"address\": an integer") }
        return (try emulator.memory.domain(named: try request.string("domain")), address)
    }

    // MARK: States

    private func saveState(_ request: ControlRequest) throws -> [String: Any] {
        if let slot = try request.integer("slot") {
            try emulator.saveState(to: .slot(slot))
            return ["slot": slot]
        }
        return ["state": ControlPayload(Data(try emulator.encodeState()))]
    }

    private func loadState(_ request: ControlRequest) throws -> [String: Any] {
        if let slot = try request.integer("slot") {
            try emulator.loadState(from: .slot(slot))
        } else if let text = try request.string("state"), let data = Data(base64Encoded: text) {
            try emulator.loadState([UInt8](data), trusted: false)
        } else {
            throw ControlError("load_state needs \"slot\" or \"state\" (base64)")
        }
        return ["frame": emulator.frameCount]
    }

    // MARK: The picture, the sound, the description

    /// `frame`: the composed picture as rgb, rgba or a PNG file (`scale` 1…8 enlarges it), or the core's
    /// own pixels (`native`).
    private func frame(_ request: ControlRequest) throws -> [String: Any] {
        let format = try request.string("format") ?? "rgb"
        guard ["rgb", "rgba", "png", "native"].contains(format) else {
            throw ControlError("\"format\" is rgb, rgba, png or native")
        }
        let scale = try request.integer("scale", in: 1...8) ?? 1
        if format == "native" {
            // The core's own pixels (its pixel format, rows packed), without the overlay: the cheapest.
            guard let frame = emulator.currentFrame() else {
                throw ControlError("the core has not drawn a frame yet")
            }
            return [
                "width": frame.width, "height": frame.height, "format": "native",
                "pixel_format": frame.format.description, "data": ControlPayload(Data(frame.pixels)),
            ]
        }
        guard let picture = emulator.picture()?.scaled(by: scale) else {
            throw ControlError("the core has not drawn a frame yet")
        }
        let bytes: [UInt8]
        switch format {
        case "png":
            guard let encodePNG else { throw ControlError("this run cannot encode PNG") }
            bytes = try encodePNG(picture)
        case "rgb": bytes = VideoFrame.rgb(fromRGBA: picture.rgba)
        default: bytes = picture.rgba
        }
        return [
            "width": picture.width, "height": picture.height, "format": format, "data": ControlPayload(Data(bytes)),
        ]
    }

    private func takeAllAudio() -> [String: Any] {
        keepsAudio = true
        let samples = audio
        audio.removeAll(keepingCapacity: true)
        return [
            "rate": emulator.session.core.avInfo?.sampleRate ?? 0, "channels": 2, "frames": samples.count / 2,
            "data": ControlPayload(samples.withUnsafeBytes { Data($0) }),
        ]
    }

    private func info() -> [String: Any] {
        let session = emulator.session
        let core = session.core
        let description = ControlFacts.Description(emulator)
        return [
            "core": session.coreName, "core_library": core.systemInfo.libraryName,
            "core_version": core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces),
            "content": session.content?.fileName ?? "", "content_sha1": session.content?.sha1 ?? "",
            "fps": core.avInfo?.fps ?? 0, "sample_rate": core.avInfo?.sampleRate ?? 0,
            "width": core.frameWidth, "height": core.frameHeight, "frame": emulator.frameCount,
            "lag": emulator.lagCount, "domains": description.domainList,
            "default_domain": description.defaultDomain.map { description.domains[$0].name } ?? "",
            "buttons": ControlFacts.buttons, "scenario": scenario != nil, "paused": emulator.paused,
            "tools_version": scripts?.toolsVersion ?? 0,
        ]
    }

    // MARK: Lua

    /// `eval` (only with --trust): a chunk in the socket's own state, its values as JSON.
    private func evaluate(_ request: ControlRequest) throws -> [String: Any] {
        guard allowEval else { throw ControlError("eval is only allowed with --trust") }
        guard let source = try request.string("lua") else { throw ControlError("eval needs \"lua\": a chunk of Lua") }
        guard let scripts else { throw ControlError("eval needs scripts") }
        switch scripts.evaluate(source) {
        case .success(let values): return ["values": values]
        case .failure(let error): throw error
        }
    }

    /// `console`: a chunk typed by a person, in the run's console (the scripts' profile, no --trust needed).
    private func console(_ request: ControlRequest) throws -> [String: Any] {
        guard let chunk = try request.string("lua") else { throw ControlError("console needs \"lua\": a chunk of Lua") }
        guard let scripts else { throw ControlError("console needs scripts") }
        var json = false
        if let value = request.fields["json"] {
            guard let flag = ControlRequest.boolean(value) else {
                throw ControlRequest.wrong("json", "true or false", value)
            }
            json = flag
        }
        return scripts.console(chunk, json: json).fields
    }

    /// `tools`: what scripts offer agents (`mcp.tool`), each with its parameters as a JSON Schema object.
    private func tools() throws -> [String: Any] {
        guard let scripts else { throw ControlError("tools needs scripts") }
        let (version, tools) = scripts.tools()
        return ["version": version, "tools": tools]
    }

    /// `call_tool`: runs a tool between frames with `arguments` (an object, checked against its parameters).
    private func callTool(_ request: ControlRequest) throws -> [String: Any] {
        guard let name = try request.string("name") else {
            throw ControlError("call_tool needs \"name\": a tool's name")
        }
        let arguments = try request.object("arguments") ?? [:]
        guard let scripts else { throw ControlError("call_tool needs scripts") }
        switch scripts.callTool(name, arguments: arguments) {
        case .success(let result): return ["result": result]
        case .failure(let error): throw ControlError("call_tool: \(error.description)")
        }
    }

    /// `complete`: the console's completions of the name that ends `text`.
    private func complete(_ request: ControlRequest) throws -> [String: Any] {
        guard let text = try request.string("text") else { throw ControlError("complete needs \"text\"") }
        guard let scripts else { throw ControlError("complete needs scripts") }
        return ["matches": scripts.complete(String(text.suffix(1000)))]
    }
}
