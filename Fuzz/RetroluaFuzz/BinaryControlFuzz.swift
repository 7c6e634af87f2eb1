import Foundation
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// The control socket's binary door (header + payload messages, as ControlClient frames them) against
/// the NES demo in nestopia: every command, with steps cut to four frames (emulated frames are what make an input slow),
/// but `movie`, which writes the file its request names by design; `preprocess` with its no-op starts cut
/// to four frames too.
enum BinaryControlFuzz {
    nonisolated(unsafe) private static var door: ControlBinaryDoor?

    static func prepare() {
        ControlFuzz.prepare()
        guard let control = ControlFuzz.control else { FuzzPaths.fail("the control session did not open") }
        do { door = try ControlBinaryDoor(session: control) } catch {
            FuzzPaths.fail("cannot open the binary door: \(error)")
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let door else { return }
        let all = [UInt8](bytes)[...]
        var start = all.startIndex
        let size = ControlBinaryProtocol.requestSize
        while all.endIndex - start >= size {
            let declared = ControlBinaryProtocol.Request.payloadLength(all[start...]) ?? 0
            let end = start + size + min(declared, all.endIndex - start - size)
            let message = all[start..<end]
            start = end
            let request = ControlBinaryProtocol.Request(message)
            if request.command == ControlBinaryProtocol.Command.step.rawValue && request.count > 4 { continue }
            // A processed episode start runs up to noop_max (10,000) frames: bounded here like long steps.
            if request.command == ControlBinaryProtocol.Command.preprocess.rawValue && request.payload.count >= 28 {
                let noops = request.payload.dropFirst(24).prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
                if noops > 4 { continue }
            }
            if request.command == ControlBinaryProtocol.Command.movie.rawValue { continue }
            switch door.start(message) {
            case .reply: break
            case .continuing(let work): while work() == nil {}
            }
        }
    }
}
