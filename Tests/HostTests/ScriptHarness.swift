@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media

/// Runs Lua against the NES demo in-process and collects what scripts print and how they fail.
final class ScriptHarness {
    let folder = Fixtures.temporaryFolder()
    let session: Session
    let host: ScriptHost
    var output = ""
    var errors = ""
    var failures: [ScriptError] { host.failures }

    init(rom: String = Fixtures.nesROM, core: String? = nil, configure: (inout ScriptOptions) -> Void = { _ in }) throws
    {
        session = try Fixtures.session(rom: rom, core: core, folder: folder)
        var options = ScriptOptions(dataFolder: folder + "/data")
        // Tests keep their files in temporary folders beside the scripts; the confined default profile
        // is tested on its own (HostileScriptTests, ScriptModelTests) with allowFiles set back to false.
        options.allowFiles = true
        configure(&options)
        let emulator = Emulator(session: session)
        host = ScriptHost(emulator: emulator, screen: Screen.shown(by: emulator), options: options, api: Bindings.api)
        host.output = { [unowned self] text, error in
            if error { errors += text } else { output += text }
        }
        host.onFailure = { _ in }
    }

    private var closed = false

    /// Ends the scripts and unloads the core (one core per process: close before the next harness).
    func close() {
        guard !closed else { return }
        closed = true
        host.shutdown()
        try? session.close()
    }

    deinit { close() }

    /// Writes `source` to a file in the test folder and loads it.
    @discardableResult
    func load(_ source: String, name: String = "test.lua") throws -> String {
        let path = folder + "/" + name
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        try host.load(scriptAt: path)
        return path
    }

    /// Loads a script file as it is (the shipped defaults).
    func load(file path: String) throws {
        try host.load(scriptAt: path, frontendDefault: true)
    }

    func run(_ frames: Int) {
        for _ in 0..<frames where host.emulator.exitCode == nil { host.emulator.runFrame() }
    }

    var lines: [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}

extension ScriptHarness {
    /// Holds or releases A on the player's controller (port 1).
    func playerInput(a: Bool) {
        host.emulator.playerInput.set(.a, a)
    }
}
