import Emulation
import Libretro
import Media

extension Screen {
    /// A run's screen for `emulator`: every picture taken of the emulator (screenshots, branch thumbnails,
    /// the doors' screens, video dumps) gets this screen's `emu` overlay, and thumbnails are written as PNG.
    /// The one place the emulator, which knows pictures but not surfaces, is joined to them.
    public static func shown(by emulator: Emulator) -> Screen {
        let screen = Screen()
        // Weak: a picture taken after the run let go of its screen is the bare frame.
        emulator.overlay = { [weak screen] image in screen?.overlay(&image) }
        emulator.writeImage = { image, path in try PNGFile.write(image, to: path) }
        return screen
    }
}
