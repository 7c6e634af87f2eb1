import Emulation
import Libretro

/// `{"cmd": "step", "frames": N, "input": {"a": true, …} | "inputs": [{…}, {…}]}`: holds the input
/// for N frames (the player's layer, under scripts), then gives the player theirs back (a step without input
/// holds what the player holds); stops early when the scenario says done.
/// Runs `sliceFrames` frames per turn: between slices the server serves the other clients (their
/// requests may change the game mid-step); each slice holds this step's input again. The reply's
/// `frames`, `lag` and `reward` count this step's frames only. `until`, `watch` and `until_lua` stop it after
/// the first frame at which one holds (ControlStepConditions.swift); `stopped` says why it ended.
final class ControlStep {
    static let sliceFrames = 60
    private unowned let session: ControlSession
    private let frames: Int
    private let input: InputState
    private var progress: StepProgress
    private var conditions: StepConditions

    init(_ request: ControlRequest, session: ControlSession) throws(ControlError) {
        self.session = session
        frames = try request.integer("frames", in: 0...ControlFacts.maxFrames) ?? 1
        // A client sharing the game with a person (an attached agent) asks not to run through their pause.
        if let unlessPaused = request.fields["unless_paused"] {
            guard let wanted = ControlRequest.boolean(unlessPaused) else {
                throw ControlRequest.wrong("unless_paused", "true or false", unlessPaused)
            }
            if wanted {
                do { try session.emulator.refuseWhilePausedByTheUser() } catch { throw ControlFacts.error(error) }
            }
        }
        progress = StepProgress(frames: frames)
        conditions = try StepConditions(request, session: session)
        var input = session.emulator.playerInput
        var ports: [[String: Any]] = []
        if let one = try request.object("input") {
            ports = [one]
        } else if let many = try request.list("inputs") {
            guard many.count <= InputState.maxPorts else {
                throw ControlError("\"inputs\" is a list of up to \(InputState.maxPorts) button objects")
            }
            for (index, port) in many.enumerated() {
                guard let table = port as? [String: Any] else {
                    throw ControlRequest.wrong("inputs[\(index + 1)]", "an object of buttons", port)
                }
                ports.append(table)
            }
        }
        for (port, table) in ports.enumerated() {
            input.buttons[port] = 0
            for (name, value) in table.sorted(by: { $0.key < $1.key }) {
                guard let button = RetroPadButton.named(name) else {
                    throw ControlError(
                        """
                        unknown button '\(name.prefix(40))' (buttons: \
                        \(ControlFacts.buttons.joined(separator: ", ")))
                        """
                    )
                }
                guard let pressed = ControlRequest.boolean(value) else {
                    throw ControlError(
                        "button '\(name)' must be true or false, got \(ControlRequest.describe(value))")
                }
                input.set(button, pressed, port: port)
            }
        }
        self.input = input
    }

    /// Runs the next slice; the reply's fields once the step is over, nil while frames remain.
    func runSlice() -> [String: Any]? {
        // The step's buttons are held for its frames only: a person sharing the game (a window) gets back what
        // they held, rather than the agent's buttons stuck until they press a key.
        let held = session.emulator.playerInput
        session.emulator.playerInput = input
        defer { session.emulator.playerInput = held }
        let memory = session.emulator.memory
        var stop: StepConditions.Stop?
        let over =
            conditions.isEmpty
            ? progress.runSlice(session)
            : progress.runSlice(
                session, beforeFrame: { _ in self.conditions.beforeFrame(memory) },
                afterFrame: {
                    stop = self.conditions.afterFrame(memory)
                    return stop != nil
                })
        guard over else { return nil }
        // A scenario that failed would go on scoring 0: the step fails with its error (as the binary door's).
        if let failure = session.scenarioFailure { return ["ok": false, "error": failure] }
        var reply: [String: Any] = [
            "frame": session.emulator.frameCount, "frames": progress.ran, "lag": progress.lagged,
        ]
        switch stop {
        case .until(let index):
            reply["stopped"] = "until"
            reply["until_index"] = index
        case .watch(let index, let domain, let address, let old, let new):
            reply["stopped"] = "watch"
            reply["watch_hit"] = [
                "index": index, "domain": domain, "address": address, "old": Int(old), "new": Int(new),
            ]
        case .lua: reply["stopped"] = "lua"
        case .luaFailed(let message):
            reply["ok"] = false
            reply["error"] =
                "until_lua failed after frame \(progress.ran) of the step (frame \(session.emulator.frameCount)): \(message)"
        case nil:
            reply["stopped"] =
                session.emulator.exitCode != nil ? "exit" : progress.done ? "done" : "frames"
        }
        if session.scenario != nil {
            reply["reward"] = progress.reward
            reply["done"] = progress.done
            if let info = session.scenarioInfo() { reply["info"] = info }
        }
        return reply
    }
}

/// What a step (JSON or binary) has run so far, and the slice loop both share: frames, lag frames and
/// the scenario's reward, up to `frames` or until the scenario is done or the emulator exits.
struct StepProgress {
    let frames: Int
    private(set) var ran = 0, lagged = 0, reward = 0.0, done = false
    /// A stop condition held after the last frame (`afterFrame` said so).
    private(set) var halted = false

    init(frames: Int) { self.frames = frames }

    /// Runs up to `ControlStep.sliceFrames` frames (`beforeFrame` gets the index of each first; `afterFrame`,
    /// after each, true stops the step); true once the step is over.
    mutating func runSlice(
        _ session: ControlSession, beforeFrame: (Int) -> Void = { _ in }, afterFrame: () -> Bool = { false }
    ) -> Bool {
        let emulator = session.emulator
        var slice = 0
        while ran < frames && !done && !halted && emulator.exitCode == nil && slice < ControlStep.sliceFrames {
            beforeFrame(ran)
            emulator.runFrame()
            ran += 1
            slice += 1
            if session.emulator.lastFrameLagged { lagged += 1 }
            if let score = session.scoreFrame() {
                reward += score.reward
                done = score.done
            }
            if afterFrame() { halted = true }
        }
        return ran >= frames || done || halted || emulator.exitCode != nil
    }
}
