/// Input without a device: events handed to `send` come out of the next poll, in order, and change the
/// devices as SDL's would (a key down holds the key until its key up, a mouse button's press holds it until
/// its release, a lost focus releases keys and mouse buttons, a pad added appears among the gamepads).
/// Nothing else in the devices is touched, so what scripts simulate (`input.set_key`, …) holds across
/// headless frames.
public final class NullInputSource: InputSource {
    private var pending: [HostEvent] = []
    /// Polls so far (one per frame the frontend ran or idled).
    public private(set) var polls = 0

    public init() {}

    /// Queues events for the next poll.
    public func send(_ events: HostEvent...) {
        pending += events
    }

    public func poll(into devices: inout HostDevices) -> [HostEvent] {
        polls += 1
        let events = pending
        pending.removeAll()
        for event in events { Self.apply(event, to: &devices) }
        return events
    }

    /// What an event implies for the held state.
    private static func apply(_ event: HostEvent, to devices: inout HostDevices) {
        switch event {
        case .keyDown(let key, _, _): devices.keys.insert(key)
        case .keyUp(let key, _): devices.keys.remove(key)
        case .mouseDown(let button, let x, let y):
            devices.mouse.buttons.insert(button)
            (devices.mouse.x, devices.mouse.y) = (x, y)
        case .mouseUp(let button, let x, let y):
            devices.mouse.buttons.remove(button)
            (devices.mouse.x, devices.mouse.y) = (x, y)
        case .focusLost:
            devices.keys.removeAll()
            devices.mouse.buttons.removeAll()
        case .gamepadAdded(let name): devices.gamepads.append(HostDevices.Gamepad(name: name))
        case .gamepadRemoved(let name):
            if let index = devices.gamepads.firstIndex(where: { $0.name == name }) {
                devices.gamepads.remove(at: index)
            }
        case .quit, .windowResized, .focusGained: break
        }
    }
}
