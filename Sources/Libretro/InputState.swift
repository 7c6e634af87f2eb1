import CLibretro

/// RetroPad buttons by their libretro ids (RETRO_DEVICE_ID_JOYPAD_*).
public enum RetroPadButton: Int, CaseIterable, Sendable {
    case b = 0, y, select, start, up, down, left, right, a, x, l, r, l2, r2, l3, r3

    public var name: String { String(describing: self) }

    public static func named(_ name: String) -> RetroPadButton? {
        allCases.first { $0.name == name }
    }
}

/// What the frontend tells the core its controllers are doing this frame.
public struct InputState: Sendable {
    public static let maxPorts = 8

    /// One RetroPad button bitmask per port (bit n = button with id n).
    public var buttons = [UInt16](repeating: 0, count: maxPorts)
    /// Analog axes per port: left x, left y, right x, right y.
    public var analog = [[Int16]](repeating: [0, 0, 0, 0], count: maxPorts)

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
            return axis < 4 ? analog[port][axis] : 0
        default:
            return 0
        }
    }
}
