import Media

/// What the frame loop needs from scripts, answered by the script host through the run, so the frontend
/// holds the emulator, the screen and this, never the script host itself.
public protocol FrontendScripts: AnyObject {
    /// The window's events since the last frame (keys, mouse, gamepads), delivered before the next one.
    func deliver(_ events: [HostEvent])
    /// True while some script still waits for frames or has callbacks (a headless run without a frame
    /// limit ends once none has).
    var hasActiveScripts: Bool { get }
    /// Runs the `draw` callbacks again while paused, so the hud follows menus and editors.
    func redrawPaused()
    /// Hud pixels a tool keeps at the window's right; the window widens by as much.
    var sidePanel: Int { get }
}
