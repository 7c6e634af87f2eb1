import Foundation

/// A private X server for tests that open SDL windows when none is set (scripts/test runs everything
/// under xvfb-run; a bare `swift test` does not). Xvfb picks a free display number itself
/// (`-displayfd`), so parallel test runs never fight over `:99`.
enum XvfbDisplay {
    nonisolated(unsafe) private static var server: Process?

    /// Makes sure `DISPLAY` names a live X server; returns false when there is none and Xvfb is not
    /// installed (the caller skips).
    static func start() -> Bool {
        if ProcessInfo.processInfo.environment["DISPLAY"] != nil { return true }
        let path = "/usr/bin/Xvfb"
        guard FileManager.default.isExecutableFile(atPath: path) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // Xvfb writes the display number it chose to fd 1 once it accepts connections.
        process.arguments = ["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        var text = ""
        while !text.contains("\n") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // Xvfb exited
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            return false
        }
        setenv("DISPLAY", ":\(number)", 1)
        server = process
        return true
    }

    /// Stops the server `start()` launched, if any.
    static func stop() {
        guard let process = server else { return }
        process.terminate()
        process.waitUntilExit()
        server = nil
        unsetenv("DISPLAY")
    }
}
