/// A discrete thing that happened on the host during one frame. Held state (keys down, sticks) is in
/// `HostDevices`; these are the edges a frontend reacts to once (hotkeys, OSD messages, quitting).
public enum HostEvent: Sendable, Equatable {
    /// The user closed the window or the session asked to quit.
    case quit
    /// A key went down (lower-case SDL key name); `repeat` is the keyboard's auto-repeat.
    case keyDown(String, repeat: Bool)
    case keyUp(String)
    /// A game controller was connected or disconnected (its SDL name).
    case gamepadAdded(String)
    case gamepadRemoved(String)
    /// The window's new size in window coordinates.
    case windowResized(Int, Int)
    case focusLost
    case focusGained
}
