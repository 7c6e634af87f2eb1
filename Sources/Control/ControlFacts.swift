import Emulation
import Libretro

/// What the JSON and binary doors answer alike, said once here; each door only puts it in its own
/// words: the limits on a request, the emulator's description, and a refusal as the door's error.
enum ControlFacts {
    /// The most bytes one memory read returns (the binary door's RAM area holds at most this many).
    static let maxRead = 16 << 20
    /// The most frames one step runs.
    static let maxFrames = 1_000_000
    /// The pad's buttons by the names requests give them, in the order of their bits.
    static let buttons = RetroPadButton.allCases.map(\.name)

    /// The emulator as a client learns it (`info`, the binary handshake): its memory domains and buttons.
    struct Description {
        let domains: [(name: String, size: Int)]
        /// Where in `domains` the domain a request names none of is (nil: the core exposes no memory).
        let defaultDomain: Int?

        init(_ emulator: Emulator) {
            let memory = emulator.memory
            domains = memory.domains.map { (memory.name($0), $0.size) }
            defaultDomain = memory.domains.isEmpty ? nil : memory.defaultIndex
        }

        /// The domains as both doors list them: `[{"name": …, "size": …}, …]`.
        var domainList: [[String: Any]] { domains.map { ["name": $0.name, "size": $0.size] } }
    }

    /// A failed request's error: the door's own as it is, the emulator's refusals by their reason.
    static func error(_ error: any Error) -> ControlError {
        switch error {
        case let error as ControlError: return error
        case let refusal as Refusal: return ControlError(refusal.reason)
        default: return ControlError("\(error)")
        }
    }
}
