@testable import Emulation
import Foundation
import XCTest

/// A real X server for window tests: the one `scripts/test` starts (xvfb-run), or our own Xvfb.
enum XDisplay {
    nonisolated(unsafe) private static var started: Process?

    static func name() throws -> String {
        if let display = ProcessInfo.processInfo.environment["DISPLAY"] { return display }
        if started == nil {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
                throw XCTSkip("no Xvfb (run scripts/setup)")
            }
            let number = 60 + Int(getpid() % 200)
            let xvfb = Process()
            xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            xvfb.arguments = [":\(number)", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
            xvfb.standardError = FileHandle.nullDevice
            try xvfb.run()
            started = xvfb
            atexit { XDisplay.started?.terminate() }
            // The socket appears once the server is ready.
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
                usleep(20_000)
            }
        }
        return ":\(60 + Int(getpid() % 200))"
    }
}
