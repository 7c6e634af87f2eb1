/// A discrete thing that happened on the host during one frame. Held state (keys down, sticks) is in
/// `HostDevices`; these are the edges a frontend reacts to once (hotkeys, OSD messages, quitting).
public enum HostEvent: Sendable, Equatable {
    /// The user closed the window or the session asked to quit.
    case quit
    /// A key went down (lower-case SDL key name); `repeat` is the keyboard's auto-repeat; `modifiers` those
    /// held when it went down (a chord typed within one frame has let go of its ctrl by the time the frame's
    /// events are read, so the held keys cannot tell).
    case keyDown(String, repeat: Bool, modifiers: KeyModifiers = [])
    case keyUp(String, modifiers: KeyModifiers = [])
    /// A mouse button went down or up (`"left"`, `"middle"`, `"right"`, `"x1"`, `"x2"`) at a point in window
    /// coordinates: a click within one frame is two events, though the held buttons never show it.
    case mouseDown(String, x: Int, y: Int)
    case mouseUp(String, x: Int, y: Int)
    /// A game controller was connected or disconnected (its SDL name).
    case gamepadAdded(String)
    case gamepadRemoved(String)
    /// The window's new size in window coordinates.
    case windowResized(Int, Int)
    case focusLost
    case focusGained
}

/// The modifier keys held with a key event (either side of the keyboard).
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ctrl = KeyModifiers(rawValue: 1 << 0)
    public static let shift = KeyModifiers(rawValue: 1 << 1)
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    /// The Windows, Command or Super key (SDL's "gui").
    public static let gui = KeyModifiers(rawValue: 1 << 3)

    /// Each modifier with its name, in the order scripts see them.
    public static let named: [(name: String, modifier: KeyModifiers)] = [
        ("ctrl", .ctrl), ("shift", .shift), ("alt", .alt), ("gui", .gui),
    ]
}
