import CSDL2

/// A game controller that exists only in software, through SDL's virtual joystick driver: tests (and
/// scripted demos) plug it in, press its buttons and pull it out exactly as a user would a real pad,
/// and `SDLInput` sees it through the same GameController path.
///
/// Create it after `SDLInput` (which starts SDL's controller subsystem). Changes take effect at the
/// next `SDLInput.poll()`, which pumps SDL's joystick updates.
public final class VirtualGamepad {
    public let name: String
    private var joystick: OpaquePointer?
    private let instanceID: SDL_JoystickID

    /// Plugs in a pad with every SDL GameController button and axis, mapped in SDL's order.
    public init(name: String = "Retrolua Virtual Pad") throws {
        var desc = SDL_VirtualJoystickDesc()
        desc.version = UInt16(SDL_VIRTUAL_JOYSTICK_DESC_VERSION)
        desc.type = UInt16(SDL_JOYSTICK_TYPE_GAMECONTROLLER.rawValue)
        desc.naxes = UInt16(SDL_CONTROLLER_AXIS_MAX.rawValue)
        desc.nbuttons = UInt16(SDL_CONTROLLER_BUTTON_MAX.rawValue)
        // SDL copies the name.
        let index = name.withCString { cName in
            desc.name = cName
            return SDL_JoystickAttachVirtualEx(&desc)
        }
        guard index >= 0 else { throw SDLDeviceError("virtual gamepad") }
        guard let joystick = SDL_JoystickOpen(index) else {
            let error = SDLDeviceError("virtual gamepad")
            SDL_JoystickDetachVirtual(index)
            throw error
        }
        self.name = name
        self.joystick = joystick
        instanceID = SDL_JoystickInstanceID(joystick)
    }

    deinit { unplug() }

    /// Presses or releases a button by SDL GameController name ("a", "start", "dpup", …); false for an
    /// unknown name or an unplugged pad.
    @discardableResult
    public func set(button: String, pressed: Bool) -> Bool {
        let b = SDL_GameControllerGetButtonFromString(button)
        guard let joystick, b != SDL_CONTROLLER_BUTTON_INVALID else { return false }
        return SDL_JoystickSetVirtualButton(joystick, b.rawValue, pressed ? 1 : 0) == 0
    }

    /// Moves an axis by SDL GameController name ("leftx", "righttrigger", …) to −32768…32767.
    @discardableResult
    public func set(axis: String, value: Int) -> Bool {
        let a = SDL_GameControllerGetAxisFromString(axis)
        guard let joystick, a != SDL_CONTROLLER_AXIS_INVALID else { return false }
        return SDL_JoystickSetVirtualAxis(joystick, a.rawValue, Int16(clamping: value)) == 0
    }

    /// Pulls the pad out: SDL sends the removal events a real unplug would. Idempotent.
    public func unplug() {
        guard let joystick else { return }
        self.joystick = nil
        // Device indices shift as pads come and go; find this one's by its instance id.
        for index in 0..<SDL_NumJoysticks() where SDL_JoystickGetDeviceInstanceID(index) == instanceID {
            SDL_JoystickDetachVirtual(index)
            break
        }
        SDL_JoystickClose(joystick)
    }
}
