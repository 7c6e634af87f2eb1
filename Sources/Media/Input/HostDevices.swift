/// The host's keyboard, mouse and gamepads as scripts see them (`input.*`). An `InputSource` brings
/// it up to date once per frame; scripts (`input.set_*`) and tests may also set it directly.
public struct HostDevices: Sendable {
    /// Pressed keys by lower-case SDL key name (`"a"`, `"left"`, `"return"`, `"f1"`).
    public var keys: Set<String> = []
    public var mouse = Mouse()
    public var gamepads: [Gamepad] = []

    public struct Mouse: Sendable {
        public var x = 0
        public var y = 0
        /// `"left"`, `"middle"`, `"right"`, `"x1"`, `"x2"`.
        public var buttons: Set<String> = []
        public var wheel = 0
        public init() {}
    }

    public struct Gamepad: Sendable {
        public var name: String
        /// SDL GameController button names: `"a"`, `"b"`, `"x"`, `"y"`, `"back"`, `"start"`, `"dpup"`, …
        public var buttons: Set<String> = []
        /// SDL GameController axis names (`"leftx"`, `"lefty"`, `"rightx"`, `"righty"`,
        /// `"lefttrigger"`, `"righttrigger"`) → −32768…32767.
        public var axes: [String: Int] = [:]
        public init(name: String) { self.name = name }
    }

    public init() {}
}
