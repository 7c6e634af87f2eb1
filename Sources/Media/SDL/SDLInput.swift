import CSDL2

/// Keyboard, mouse and game controllers through SDL, read once per frame by `poll()`.
///
/// Controllers are SDL GameControllers, so every pad reports the same button and axis names
/// ("a", "dpup", "leftx", …) whatever its hardware; a joystick SDL has no mapping for is not listed.
/// Mappings come from SDL's built-in database, `SDL_GAMECONTROLLERCONFIG`, and
/// `~/.config/retrolua/gamecontrollerdb.txt` when present. Use from one thread.
public final class SDLInput: InputSource {
    /// The host's devices as of the last `poll()`.
    public private(set) var devices = HostDevices()
    /// What start-up did that a verbose log may show: a mapping file loaded, controllers unavailable.
    public private(set) var notices: [String] = []

    private struct Controller {
        let id: SDL_JoystickID
        let handle: OpaquePointer
        let name: String
    }
    /// Open controllers in connection order, which is the order scripts see them in.
    private var controllers: [Controller] = []
    /// Events produced outside `poll()` (controllers found at start-up), returned by the next poll.
    private var pending: [HostEvent] = []

    /// The SDL subsystems this object started (and stops in deinit).
    private let subsystems: UInt32
    private static let buttonNames: [String] = (0..<SDL_CONTROLLER_BUTTON_MAX.rawValue).map {
        SDL_GameControllerGetStringForButton(SDL_GameControllerButton(rawValue: $0)).map { String(cString: $0) }
            ?? "button\($0)"
    }
    private static let axisNames: [String] = (0..<SDL_CONTROLLER_AXIS_MAX.rawValue).map {
        SDL_GameControllerGetStringForAxis(SDL_GameControllerAxis(rawValue: $0)).map { String(cString: $0) }
            ?? "axis\($0)"
    }

