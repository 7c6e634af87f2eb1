import Emulation
import Foundation
import Libretro
import Support

/// The binary `step`: `count` frames, with the buttons of `ports` ports (flags bits 8–11) as u16
/// masks in the payload — none (hold the player's input), one set for every frame, or one set per
/// frame. Runs in slices like the JSON step; once done, writes the screen and/or RAM into the shared
/// region when the flags ask.
final class ControlBinaryStep {
    private unowned let door: ControlBinaryDoor
    private unowned let session: ControlSession
    private let frames: Int
    private let ports: Int
    private let masks: [UInt16]
    private let perFrame: Bool
    private let flags: UInt32
    private var progress: StepProgress

    init(
        _ request: ControlBinaryProtocol.Request, door: ControlBinaryDoor, session: ControlSession
    )
        throws(ControlError)
    {
        self.door = door
        self.session = session
        let known = ControlBinaryProtocol.stepScreen | ControlBinaryProtocol.stepRAM | 0xF00
        guard request.flags & ~known == 0 else {
            throw ControlError("binary step: unknown flags \(request.flags & ~known)")
        }
        flags = request.flags
        frames = Int(request.count)
        guard frames <= ControlFacts.maxFrames else {
            throw ControlError("binary step: frames must be 0…\(ControlFacts.maxFrames), got \(request.count)")
        }
        ports = Int((request.flags >> 8) & 0xF)
        guard ports <= InputState.maxPorts else {
            throw ControlError("binary step: ports must be 0…\(InputState.maxPorts), got \(ports)")
        }
        let payload = request.payload
        let once = ports * 2
        perFrame = once > 0 && frames > 1 && payload.count == once * frames
        guard payload.isEmpty || payload.count == once || perFrame else {
            throw ControlError(
                "binary step: the payload must be empty, \(once) bytes or \(once) per frame, got \(payload.count)")
        }
        var masks: [UInt16] = []
        masks.reserveCapacity(payload.count / 2)
        var index = payload.startIndex
        while index + 1 < payload.endIndex {
            masks.append(UInt16(payload[index]) | UInt16(payload[index + 1]) << 8)
            index += 2
        }
        self.masks = masks
        progress = StepProgress(frames: frames)
    }

    /// Runs the next slice; the reply once the step is over, nil while frames remain.
    func runSlice() -> [UInt8]? {
        let emulator = session.emulator
        let over = progress.runSlice(session) { ran in
            guard !masks.isEmpty else { return }
            var input = emulator.playerInput
            let first = perFrame ? ran * ports : 0
            for port in 0..<ports { input.buttons[port] = masks[first + port] }
            emulator.playerInput = input
        }
        guard over else { return nil }
        // A scenario that failed would go on scoring 0: the step says why instead.
        if let failure = session.scenarioFailure { return ControlBinaryProtocol.error(failure) }
        var reply = ControlBinaryProtocol.Reply()
        reply.frame = session.emulator.session.frameCount
        reply.frames = progress.ran
        reply.lag = progress.lagged
        reply.done = progress.done ? 1 : 0
        reply.reward = progress.reward
        var info: [UInt8] = []
        do {
            if flags & ControlBinaryProtocol.stepScreen != 0 { (reply.width, reply.height) = try door.writeScreen() }
            if flags & ControlBinaryProtocol.stepRAM != 0 { reply.length = try door.writeRAM() }
            if let table = session.scenarioInfo() { info = try Self.encode(info: table) }
        } catch {
            return ControlBinaryProtocol.error(ControlFacts.error(error).description)
        }
        return reply.encoded(message: info)
    }

    /// The scenario's `info()` as the JSON object after a successful step's header.
    private static func encode(info: [String: Any]) throws(ControlError) -> [UInt8] {
        guard let bytes = JSONWriter.encode(info) else {
            throw ControlError(
                "binary step: the scenario's info() could not be encoded as JSON (NaN, infinity or nesting)")
        }
        guard bytes.count <= ControlBinaryProtocol.maxInfo else {
            throw ControlError(
                "binary step: the scenario's info() is \(bytes.count) bytes as JSON; at most \(ControlBinaryProtocol.maxInfo)"
            )
        }
        return bytes
    }
}
