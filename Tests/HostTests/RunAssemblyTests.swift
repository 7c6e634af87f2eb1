@testable import Emulation
import Foundation
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import XCTest

/// Runs assembled in-process from a `RunPlan`, as `retrolua run` assembles them: the report, and the
/// same refusals the command line prints.
final class RunAssemblyTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A headless plan whose user files go to a fresh folder, printing nothing.
    private func plan(rom: String = Fixtures.nesROM, folder: String = Fixtures.temporaryFolder()) -> RunPlan {
        var config = SessionConfig(contentPath: rom)
        config.paths.saves = folder + "/saves"
        config.paths.system = folder + "/system"
        config.paths.config = folder + "/config"
        config.paths.states = folder + "/states"
        config.paths.data = folder + "/data"
        var plan = RunPlan(session: config)
        plan.frontend.window = false
        plan.frontend.audio = false
        plan.report = .none
        plan.stopsOnSignals = false
        plan.scriptOptions.allowFiles = true  // the scripts here mark files in their own (temporary) folder
        return plan
    }

    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return stored }
    }

    private func console(_ out: Lines, _ problems: Lines) -> RunConsole {
        RunConsole(print: { out.append($0) }, problem: { problems.append($0) })
    }

    func testAPlanWithAScriptAndAFrameLimitRunsInProcess() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        event.on("exit", function() emu.result("exited", true) end)
        for _ = 1, 20 do joypad.set(1, {right = true}); emu.frameadvance() end
        emu.result("x", memory.read_u8(3))
        """.write(toFile: folder + "/walk.lua", atomically: true, encoding: .utf8)
        var plan = plan(folder: folder)
        plan.scripts = [ScriptSpec(path: folder + "/walk.lua")]
        plan.frameLimit = 45
        plan.report = .summary
        let out = Lines(), problems = Lines()
        let outcome = try Run(plan, console: console(out, problems)).execute()
        XCTAssertEqual(outcome.status, 0, problems.all.joined(separator: "\n"))
        XCTAssertEqual(outcome.frames, 45, "the frame limit, not the script's end, ends a limited run")
        XCTAssertEqual(outcome.results["x"] as? Int, 136, "20 frames holding right")
        XCTAssertEqual(outcome.results["exited"] as? Bool, true, "exit callbacks run before the results are taken")
        XCTAssertEqual(outcome.core.name, "nestopia")
        XCTAssertEqual(outcome.content?.fileName, "demo.nes")
        let hash = try XCTUnwrap(outcome.frameHash)
        XCTAssertEqual(out.all.first, "core     nestopia (\(outcome.core.library) \(outcome.core.version))")
        XCTAssertTrue(out.all.contains { $0.hasPrefix("frames   45 in") }, "\(out.all)")
        XCTAssertEqual(out.all.last?.hasSuffix("hash \(hash)"), true, "\(out.all)")
        XCTAssertEqual(problems.all, [])
    }

    func testAScriptsExitCodeIsTheRunsStatusAndTheSameInputGivesTheSameFrame() throws {
        let folder = Fixtures.temporaryFolder()
        try "for _ = 1, 12 do emu.frameadvance() end emu.exit(3)".write(
            toFile: folder + "/stop.lua", atomically: true, encoding: .utf8)
        var scripted = plan(folder: folder)
        scripted.scripts = [ScriptSpec(path: folder + "/stop.lua")]
        let stopped = try Run(scripted).execute()
        XCTAssertEqual(stopped.status, 3)
        XCTAssertEqual(stopped.frames, 12, "emu.exit ends the run at once")
        var bare = plan(folder: folder)
        bare.frameLimit = 12
        let plain = try Run(bare).execute()
        XCTAssertTrue(bare.isBare, "nothing but the core: the leanest loop")
        XCTAssertEqual(plain.status, 0)
        XCTAssertEqual(plain.frames, 12)
        XCTAssertEqual(plain.frameHash, stopped.frameHash, "the same 12 frames without input, either loop")
    }

    func testABadROMGivesTheMessageTheCommandLineGives() throws {
        let missing = Fixtures.temporaryFolder() + "/missing.nes"
        XCTAssertThrowsError(try Run(plan(rom: missing)).execute()) { error in
            guard let failure = error as? RunFailure else { return XCTFail("\(error)") }
            XCTAssertTrue(failure.message.contains("missing.nes: cannot read content: no such file"), failure.message)
            let cli = try? Fixtures.cli(["run", missing, "--headless"])
            XCTAssertEqual(cli?.status, 1)
            XCTAssertEqual(cli?.stderr, "retrolua: \(failure.message)\n")
        }
    }

    func testAMissingScriptIsRefusedBeforeTheCoreLoads() throws {
        var plan = plan()
        plan.scripts = [ScriptSpec(path: "/nonexistent/bot.lua")]
        XCTAssertThrowsError(try Run(plan).execute()) { error in
            XCTAssertEqual((error as? RunFailure)?.message, "run: /nonexistent/bot.lua: no such script")
        }
    }

    func testARunThatCannotStartWritesNoSaveRAMAndRunsNoExitCallbacks() throws {
        let folder = Fixtures.temporaryFolder()
        try "event.on('exit', function() io.open('\(folder)/exit-ran', 'w'):close() end)"
            .write(toFile: folder + "/exit.lua", atomically: true, encoding: .utf8)
        let notSocket = folder + "/file"
        try "precious".write(toFile: notSocket, atomically: true, encoding: .utf8)
        var plan = plan(folder: folder)
        plan.scripts = [ScriptSpec(path: folder + "/exit.lua")]
        plan.control = ControlPlan(address: .unix(notSocket))
        let out = Lines(), problems = Lines()
        XCTAssertThrowsError(try Run(plan, console: console(out, problems)).execute()) { error in
            XCTAssertTrue((error as? RunFailure)?.message.hasPrefix("run: --control: ") == true, "\(error)")
            XCTAssertTrue((error as? RunFailure)?.message.contains("exists and is not a socket") == true, "\(error)")
        }
        XCTAssertEqual(out.all, [])
        XCTAssertEqual(problems.all, [], "the script loaded")
        XCTAssertEqual(try String(contentsOfFile: notSocket, encoding: .utf8), "precious")
        let saves = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/saves")) ?? []
        XCTAssertEqual(saves, [], "nothing ran, nothing is written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/exit-ran"), "no exit callbacks")
        // The core was let go: the next run in this process loads it again, and ends its scripts.
        var again = self.plan(folder: folder)
        again.scripts = [ScriptSpec(path: folder + "/exit.lua")]
        again.frameLimit = 2
        XCTAssertEqual(try Run(again).execute().status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/exit-ran"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/saves"), [Fixtures.srm()],
            "a run that ran saves"
        )
    }
}
