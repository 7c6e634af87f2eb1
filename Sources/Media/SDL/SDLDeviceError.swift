import CSDL2

/// An SDL call failed; `message` is SDL_GetError's text, prefixed with what was being attempted, so the
/// caller can say why it fell back to headless.
public struct SDLDeviceError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    /// Captures SDL_GetError now, before another SDL call overwrites it.
    init(_ what: String) {
        let reason = String(cString: SDL_GetError())
        message = reason.isEmpty ? what : "\(what): \(reason)"
    }

    init(noDisplay message: String) { self.message = message }
}
