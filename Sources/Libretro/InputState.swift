import CLibretro

/// RetroPad buttons by their libretro ids (RETRO_DEVICE_ID_JOYPAD_*).
public enum RetroPadButton: Int, CaseIterable, Sendable {
    case b = 0, y, select, start, up, down, left, right, a, x, l, r, l2, r2, l3, r3

    /// The Lua name (`"a"`, `"select"`, `"l2"`), from a table: reflection is too slow for every frame.
    public var name: String { RetroPadButton.names[rawValue] }

    public static func named(_ name: String) -> RetroPadButton? { byName[name] }

    private static let names = [
        "b", "y", "select", "start", "up", "down", "left", "right",
        "a", "x", "l", "r", "l2", "r2", "l3", "r3",
    ]
    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { (names[$0.rawValue], $0) })
}

/// What the frontend tells the core its controllers are doing this frame.
public struct InputState: Sendable {
    public static let maxPorts = 8

    /// One RetroPad button bitmask per port (bit n = button with id n). Inline storage: copying an
    /// input state, which the frame loop does at every poll, allocates nothing.
    public var buttons = InlineArray<8, UInt16>(repeating: 0)
    /// Analog axes, four per port: left x, left y, right x, right y.
    private var axes = InlineArray<32, Int16>(repeating: 0)

    /// Axis 0…3 (left x, left y, right x, right y) of `port`.
    public func analog(port: Int, axis: Int) -> Int16 { axes[port * 4 + axis] }

    public mutating func setAnalog(port: Int, axis: Int, _ value: Int16) { axes[port * 4 + axis] = value }

    public init() {}

    public mutating func set(_ button: RetroPadButton, _ pressed: Bool, port: Int = 0) {
        let bit = UInt16(1) << UInt16(button.rawValue)
        if pressed { buttons[port] |= bit } else { buttons[port] &= ~bit }
    }

    public func isPressed(_ button: RetroPadButton, port: Int = 0) -> Bool {
        buttons[port] & (UInt16(1) << UInt16(button.rawValue)) != 0
    }

    /// The answer to `retro_input_state_t`.
    @inline(__always)
    func value(port: UInt32, device: UInt32, index: UInt32, id: UInt32) -> Int16 {
        let port = Int(port)
        guard port < InputState.maxPorts else { return 0 }
        switch device & 0xFF {  // RETRO_DEVICE_MASK: the base device, without subclass bits
        case UInt32(RETRO_DEVICE_JOYPAD):
            if id == UInt32(RETRO_DEVICE_ID_JOYPAD_MASK) { return Int16(bitPattern: buttons[port]) }
            return id < 16 && buttons[port] & (UInt16(1) << UInt16(id)) != 0 ? 1 : 0
        case UInt32(RETRO_DEVICE_ANALOG):
            if index == UInt32(RETRO_DEVICE_INDEX_ANALOG_BUTTON) {
                return id < 16 && buttons[port] & (UInt16(1) << UInt16(id)) != 0 ? Int16.max : 0
            }
            let axis = Int(index) * 2 + Int(id)
            return axis < 4 ? axes[port * 4 + axis] : 0
        default:
            return 0
        }
    }
}
