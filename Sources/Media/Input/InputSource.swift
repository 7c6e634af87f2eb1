/// Where the host's input comes from: SDL's keyboard, mouse and controllers, or events a test or a
/// headless run hands in (`NullInputSource`). The frontend polls it once per frame, before the frame.
public protocol InputSource: AnyObject {
    /// Reads what happened since the last poll: brings `devices` (held keys and buttons, sticks, the
    /// mouse) up to date and returns the frame's events in order.
    func poll(into devices: inout HostDevices) -> [HostEvent]
}
