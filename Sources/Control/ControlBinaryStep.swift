import Emulation
import Foundation
import Libretro
import Support

/// The binary `step`: `count` frames, with the buttons of `ports` ports (flags bits 8–11) as u16
/// masks in the payload — none (hold the player's input), one set for every frame, or one set per
/// frame. Runs in slices like the JSON step; once done, writes the screen and/or RAM into the shared
/// region when the flags ask. A processed step (`stepProcessed`, after `preprocess`) runs the configured
/// frame skip with sticky actions, or an episode's no-op start, and writes the processed observation.
final class ControlBinaryStep {
    typealias Wire = ControlBinaryProtocol
    private unowned let door: ControlBinaryDoor
    private unowned let session: ControlSession
    private let frames: Int
    private let ports: Int
    private let masks: [UInt16]
    private let perFrame: Bool
    private let flags: UInt32
    private var progress: StepProgress
    /// A processed step's preprocessing, and the input held when the payload gives none.
    private let processing: ControlBinaryPreprocessing?
    private let held: InputState

    init(
        _ request: ControlBinaryProtocol.Request, door: ControlBinaryDoor, session: ControlSession
    )
        throws(ControlError)
    {
        self.door = door
        self.session = session
        let known = Wire.stepScreen | Wire.stepRAM | Wire.stepProcessed | Wire.stepEpisode | Wire.stepSeed | 0xF00
        guard request.flags & ~known == 0 else {
            throw ControlError("binary step: unknown flags \(request.flags & ~known)")
        }
        flags = request.flags
        processing = try Self.processing(request, door: door)
        held = session.emulator.playerInput
        ports = Int((request.flags >> 8) & 0xF)
        guard ports <= InputState.maxPorts else {
            throw ControlError("binary step: ports must be 0…\(InputState.maxPorts), got \(ports)")
        }
        var frames = Int(request.count)
        let episode = request.flags & Wire.stepEpisode != 0
        if let processing, !episode {
            guard frames == 0 || frames == processing.skip else {
                throw ControlError(
                    "binary step: a processed step runs the frame skip (\(processing.skip)), got \(frames)")
            }
            frames = processing.skip
        }
        guard frames <= ControlFacts.maxFrames else {
            throw ControlError("binary step: frames must be 0…\(ControlFacts.maxFrames), got \(request.count)")
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
        if let processing {  // every check passed: the step's effects on the generator start here
            processing.forgetPooled()
            if request.flags & Wire.stepSeed != 0 { processing.reseed(request.a) }
            if episode {  // no buttons and no payload (checked): the count is the no-op frames
                frames = processing.noopFrames(fallback: frames)
                processing.previousButtons = InlineArray(repeating: 0)
            }
        }
        self.frames = frames
        progress = StepProgress(frames: frames)
    }

    /// The connection's preprocessing when the step asks for a processed one (checked flags).
    private static func processing(
        _ request: Wire.Request, door: ControlBinaryDoor
    ) throws(ControlError)
        -> ControlBinaryPreprocessing?
    {
        let extra = Wire.stepEpisode | Wire.stepSeed
        guard request.flags & Wire.stepProcessed != 0 else {
            guard request.flags & extra == 0 else {
                throw ControlError("binary step: the episode and seed flags apply to processed steps only")
            }
            return nil
        }
        guard let processing = door.preprocessing else {
            throw ControlError("binary step: a processed step needs preprocess first")
        }
        guard request.flags & Wire.stepScreen == 0 else {
            throw ControlError("binary step: a processed step writes its observation in place of the screen")
        }
        if request.flags & Wire.stepEpisode != 0 && request.flags & 0xF00 != 0 {
            throw ControlError("binary step: an episode's start runs no-op frames: no buttons")
        }
        return processing
    }

    /// Runs the next slice; the reply once the step is over, nil while frames remain.
    func runSlice() -> [UInt8]? {
        let emulator = session.emulator
        let episode = flags & Wire.stepEpisode != 0
        let over = progress.runSlice(session) { ran in
            if let processing, !episode {
                if processing.maxPool && frames > 1 && ran == frames - 1, let frame = emulator.lastFrame {
                    processing.keep(frame)
                }
                var input = masks.isEmpty ? held : emulator.playerInput
                let first = perFrame ? ran * ports : 0
                for port in 0..<(masks.isEmpty ? 0 : ports) { input.buttons[port] = masks[first + port] }
                input.buttons = processing.sticky(input.buttons)
                emulator.playerInput = input
                return
            }
            if episode {
                var input = emulator.playerInput
                input.buttons = InlineArray(repeating: 0)
                emulator.playerInput = input
                return
            }
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
        reply.frame = session.emulator.frameCount
        reply.frames = progress.ran
        reply.lag = progress.lagged
        reply.done = progress.done ? 1 : 0
        reply.reward = progress.reward
        var info: [UInt8] = []
        do {
            if flags & Wire.stepScreen != 0 { (reply.width, reply.height) = try door.writeScreen() }
            if let processing {
                (reply.width, reply.height, reply.length) = try door.writeObservation(
                    processing, pool: !episode && progress.ran == frames && frames > 1, episodeStart: episode)
            }
            if flags & Wire.stepRAM != 0 { reply.length = try door.writeRAM() }
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
