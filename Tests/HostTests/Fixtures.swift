@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media

/// Paths to the project's built ROMs and binary, and fresh folders per test.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let nesROM = root + "/build/roms/demo.nes"
    static let gbROM = root + "/build/roms/demo.gb"

    /// The `retrolua` binary built next to the test bundle.
    static var binary: String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [folder, folder.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("retrolua").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return root + "/.build/debug/retrolua"
    }

    /// build/venv's interpreter (scripts/setup gives it numpy and pytest): the Python tests' and the
    /// `retrolua` package's.
    static let python = root + "/build/venv/bin/python"

    /// build/venv-sb3's interpreter (scripts/setup: stable-baselines3, gymnasium 0.29, Debian's torch).
    static let pythonSB3 = root + "/build/venv-sb3/bin/python"

    /// The battery save's file name for `rom` (`GAME.KEY.srm`, keyed by the content's identity).
    static func srm(_ rom: String = nesROM) -> String {
        let content = try! Content(path: rom)
        return SaveRAMFile.fileName(game: content.baseName, key: String(content.identity.prefix(16)))
    }

    static func requireROMs() throws {
        for rom in [nesROM, gbROM] where !FileManager.default.fileExists(atPath: rom) {
            XCTFail("\(rom) is missing: run scripts/setup (it builds the test ROMs)")
            throw XCTSkip("ROMs not built")
        }
    }

    static func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "retrolua-test-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A session whose saves and system files go to a fresh folder.
    static func session(
        rom: String = nesROM, core: String? = nil, folder: String = temporaryFolder(),
        options: [(key: String, value: String)] = [], warn: @escaping (String) -> Void = { _ in }
    ) throws -> Session {
        var config = SessionConfig(contentPath: rom, coreSpec: core)
        config.paths.saves = folder + "/saves"
        config.paths.system = folder + "/system"
        config.paths.config = folder + "/config"
        config.paths.states = folder + "/states"
        config.paths.data = folder + "/data"
        config.paths.screenshots = folder + "/screenshots"
        config.options = options
        // Tests read notices with the warnings; GL cores get the EGL renderer a run gives them.
        return try Session(config, hardwareRenderers: EGLHeadlessRenderer.make, warn: warn, notice: warn)
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the CLI with HOME pointed at a fresh folder so no user files are touched.
    @discardableResult
    static func cli(
        _ arguments: [String], home: String = temporaryFolder(), environment extra: [String: String] = [:],
        executable: String? = nil, arguments override: [String]? = nil, timeout: Double = 120
    ) throws -> Result {
        var environment = headlessEnvironment(home: home)
        environment.merge(extra) { _, new in new }
        return try run(
            executable ?? binary, override ?? arguments, environment: environment, timeout: timeout, closedInput: false)
    }
}

extension Session {
    func systemRAM() -> [UInt8] {
        let region = core.memoryRegion(.systemRAM)!
        return Array(UnsafeRawBufferPointer(start: region.pointer, count: region.size))
    }

    /// Runs `frames` frames holding `buttons` on port 1.
    func run(_ frames: Int, holding buttons: [RetroPadButton] = []) {
        core.input.buttons[0] = 0
        for button in buttons { core.input.set(button, true) }
        for _ in 0..<frames { runFrame() }
        core.input.buttons[0] = 0
    }
}
