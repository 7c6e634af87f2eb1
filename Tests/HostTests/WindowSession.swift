import Foundation
import Libretro
import Media
import XCTest

/// A `retrolua run` in a real window under the test X server, driven as a person drives it: keys typed by
/// xdotool (XTEST, so SDL sees real key presses), output read back from its files. The default profile and
/// every default frontend script are loaded unless the arguments say otherwise.
final class WindowSession {
    let process = Process()
    let home: String
    let display: String
    private let outPath: String
    private let errPath: String
    private var window: String?

    /// Starts the run; `home` is its HOME (config and data folders under it, as a first run has them).
    init(
        _ arguments: [String], home: String = Fixtures.temporaryFolder(), environment extra: [String: String] = [:]
    )
        throws
    {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool") else {
            throw XCTSkip("no xdotool (run scripts/setup)")
        }
        self.home = home
        display = try XDisplay.name()
        outPath = home + "/stdout.txt"
        errPath = home + "/stderr.txt"
        XCTAssertTrue(FileManager.default.createFile(atPath: outPath, contents: nil))
        XCTAssertTrue(FileManager.default.createFile(atPath: errPath, contents: nil))
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = ["run"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "WAYLAND_DISPLAY"] {
            environment[name] = nil
        }
        environment["DISPLAY"] = display
        environment["SDL_AUDIODRIVER"] = "dummy"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        // A run that hangs fails its test instead of the whole suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        window = try findWindow()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Runs xdotool with these arguments on our display; its standard output.
    @discardableResult
    func xdotool(_ arguments: [String]) throws -> String {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/xdotool")
        tool.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        tool.environment = environment
        let out = Pipe()
        tool.standardOutput = out
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        tool.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Our window, once it is mapped (xdotool's own --sync waits forever, so the wait is bounded here).
    private func findWindow() throws -> String {
        for _ in 0..<300 {
            let found = try xdotool(["search", "--onlyvisible", "--pid", String(process.processIdentifier)])
                .split(separator: "\n").first
            if let found { return String(found) }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw XCTSkip("no Retrolua window appeared on \(display): \(stderr)")
    }

    /// Presses keys as a person does (xdotool names: "F8", "ctrl+s", "Escape", "Return", "a"), one at a time,
    /// with the window focused.
    func press(_ keys: String..., delay: Int = 80) throws {
        guard let window else { return }
        try xdotool(["windowfocus", "--sync", window])
        try xdotool(["key", "--delay", String(delay)] + keys)
        usleep(UInt32(delay) * 1000)
    }

    /// Presses `key` until `answered` holds, as a person presses again when nothing happened (the first
    /// frame may not have run when the window appears); false when five presses did nothing.
    @discardableResult
    func press(_ key: String, until answered: () -> Bool) throws -> Bool {
        for _ in 0..<5 {
            try press(key)
            if waitUntil(seconds: 2, answered) { return true }
        }
        return false
    }

    /// Runs xdotool commands against the focused window in one invocation, with no delay of its own: what a fast
    /// typist, a remote desktop or a click sends within one frame (`["key", "--delay", "0", "ctrl+n"]`,
    /// `["keydown", "ctrl", "keydown", "n", "keyup", "n", "keyup", "ctrl"]`). `%w` stands for the window.
    func quickly(_ commands: [String]) throws {
        guard let window else { return }
        try xdotool(["windowfocus", "--sync", window])
        try xdotool(commands.map { $0 == "%w" ? window : $0 })
    }

    /// The window as the display shows it (the hud too), grabbed by ffmpeg as scripts/screenshots does; nil
    /// without ffmpeg or when the grab failed.
    func capture() -> RGBAImage? {
        guard let window, FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else { return nil }
        let path = home + "/window-\(UUID().uuidString).png"
        let grab = Process()
        grab.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        grab.arguments = [
            "-loglevel", "error", "-y", "-f", "x11grab", "-draw_mouse", "0", "-window_id", window, "-i", display,
            "-frames:v", "1", path,
        ]
        grab.standardOutput = FileHandle.nullDevice
        grab.standardError = FileHandle.nullDevice
        guard (try? grab.run()) != nil else { return nil }
        grab.waitUntilExit()
        return try? PNGFile.read(path)
    }

    /// Types text as a person types it.
    func type(_ text: String) throws {
        guard let window else { return }
        try xdotool(["windowfocus", "--sync", window])
        try xdotool(["type", "--delay", "60", text])
        usleep(100_000)
    }

    /// Waits (bounded) until `condition` holds; false when it never did or the run ended first.
    @discardableResult
    func waitUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            usleep(50_000)
        }
        return condition()
    }

    /// Asks the run to end (SIGTERM, as a desktop's logout does) and waits for it; its exit status (143 when clean).
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits for the run to end by itself (after a key that quits); its exit status.
    func waitForExit(seconds: Double = 30) -> Int32? {
        waitUntil(seconds: seconds) { !process.isRunning }
        guard !process.isRunning else { return nil }
        return process.terminationStatus
    }
}
