import Libretro
import Media

/// The built-in mapping from host devices to RetroPads, used until a Lua input frontend takes over:
/// RetroArch's default keys on port 1, and gamepad N on port N.
enum DefaultInputMap {
    /// Keyboard → port 1 (RetroArch's defaults: z/x/a/s for B/A/Y/X).
    static let keys: [String: RetroPadButton] = [
        "up": .up, "down": .down, "left": .left, "right": .right,
        "z": .b, "x": .a, "a": .y, "s": .x, "q": .l, "w": .r,
        "return": .start, "right shift": .select,
    ]

    /// SDL GameController buttons by position → RetroPad buttons by position (bottom face = B).
    static let padButtons: [String: RetroPadButton] = [
        "a": .b, "b": .a, "x": .y, "y": .x, "leftshoulder": .l, "rightshoulder": .r,
        "back": .select, "start": .start, "leftstick": .l3, "rightstick": .r3,
        "dpup": .up, "dpdown": .down, "dpleft": .left, "dpright": .right,
    ]

    static func map(_ devices: HostDevices) -> InputState {
        var input = InputState()
        for key in devices.keys {
            if let button = keys[key] { input.set(button, true, port: 0) }
        }
        for (index, pad) in devices.gamepads.prefix(InputState.maxPorts).enumerated() {
            for name in pad.buttons {
                if let button = padButtons[name] { input.set(button, true, port: index) }
            }
            if pad.axes["lefttrigger", default: 0] > 16384 { input.set(.l2, true, port: index) }
            if pad.axes["righttrigger", default: 0] > 16384 { input.set(.r2, true, port: index) }
            for (axis, name) in ["leftx", "lefty", "rightx", "righty"].enumerated() {
                input.setAnalog(port: index, axis: axis, Int16(clamping: pad.axes[name, default: 0]))
            }
        }
        return input
    }
}