    /// Starts SDL's controller and event subsystems, loads the user's mappings from `mappingsFile`
    /// (default `~/.config/retrolua/gamecontrollerdb.txt`; a missing file is not an error) and opens
    /// the controllers already connected. Never fails: without controller support the keyboard and
    /// mouse still work, and `notices` says why there are no pads.
    public init(mappingsFile: String? = SDLInput.defaultMappingsFile) {
        if SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS) == 0 {
            subsystems = SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS
        } else {
            notices.append("no game controllers: \(String(cString: SDL_GetError()))")
            subsystems = SDL_InitSubSystem(SDL_INIT_EVENTS) == 0 ? SDL_INIT_EVENTS : 0
            return
        }
        if let path = mappingsFile, let rw = SDL_RWFromFile(path, "rb") {
            // SDL_GameControllerAddMappingsFromFile is a macro for this call; 1 = SDL closes `rw`.
            let added = SDL_GameControllerAddMappingsFromRW(rw, 1)
            notices.append(
                added < 0
                    ? "\(path): \(String(cString: SDL_GetError()))"
                    : "\(path): \(added) controller mappings")
        }
        for index in 0..<SDL_NumJoysticks() {
            if let name = open(deviceIndex: index) { pending.append(.gamepadAdded(name)) }
        }
        refreshGamepads()
    }

    deinit {
        for controller in controllers { SDL_GameControllerClose(controller.handle) }
        if subsystems != 0 { SDL_QuitSubSystem(subsystems) }
    }

    public static var defaultMappingsFile: String? {
        guard let home = SDL_getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
        return home + "/.config/retrolua/gamecontrollerdb.txt"
    }

    /// Drains SDL's event queue (call once per frame), updates `devices` and returns the frame's events
    /// in order. The mouse wheel in `devices` is what turned during this frame.
    public func poll() -> [HostEvent] {
        var events = pending
        pending.removeAll()
        devices.mouse.wheel = 0
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            handle(event, into: &events)
        }
        refreshGamepads()
        return events
    }

    /// SDL sees every device, so its view replaces the devices wholesale (what scripts simulated too).
    public func poll(into devices: inout HostDevices) -> [HostEvent] {
        let events = poll()
        devices = self.devices
        return events
    }

    private func handle(_ event: SDL_Event, into events: inout [HostEvent]) {
        switch SDL_EventType(rawValue: event.type) {
        case SDL_QUIT:
            // Closing the last window sends both a window close and SDL_QUIT: report one quit.
            if !events.contains(.quit) { events.append(.quit) }
        case SDL_KEYDOWN:
            guard let name = Self.keyName(event.key.keysym) else { return }
            devices.keys.insert(name)
            events.append(
                .keyDown(name, repeat: event.key.repeat != 0, modifiers: Self.modifiers(event.key.keysym.mod)))
        case SDL_KEYUP:
            guard let name = Self.keyName(event.key.keysym) else { return }
            devices.keys.remove(name)
            events.append(.keyUp(name, modifiers: Self.modifiers(event.key.keysym.mod)))
        case SDL_MOUSEMOTION:
            devices.mouse.x = Int(event.motion.x)
            devices.mouse.y = Int(event.motion.y)
        case SDL_MOUSEBUTTONDOWN, SDL_MOUSEBUTTONUP:
            guard let name = Self.mouseButtonName(event.button.button) else { return }
            devices.mouse.x = Int(event.button.x)
            devices.mouse.y = Int(event.button.y)
            if event.type == SDL_MOUSEBUTTONDOWN.rawValue {
                devices.mouse.buttons.insert(name)
                events.append(.mouseDown(name, x: devices.mouse.x, y: devices.mouse.y))
            } else {
                devices.mouse.buttons.remove(name)
                events.append(.mouseUp(name, x: devices.mouse.x, y: devices.mouse.y))
            }
        case SDL_MOUSEWHEEL:
            let flipped = event.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue
            devices.mouse.wheel += Int(event.wheel.y) * (flipped ? -1 : 1)
        case SDL_CONTROLLERDEVICEADDED:
            // `which` is a device index here (an instance id in the REMOVED event).
            if let name = open(deviceIndex: event.cdevice.which) { events.append(.gamepadAdded(name)) }
        case SDL_CONTROLLERDEVICEREMOVED:
            if let name = close(id: event.cdevice.which) { events.append(.gamepadRemoved(name)) }
        case SDL_WINDOWEVENT:
            handleWindow(event.window, into: &events)
        default:
            break
        }
    }

    private func handleWindow(_ window: SDL_WindowEvent, into events: inout [HostEvent]) {
        switch SDL_WindowEventID(rawValue: UInt32(window.event)) {
        case SDL_WINDOWEVENT_CLOSE:
            if !events.contains(.quit) { events.append(.quit) }
        case SDL_WINDOWEVENT_SIZE_CHANGED:
            events.append(.windowResized(Int(window.data1), Int(window.data2)))
        case SDL_WINDOWEVENT_FOCUS_LOST:
            // Key-ups that happen in another window never reach us: forget held keys and buttons
            // rather than leave them stuck down.
            devices.keys.removeAll()
            devices.mouse.buttons.removeAll()
            events.append(.focusLost)
        case SDL_WINDOWEVENT_FOCUS_GAINED:
            events.append(.focusGained)
        default:
            break
        }
    }

    // MARK: - Controllers

    /// Opens the controller at a device index unless it is open already (SDL announces the controllers
    /// present at start-up as "added" too) or has no mapping; returns its name when newly opened.
    /// `devices.gamepads` follows at the end of the poll.
    private func open(deviceIndex index: Int32) -> String? {
        guard index >= 0, index < SDL_NumJoysticks(), SDL_IsGameController(index) == SDL_TRUE else { return nil }
        let id = SDL_JoystickGetDeviceInstanceID(index)
        guard !controllers.contains(where: { $0.id == id }), let handle = SDL_GameControllerOpen(index) else {
            return nil
        }
        let name = SDL_GameControllerName(handle).map { String(cString: $0) } ?? "Controller"
        controllers.append(
            Controller(
                id: SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(handle)),
                handle: handle, name: name))
        return name
    }

    /// Closes a controller by instance id; returns its name if it was open.
    private func close(id: SDL_JoystickID) -> String? {
        guard let i = controllers.firstIndex(where: { $0.id == id }) else { return nil }
        let controller = controllers.remove(at: i)
        SDL_GameControllerClose(controller.handle)
        return controller.name
    }

    /// Reads every open controller's buttons and axes. A controller that vanished without its removal
    /// event having been seen yet reads as released and is dropped by that event.
    private func refreshGamepads() {
        devices.gamepads = controllers.map { controller in
            var pad = HostDevices.Gamepad(name: controller.name)
            guard SDL_GameControllerGetAttached(controller.handle) == SDL_TRUE else { return pad }
            for (i, name) in Self.buttonNames.enumerated()
            where SDL_GameControllerGetButton(controller.handle, SDL_GameControllerButton(rawValue: Int32(i))) != 0 {
                pad.buttons.insert(name)
            }
            for (i, name) in Self.axisNames.enumerated() {
                pad.axes[name] = Int(
                    SDL_GameControllerGetAxis(controller.handle, SDL_GameControllerAxis(rawValue: Int32(i))))
            }
            return pad
        }
    }

    // MARK: - Names

    /// SDL's key name in lower case ("a", "left", "return", "left shift"), or the scancode's name for
    /// keys without a keycode name; nil when SDL has no name at all.
    static func keyName(_ keysym: SDL_Keysym) -> String? {
        var name = String(cString: SDL_GetKeyName(keysym.sym))
        if name.isEmpty { name = String(cString: SDL_GetScancodeName(keysym.scancode)) }
        return name.isEmpty ? nil : name.lowercased()
    }

    /// SDL's modifier state as it was at the key event (SDL sets it before the event is queued: a ctrl's own
    /// press has ctrl, its release has not).
    static func modifiers(_ mod: UInt16) -> KeyModifiers {
        var modifiers: KeyModifiers = []
        let pairs: [(SDL_Keymod, KeyModifiers)] = [
            (KMOD_CTRL, .ctrl), (KMOD_SHIFT, .shift), (KMOD_ALT, .alt), (KMOD_GUI, .gui),
        ]
        for (mask, modifier) in pairs where UInt32(mod) & mask.rawValue != 0 { modifiers.insert(modifier) }
        return modifiers
    }

    static func mouseButtonName(_ button: UInt8) -> String? {
        switch Int32(button) {
        case SDL_BUTTON_LEFT: return "left"
        case SDL_BUTTON_MIDDLE: return "middle"
        case SDL_BUTTON_RIGHT: return "right"
        case SDL_BUTTON_X1: return "x1"
        case SDL_BUTTON_X2: return "x2"
        default: return nil
        }
    }
}
