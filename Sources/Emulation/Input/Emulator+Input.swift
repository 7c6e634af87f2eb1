import Libretro

/// The input layers, bottom to top: the player's input (host devices, the control socket's `step`),
/// the overrides doors force for one frame (`joypad.set`), and a playing movie's input, which replaces
/// both.
extension Emulator {
    /// Replaces the overrides for the coming frame (all of `changes` or nothing); refused in hardcore
    /// mode. Inside the `input` event they apply to the poll in progress.
    public func setOverrides(_ changes: InputOverrides) throws(Refusal) {
        if hardcore { throw .hardcore("joypad overrides are") }
        overrides = changes
        if phase == .inputPoll { session.core.input = effectiveInput() }
    }

    /// The RetroPad buttons the core says `port` (0-based) has (its input descriptors), in id order;
    /// empty when the core describes none for the port (then every button may mean something).
    public func declaredButtons(port: Int) -> [RetroPadButton] {
        let joypad = 1  // RETRO_DEVICE_JOYPAD
        let ids = Set(
            session.core.inputDescriptors.filter { $0.port == port && $0.device == joypad && $0.index == 0 }.map(\.id))
        return RetroPadButton.allCases.filter { ids.contains($0.rawValue) }
    }
}
