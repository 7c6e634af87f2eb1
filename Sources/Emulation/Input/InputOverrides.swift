import Libretro

/// What scripts force on the controllers for the coming frame (`joypad.set`, `joypad.set_analog`),
/// as bitmasks in inline storage: applying and clearing them every frame costs a few instructions.
public struct InputOverrides: Sendable {
    /// Per port: which buttons are forced, and to what.
    private var forced = InlineArray<8, UInt16>(repeating: 0)
    private var pressed = InlineArray<8, UInt16>(repeating: 0)
    /// Per port: which of the four axes are forced (bits 0…3), and their values.
    private var forcedAxes = InlineArray<8, UInt8>(repeating: 0)
    private var axes = InlineArray<32, Int16>(repeating: 0)
    public private(set) var isEmpty = true

    public init() {}

    public mutating func set(_ button: RetroPadButton, _ down: Bool, port: Int) {
        let bit = UInt16(1) << UInt16(button.rawValue)
        forced[port] |= bit
        pressed[port] = down ? pressed[port] | bit : pressed[port] & ~bit
        isEmpty = false
    }

    public mutating func setAxis(_ axis: Int, _ value: Int16, port: Int) {
        forcedAxes[port] |= UInt8(1) << UInt8(axis)
        axes[port * 4 + axis] = value
        isEmpty = false
    }

    public mutating func clear() {
        guard !isEmpty else { return }
        self = InputOverrides()
    }

    public func apply(to input: inout InputState) {
        guard !isEmpty else { return }
        for port in 0..<InputState.maxPorts {
            input.buttons[port] = (input.buttons[port] & ~forced[port]) | (pressed[port] & forced[port])
            guard forcedAxes[port] != 0 else { continue }
            for axis in 0..<4 where forcedAxes[port] & (1 << UInt8(axis)) != 0 {
                input.setAnalog(port: port, axis: axis, axes[port * 4 + axis])
            }
        }
    }
}
