/// Why the emulator would not do what a front door asked. Every door translates it and none re-checks
/// the rule: Lua returns `nil, reason, kind` (or raises, for the caller's own mistakes), the control socket
/// replies with `error: reason`.
public struct Refusal: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// RetroAchievements hardcore mode forbids it.
        case hardcore
        /// The active movie forbids it (its input, its timeline).
        case movie
        /// Not in this phase of the frame (inside the core's input poll): the caller's mistake.
        case phase
        /// An address or size outside what the core exposes, or a read-only domain: the caller's mistake.
        case outOfRange
        /// The operation was tried and failed: a missing or corrupt file, a core that refused a state.
        case failed

        /// The word every door shows a script or client (Lua's third value after `nil, message`): the
        /// one place a kind is named.
        public var name: String {
            switch self {
            case .hardcore: "hardcore"
            case .movie: "movie"
            case .phase: "phase"
            case .outOfRange: "out_of_range"
            case .failed: "failed"
            }
        }
    }

    public let kind: Kind
    public let reason: String
    public var description: String { reason }

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The caller's own mistake rather than a rule or a failure (Lua raises these as errors).
    public var isMisuse: Bool { kind == .phase || kind == .outOfRange }

    /// What cannot run inside the core's `retro_run` (state loads, resets, running a frame, waiting).
    public static let inputPoll = Refusal(
        .phase,
        """
        not allowed during the core's input poll (the input event); call it from the main chunk or a frame_start, \
        frame_end or draw callback
        """
    )

    static func hardcore(_ what: String) -> Refusal { Refusal(.hardcore, "\(what) not allowed in hardcore mode") }

    static func failed(_ error: any Error) -> Refusal { Refusal(.failed, "\(error)") }
}
