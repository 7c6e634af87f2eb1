@testable import Emulation
import Foundation
@testable import Frontend
@testable import Run
import Libretro

extension ScriptHarness {
    /// Records `frames` frames of `input(frame)` into `name` in the harness's folder, then plays that movie back
    /// read-write from its start (as the TAS editor edits it); the movie's path.
    func recordAndPlay(_ name: String, frames: Int, input: (Int) -> InputState) throws -> String {
        let path = folder + "/" + name
        let emulator = host.emulator
        try emulator.movie.record(to: path, options: .init())
        for frame in 0..<frames {
            emulator.playerInput = input(frame)
            emulator.runFrame()
        }
        emulator.playerInput = InputState()
        try emulator.movie.stop()
        var options = MovieEngine.PlayOptions()
        options.readOnly = false
        try emulator.playMovie(at: path, options: options)
        return path
    }
}
