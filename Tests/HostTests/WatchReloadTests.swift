@testable import Emulation
import Foundation
@testable import Scripting
import Media
import XCTest

/// `--watch` after a failure, in-process: a script that failed (while running, or not compiling at its first
/// load) stays watched and loads again once its file is saved; the other scripts hear of the failure
/// (`script_failed`) and of the load (`script_loaded`); the OSD shows the failure, wrapped at the window's width,
/// until the fixed script loads; the menu's Scripts page shows the whole error.
final class WatchReloadTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// Saves `source` as another version of `path`: its modification time is set `age` seconds back, so a
    /// save within the file system's clock tick is another version all the same.
    private func save(_ source: String, to path: String, age: TimeInterval) throws {
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: path)
    }

    /// Prints what the other scripts are told: `failed NAME WATCHED FIRST-LINE`, `loaded NAME`.
    private let listener = """
        event.on('script_failed', function(name, message, watched)
          print('failed ' .. name .. ' ' .. tostring(watched) .. ' ' .. message:match('[^\\n]*'))
        end)
        event.on('script_loaded', function(name) print('loaded ' .. name) end)
        """

    func testAScriptThatFailsWhileRunningLoadsAgainWhenItsFixIsSaved() throws {
        let harness = try ScriptHarness { $0.watch = true }
        defer { harness.close() }
        try harness.load(listener, name: "listener.lua")
        let path = try harness.load(
            "event.on('frame_end', function() if emu.framecount() >= 3 then error('broke') end end)", name: "live.lua")
        harness.run(5)
        XCTAssertEqual(harness.failures.map(\.script), ["live.lua"])
        let told = try XCTUnwrap(harness.lines.first { $0.hasPrefix("failed live.lua ") }, "\(harness.lines)")
        XCTAssertTrue(told.hasPrefix("failed live.lua true ") && told.contains("live.lua:1: broke"), told)
        harness.run(40)
        XCTAssertFalse(harness.lines.contains("fixed"), "nothing saved, nothing loaded")
        try save("print('fixed'); event.on('frame_end', function() end)", to: path, age: 60)
        harness.run(16)
        XCTAssertTrue(harness.lines.contains("fixed"), "the fix runs: \(harness.lines)")
        XCTAssertTrue(harness.lines.contains("loaded live.lua"), "\(harness.lines)")
        XCTAssertEqual(harness.failures.count, 1, "\(harness.failures)")
        // It fails again: watched again, and the next save loads it again.
        try save("error('again')", to: path, age: 120)
        harness.run(16)
        XCTAssertEqual(harness.failures.count, 2)
        XCTAssertTrue(harness.lines.contains { $0.hasPrefix("failed live.lua true ") && $0.contains(": again") })
        try save("print('fixed twice')", to: path, age: 180)
        harness.run(16)
        XCTAssertTrue(harness.lines.contains("fixed twice"), "\(harness.lines)")
        XCTAssertEqual(harness.host.scriptCount, 2, "the listener and live.lua: the failures took nothing else down")
    }

    func testAScriptThatDoesNotCompileAtItsFirstLoadLoadsOnceSaved() throws {
        let harness = try ScriptHarness { $0.watch = true }
        defer { harness.close() }
        try harness.load(listener, name: "listener.lua")
        let path = harness.folder + "/broken.lua"
        try "event.on('frame_end', function(".write(toFile: path, atomically: true, encoding: .utf8)
        // As the run loads it: the error thrown, then reported.
        XCTAssertThrowsError(try harness.host.load(scriptAt: path)) { error in
            harness.host.report(failure: error as! ScriptError)
        }
        harness.run(1)
        XCTAssertTrue(harness.lines.contains { $0.hasPrefix("failed broken.lua true ") }, "\(harness.lines)")
        harness.run(30)
        XCTAssertFalse(harness.lines.contains("compiled"))
        try save("print('compiled')", to: path, age: 60)
        harness.run(16)
        XCTAssertTrue(harness.lines.contains("compiled"), "\(harness.lines)")
        XCTAssertTrue(harness.lines.contains("loaded broken.lua"), "\(harness.lines)")
    }

    /// A headless `--watch` run keeps going while a failed script waits for its fix (it has nothing else to
    /// end on); without `--watch` a failed script is gone and never read again.
    func testAFailedScriptWaitsForItsFixOnlyUnderWatch() throws {
        for watch in [true, false] {
            let harness = try ScriptHarness { $0.watch = watch }
            defer { harness.close() }
            let path = try harness.load("error('at once')", name: "once.lua")
            XCTAssertEqual(harness.host.hasActiveScripts, watch, "watch \(watch)")
            try save("print('fixed')", to: path, age: 60)
            harness.run(16)
            XCTAssertEqual(harness.lines.contains("fixed"), watch, "watch \(watch): \(harness.lines)")
        }
    }

    private let red: [UInt8] = [0xFF, 0x60, 0x60, 255]

    func testTheOSDShowsTheFailureWrappedUntilTheFixLoads() throws {
        let harness = try ScriptHarness { $0.watch = true }
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/osd.lua")
        let long = String(repeating: "a long explanation ", count: 5)
        let path = try harness.load("error(\(String(reflecting: long)))", name: "failing.lua")
        // Long after a message would have gone (180 frames): the note stays while the script waits for its fix.
        harness.run(200)
        let hud = harness.host.screen.hudCanvas
        let note = try XCTUnwrap(hud.box(of: red), "the failure is on screen")
        XCTAssertLessThanOrEqual(note.x.upperBound, hud.width - 4, "inside the window's right margin")
        XCTAssertGreaterThanOrEqual(note.y.count, 2 * 10 + 1, "wrapped over several lines: \(note)")
        XCTAssertLessThan(note.y.upperBound, hud.height)
        try save("event.on('frame_end', function() end)", to: path, age: 60)
        harness.run(16)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: red), "the note goes once the fix loads")
    }

    func testTheMenusScriptsPageShowsTheWholeError() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let long = "the first part of a long error " + String(repeating: "and more words ", count: 8) + "THE END"
        try harness.load("error(\(String(reflecting: long)))", name: "failing.lua")
        try harness.load(file: Fixtures.root + "/lua/defaults/menu.lua")
        harness.run(1)
        // f1, down to Scripts (the 7th item), return, down to failing.lua.
        for key in ["f1"] + Array(repeating: "down", count: 6) + ["return", "down"] {
            harness.host.deliver([.keyDown(key, repeat: false), .keyUp(key)])
            harness.run(1)
        }
        let hud = harness.host.screen.hudCanvas
        let detail = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: red), "the error is shown")
        // At scale 1 the panel holds 40 columns: the message (its path, line and some 160 characters) takes
        // several lines, each inside the panel.
        XCTAssertGreaterThanOrEqual(detail.y.count, 3 * 10 - 2, "wrapped, not cut at the edge: \(detail)")
        XCTAssertLessThanOrEqual(detail.x.upperBound, hud.width - 4)
        XCTAssertTrue(harness.failures.contains { $0.script == "failing.lua" })
    }
}
