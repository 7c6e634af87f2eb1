@testable import Emulation
import Foundation
import Libretro
import XCTest

/// SIGINT, SIGTERM and SIGHUP end every loop cleanly (save RAM, the movie, the report, exit
/// callbacks) with 128 + the signal; batch passes them on to its jobs and has per-job timeouts.
final class StopSignalTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func saves(_ home: String) -> String { home + "/.local/share/retrolua/saves" }
    private func data(_ home: String) -> String { home + "/.local/share/retrolua/data" }
    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// A plain headless run (no script): the save RAM reaches the disk after a second of game time;
    /// it is removed, and the signal's clean end must write it again.
    private func plainHeadless(_ number: Int32, expect status: Int32) throws {
        let home = Fixtures.temporaryFolder()
        let srm = saves(home) + "/" + Fixtures.srm()
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--frames", "100000000", "--json"], home: home)
        XCTAssertTrue(child.waitUntil { exists(srm) }, "the periodic write puts the save on disk")
        try FileManager.default.removeItem(atPath: srm)
        child.signal(number)
        let result = child.finish()
        XCTAssertEqual(result.status, status, result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: srm)?.count, 8192, "written again at the clean end")
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(json["exit_code"] as? Int, Int(status))
        XCTAssertGreaterThanOrEqual(json["frames"] as? Int ?? 0, 60)
    }

    /// Without --json the summary is printed as at a natural end, frames counted to the stop.
    func testPlainHeadlessRunPrintsItsSummaryOnSIGINT() throws {
        let home = Fixtures.temporaryFolder()
        let srm = saves(home) + "/" + Fixtures.srm()
        let child = try ChildProcess(["run", Fixtures.nesROM, "--headless", "--frames", "100000000"], home: home)
        XCTAssertTrue(child.waitUntil { exists(srm) })
        child.signal(SIGINT)
        let result = child.finish()
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("core     nestopia"), result.stdout)
        XCTAssertTrue(result.stdout.contains("\nframes   "), result.stdout)
        XCTAssertTrue(result.stdout.contains("\nframe    256x224"), result.stdout)
    }

    func testPlainHeadlessRunEndsCleanlyOnSIGTERM() throws { try plainHeadless(SIGTERM, expect: 143) }
    func testPlainHeadlessRunEndsCleanlyOnSIGINT() throws { try plainHeadless(SIGINT, expect: 130) }
    func testPlainHeadlessRunEndsCleanlyOnSIGHUP() throws { try plainHeadless(SIGHUP, expect: 129) }

    /// A script that never finishes: its exit callback runs and the status is the signal's.
    private func scripted(_ number: Int32, expect status: Int32) throws {
        let home = Fixtures.temporaryFolder()
        let script = home + "/forever.lua"
        try """
        emu.save_data("started.txt", "yes")
        event.on("exit", function() emu.save_data("exited.txt", "yes") end)
        while true do emu.frameadvance() end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--script", script, "--json"], home: home)
        XCTAssertTrue(child.waitUntil { exists(data(home) + "/started.txt") })
        child.signal(number)
        let result = child.finish()
        XCTAssertEqual(result.status, status, result.stderr)
        XCTAssertTrue(exists(data(home) + "/exited.txt"), "the exit callback ran")
        XCTAssertTrue(result.stdout.contains("\"exit_code\":\(status)"), result.stdout)
    }

    func testScriptedHeadlessRunEndsWith143OnSIGTERM() throws { try scripted(SIGTERM, expect: 143) }
    func testScriptedHeadlessRunEndsWith130OnSIGINT() throws { try scripted(SIGINT, expect: 130) }

    func testARecordingIsSavedWhenTheRunIsStopped() throws {
        let home = Fixtures.temporaryFolder()
        let script = home + "/walk.lua", movie = home + "/walk.rlm"
        try """
        while true do
          joypad.set(1, { right = true })
          emu.frameadvance()
          if movie.frame() == 90 then emu.save_data("ninety.txt", "yes") end
        end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--script", script, "--record-movie", movie], home: home)
        XCTAssertTrue(child.waitUntil { exists(data(home) + "/ninety.txt") })
        child.signal(SIGTERM)
        let result = child.finish()
        XCTAssertEqual(result.status, 143, result.stderr)
        let saved = try MovieText.read(path: movie)
        XCTAssertGreaterThanOrEqual(saved.length, 90)
        XCTAssertFalse(exists(MovieJournal.path(for: movie)), "the journal goes once the movie is saved")
    }

    private func controlSocket(_ number: Int32, expect status: Int32) throws {
        let home = Fixtures.temporaryFolder()
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--headless", "--control", "unix:" + home + "/control.sock", "--json"],
            home: home)
        XCTAssertTrue(child.waitUntil { exists(home + "/control.sock") })
        child.signal(number)
        let result = child.finish()
        XCTAssertEqual(result.status, status, result.stderr)
        XCTAssertTrue(result.stdout.contains("\"exit_code\":\(status)"), result.stdout)
    }

    func testControlSocketRunEndsWith143OnSIGTERM() throws { try controlSocket(SIGTERM, expect: 143) }
    func testControlSocketRunEndsWith129OnSIGHUP() throws { try controlSocket(SIGHUP, expect: 129) }

    /// The replay loop (`movie verify`, `movie convert --add-verify`) stops too, and writes nothing.
    func testAReplayStopsOnSIGINTAndWritesNothing() throws {
        let home = Fixtures.temporaryFolder()
        let short = home + "/short.rlm", long = home + "/long.rlm", out = home + "/verified.rlm"
        let recorded = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "2", "--record-movie", short, "--quiet"], home: home)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        var movie = try MovieText.read(path: short)
        for frame in movie.length..<60_000 { movie.log.set(frame, input: InputState(), flags: []) }
        try MovieText.write(movie, to: long)
        let child = try ChildProcess(
            ["movie", "convert", long, out, "--rom", Fixtures.nesROM, "--add-verify"], home: home)
        child.waitUntilHandlingSignals()
        child.signal(SIGINT)
        let result = child.finish()
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stderr.contains("stopped by a signal; nothing written"), result.stderr)
        XCTAssertFalse(exists(out))
    }

    func testWindowRunEndsWith143OnSIGTERM() throws {
        let home = Fixtures.temporaryFolder()
        let srm = saves(home) + "/" + Fixtures.srm()
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--no-audio", "--json"], home: home,
            environment: ["DISPLAY": try XDisplay.name(), "SDL_AUDIODRIVER": "dummy"])
        XCTAssertTrue(child.waitUntil { exists(srm) }, "a second of game time ran in the window")
        try FileManager.default.removeItem(atPath: srm)
        child.signal(SIGTERM)
        let result = child.finish()
        XCTAssertEqual(result.status, 143, result.stderr)
        XCTAssertTrue(exists(srm), "written at the clean end")
        XCTAssertTrue(result.stdout.contains("\"exit_code\":143"), result.stdout)
    }
}
