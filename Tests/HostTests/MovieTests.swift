@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Support

/// Movies end to end on nestopia and the NES demo: recording, playback, read-only/read-write,
/// rerecords, branches, verification, identity checks and bad files.
final class MovieTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A deterministic input pattern that moves the player and presses A and B.
    private static func pattern(_ frame: Int) -> InputState {
        var input = InputState()
        input.set(.right, frame % 3 == 0)
        input.set(.down, frame % 5 < 2)
        input.set(.a, frame % 7 == 0)
        input.set(.b, frame > 100 && frame < 120)
        return input
    }

    private struct Snapshot: Equatable {
        let ram: [UInt8]
        let picture: String
    }

    private func snapshot(_ session: Session) -> Snapshot {
        let frame = session.core.currentFrame()!
        return Snapshot(ram: session.systemRAM(), picture: Hashing.sha1(frame.pixels))
    }

    func testRecordThenPlayGivesTheSameFramesAndRAMAtEveryFrame() throws {
        let path = Fixtures.temporaryFolder() + "/run.rlm"
        var recorded: [Snapshot] = []
        do {
            let harness = try ScriptHarness()
            harness.run(40)  // the recording starts from power-on, not from here
            var options = MovieEngine.RecordOptions()
            options.verify = true
            try harness.host.emulator.movie.record(to: path, options: options)
            XCTAssertEqual(harness.session.frameCount, 0)
            for frame in 0..<200 {
                if frame == 150 {
                    harness.session.core.reset()
                    harness.host.emulator.movie.noteCommand(.reset)
                }
                harness.host.emulator.playerInput = Self.pattern(frame)
                harness.host.emulator.runFrame()
                recorded.append(snapshot(harness.session))
            }
            try harness.host.emulator.movie.stop()
            harness.close()
        }
        let movie = try MovieText.read(path: path)
        XCTAssertEqual(movie.length, 200)
        XCTAssertEqual(movie.ramHashes.count, 200)
        XCTAssertEqual(movie.log.flags(at: 150), .reset)
        XCTAssertEqual(movie.log.input(at: 21).buttons[0], Self.pattern(21).buttons[0])

        let harness = try ScriptHarness()
        harness.run(17)
        try harness.host.emulator.movie.play(movie, path: path, options: .init())
        for frame in 0..<200 {
            // The player's input is ignored during playback.
            harness.host.emulator.playerInput = Self.pattern(frame + 1)
            harness.host.emulator.runFrame()
            XCTAssertEqual(snapshot(harness.session), recorded[frame], "frame \(frame)")
        }
        XCTAssertNil(harness.host.emulator.movie.firstDesync)
        XCTAssertEqual(harness.host.emulator.movie.mode, .finished)
        harness.close()
    }

    func testReadWriteTruncatesAndCountsRerecordsReadOnlyKeepsTheTimeline() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try ScriptHarness()
        try harness.load(
            """
            local path = "\(folder)/rw.rlm"
            local events = {}
            event.on("movie_start", function(mode) events[#events + 1] = "start:" .. mode end)
            event.on("movie_end", function() events[#events + 1] = "end" end)
            local before = savestate.create()
            assert(movie.record(path))
            assert(movie.mode() == "record" and movie.frame() == 0 and not movie.readonly())
            for i = 1, 100 do joypad.set(1, {right = i <= 50, left = i > 50}); emu.frameadvance() end
            assert(movie.length() == 100 and movie.frame() == 100)
            local x100 = memory.read_u8(3)
            -- A state from before the movie carries no movie input: refused, the game untouched.
            local ok, why = before:load()
            assert(ok == nil and why:find("not made during this movie"), why)
            assert(memory.read_u8(3) == x100)
            assert(movie.stop())
            assert(events[1] == "start:record" and events[#events] == "end", table.concat(events, ","))
            -- Read-write playback: back to frame 50, the movie ends there and recording goes on.
            assert(movie.play(path, {readonly = false}))
            for _ = 1, 50 do emu.frameadvance() end
            local at50 = savestate.create()
            for _ = 1, 50 do emu.frameadvance() end
            assert(movie.mode() == "record", movie.mode())  -- read-write playback records at the end
            assert(at50:load())
            assert(movie.frame() == 50 and movie.length() == 50 and movie.rerecords() == 1, movie.length())
            for _ = 1, 10 do joypad.set(1, {up = true}); emu.frameadvance() end
            assert(movie.length() == 60 and movie.input(55).up == true and movie.input(10).right == true)
            movie.set_rerecord_counting(false)
            assert(at50:load() and movie.rerecords() == 1)
            movie.set_rerecord_counting(true)
            -- Read-only: the state at 50 is on the movie's timeline, one from another timeline is not.
            for _ = 1, 10 do joypad.set(1, {down = true}); emu.frameadvance() end
            local other = savestate.create()  -- frame 60 with 'down' input
            assert(at50:load() and movie.rerecords() == 2)
            for _ = 1, 10 do joypad.set(1, {up = true}); emu.frameadvance() end  -- the movie now has 'up'
            movie.readonly(true)
            assert(movie.mode() == "finished", movie.mode())
            assert(at50:load() and movie.mode() == "play" and movie.rerecords() == 2)
            local refused, reason = other:load()
            assert(refused == nil and reason:find("another timeline") and reason:find("frame 50"), reason)
            assert(movie.frame() == 50)
            for _ = 1, 10 do emu.frameadvance() end
            assert(movie.mode() == "finished")
            -- Scripts cannot reset behind a playing movie's back.
            assert(at50:load())
            local no, message = emu.reset()
            assert(no == nil and message:find("movie is playing"), message)
            assert(movie.save(path .. ".copy.rlm"))
            print("ok")
            """)
        harness.run(400)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
        let saved = try MovieText.read(path: folder + "/rw.rlm.copy.rlm")
        XCTAssertEqual(saved.length, 60)
        XCTAssertEqual(saved.rerecords, 2)
        XCTAssertEqual(
            try MovieText.read(path: folder + "/rw.rlm").length, 100,
            "the played movie's file is only written by movie.save")
    }

    func testBranchesSaveListLoadAndDelete() throws {
        let folder = Fixtures.temporaryFolder()
        let harness = try ScriptHarness()
        try harness.load(
            """
            local path = "\(folder)/b.rlm"
            assert(movie.record(path))
            for _ = 1, 30 do joypad.set(1, {right = true}); emu.frameadvance() end
            local x30 = memory.read_u8(3)
            assert(movie.branch_save("fast route"))
            for _ = 1, 30 do joypad.set(1, {left = true}); emu.frameadvance() end
            assert(movie.branch_save("slow"))
            local list = movie.branches()
            assert(#list == 2 and list[1].name == "fast route" and list[1].frame == 30 and list[2].frame == 60)
            assert(list[1].thumbnail and io.open(list[1].thumbnail, "rb"))
            assert(movie.branch_load("fast route"))
            assert(movie.frame() == 30 and movie.length() == 30 and memory.read_u8(3) == x30 and movie.rerecords() == 1)
            assert(movie.branch_load("slow") and movie.length() == 60 and movie.input(45).left)
            assert(movie.branch_delete("slow") and #movie.branches() == 1)
            local ok, why = movie.branch_load("slow")
            assert(ok == nil and why:find("no branch named 'slow'"), why)
            ok, why = movie.branch_save("../escape")
            assert(ok == nil and why:find("bad branch name"), why)
            print("ok")
            """)
        harness.run(100)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertEqual(harness.lines, ["ok"])
        harness.close()
    }

    /// Records `frames` frames of the pattern with a verification log, through the CLI.
    private func recordWithCLI(_ path: String, frames: Int = 120, home: String) throws {
        let script = (path as NSString).deletingLastPathComponent + "/drive.lua"
        try """
        for i = 0, \(frames - 1) do
          joypad.set(1, {right = i % 3 == 0, down = i % 5 < 2, a = i % 7 == 0})
          emu.frameadvance()
        end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            ["movie", "record", path, Fixtures.nesROM, "--script", script, "--verify-log", "--quiet"], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testVerifyFindsAnInjectedDesyncAtItsFrame() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        let path = folder + "/v.rlm"
        try recordWithCLI(path, home: home)
        let good = try Fixtures.cli(["movie", "verify", path, Fixtures.nesROM], home: home)
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertTrue(good.stdout.hasPrefix("in sync  120 frames verified"), good.stdout)

        // Press 'up' on frame 77 only: the game reads it that frame, so its RAM differs from there.
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        let first = try XCTUnwrap(lines.firstIndex(of: "[input]")) + 1
        var line = Array(lines[first + 77])
        XCTAssertEqual(line[3], ".")
        line[3] = "U"
        lines[first + 77] = String(line)
        let bad = folder + "/bad.rlm"
        try lines.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["movie", "verify", bad, Fixtures.nesROM], home: home)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.hasPrefix("desync   frame 77 of 120: RAM differs"), result.stdout)

        let info = try Fixtures.cli(["movie", "info", path], home: home)
        XCTAssertTrue(
            info.stdout.contains("frames     120 (0 lag)") && info.stdout.contains("verify     RAM hash every frame"),
            info.stdout)
        let played = try Fixtures.cli(["movie", "play", path], home: home)  // no ROM given: found by its name and SHA-1
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertTrue(played.stdout.contains("movie    120/120 frames played, rerecords 0; in sync"), played.stdout)
    }

    func testPowerOnMoviesIgnoreAndKeepTheBatterySave() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        let saves = home + "/.local/share/retrolua/saves"
        try FileManager.default.createDirectory(atPath: saves, withIntermediateDirectories: true)
        var save = [UInt8](repeating: 0, count: 8192)
        save[0] = 41  // the demo's power-on counter
        try Data(save).write(to: URL(fileURLWithPath: saves + "/" + Fixtures.srm()))
        let path = folder + "/p.rlm"
        try recordWithCLI(path, frames: 60, home: home)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: saves + "/" + Fixtures.srm())), Data(save),
            "the player's save is untouched")
        // Playback in a process whose save differs still matches: the movie starts without it.
        save[0] = 7
        try Data(save).write(to: URL(fileURLWithPath: saves + "/" + Fixtures.srm()))
        let result = try Fixtures.cli(["movie", "verify", path, Fixtures.nesROM], home: home)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: saves + "/" + Fixtures.srm())), Data(save))
    }

    func testMoviesFromNowCarryTheirStartState() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        let path = folder + "/now.rlm"
        try """
        for _ = 1, 40 do joypad.set(1, {right = true}); emu.frameadvance() end
        assert(movie.record("\(path)", {from = "now", verify = true}))
        for _ = 1, 40 do joypad.set(1, {down = true}); emu.frameadvance() end
        assert(movie.stop())
        """.write(toFile: folder + "/now.lua", atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try Fixtures.cli(
                ["run", Fixtures.nesROM, "--allow-files", "--script", folder + "/now.lua", "--quiet"], home: home
            ).status, 0
        )
        let movie = try MovieText.read(path: path)
        XCTAssertNotNil(movie.startState)
        XCTAssertEqual(movie.length, 40)
        let result = try Fixtures.cli(["movie", "verify", path, Fixtures.nesROM], home: home)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    func testScriptRecordingsAreSavedAtExitAndReadWriteChangesAreKeptAside() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        try """
        assert(movie.record("\(folder)/lua.rlm"))
        for _ = 1, 30 do joypad.set(1, {right = true}); emu.frameadvance() end
        """.write(toFile: folder + "/record.lua", atomically: true, encoding: .utf8)
        let recorded = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--allow-files", "--script", folder + "/record.lua"], home: home)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertTrue(recorded.stdout.contains("movie    recorded 30 frames to \(folder)/lua.rlm"), recorded.stdout)
        let original = try Data(contentsOf: URL(fileURLWithPath: folder + "/lua.rlm"))
        XCTAssertEqual(try MovieText.read(path: folder + "/lua.rlm").length, 30)

        try """
        for _ = 1, 10 do emu.frameadvance() end
        local state = savestate.create()
        for _ = 1, 10 do emu.frameadvance() end
        assert(state:load())  -- read-write: the movie now ends at frame 10 and records on
        for _ = 1, 5 do joypad.set(1, {left = true}); emu.frameadvance() end
        """.write(toFile: folder + "/rewrite.lua", atomically: true, encoding: .utf8)
        let rewritten = try Fixtures.cli(
            [
                "movie", "play", folder + "/lua.rlm", Fixtures.nesROM, "--read-write", "--headless",
                "--frames", "25", "--allow-files", "--script", folder + "/rewrite.lua",
            ], home: home)
        XCTAssertEqual(rewritten.status, 0, rewritten.stderr)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/lua.rlm")), original, "the played file is untouched")
        let recovered = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: home + "/.local/share/retrolua/data/movies").first)
        XCTAssertTrue(rewritten.stderr.contains("is untouched, the changes are in"), rewritten.stderr)
        let changed = try MovieText.read(path: home + "/.local/share/retrolua/data/movies/" + recovered)
        XCTAssertEqual(changed.length, 15)
        XCTAssertEqual(changed.rerecords, 1)
    }

    func testTheExampleTASIsReproducedByItsScriptAndVerifies() throws {
        let folder = Fixtures.temporaryFolder()
        let checkedIn = Fixtures.root + "/examples/tas/demo.rlm"
        let made = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--headless", "--quiet", "--allow-files", "--script",
                Fixtures.root + "/examples/tas/make_tas.lua",
            ],
            environment: ["RETROLUA_TAS_OUT": folder + "/made.rlm"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.hasPrefix("reached (200, 40) with 5 presses at movie frame 84"), made.stdout)
        func inputLines(_ path: String) throws -> [Substring] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(separator: "\n").drop { $0 != "[input]" }.map { $0 }
        }
        XCTAssertEqual(try inputLines(folder + "/made.rlm"), try inputLines(checkedIn), "the search is deterministic")
        let verified = try Fixtures.cli(["movie", "verify", checkedIn])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        let check = folder + "/check.lua"
        try """
        event.on("movie_end", function()
          print(memory.read_u8(3), memory.read_u8(4), memory.read_u8(5))
        end)
        """.write(toFile: check, atomically: true, encoding: .utf8)
        let played = try Fixtures.cli(["movie", "play", checkedIn, "--script", check, "--quiet"])
        XCTAssertEqual(played.stdout.split(separator: "\n").first, "200\t40\t5", played.stderr)
    }

    func testConvertGivesImportsAnIdentityAndAVerificationLog() throws {
        let folder = Fixtures.temporaryFolder()
        let original = Fixtures.root + "/examples/tas/demo.rlm"
        XCTAssertEqual(try Fixtures.cli(["movie", "convert", original, folder + "/tas.fm2"]).status, 0)
        let imported = try MovieText.read(path: folder + "/tas.fm2")
        XCTAssertTrue(
            imported.contentSHA1.isEmpty && !imported.hasVerification, "an fm2 names no SHA-1 and has no RAM log")
        let converted = try Fixtures.cli([
            "movie", "convert", folder + "/tas.fm2", folder + "/back.rlm", "--rom", Fixtures.nesROM,
            "--core", "nestopia", "--add-verify",
        ])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let back = try MovieText.read(path: folder + "/back.rlm")
        let tas = try MovieText.read(path: original)
        XCTAssertEqual(back.contentSHA1, tas.contentSHA1)
        XCTAssertEqual(back.ramHashes, tas.ramHashes, "the replay's RAM matches the original recording at every frame")
        XCTAssertEqual(try Fixtures.cli(["movie", "verify", folder + "/back.rlm"]).status, 0)
    }

    func testIdentityChecksRefuseOtherContentAndCores() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        let path = folder + "/id.rlm"
        try recordWithCLI(path, frames: 30, home: home)
        let otherCore = try Fixtures.cli(
            ["movie", "play", path, Fixtures.gbROM, "--core", "gambatte", "--headless"], home: home)
        XCTAssertEqual(otherCore.status, 1)
        XCTAssertTrue(
            otherCore.stderr.contains("the movie was recorded with Nestopia, this is Gambatte")
                && otherCore.stderr.contains("other content") && otherCore.stderr.contains("force"), otherCore.stderr)
        let forced = try Fixtures.cli(
            ["movie", "play", path, Fixtures.gbROM, "--core", "gambatte", "--headless", "--force"], home: home)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stderr.contains("warning: movie: the movie was recorded with Nestopia"), forced.stderr)
    }

    func testBadMoviesGetClearErrorsAndFilesStayIntact() throws {
        let folder = Fixtures.temporaryFolder(), home = Fixtures.temporaryFolder()
        let path = folder + "/ok.rlm"
        try recordWithCLI(path, frames: 30, home: home)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: original, as: UTF8.self)

        func expectFailure(
            _ name: String, _ contents: String, _ message: String, file: StaticString = #filePath, line: UInt = #line
        ) throws {
            let bad = folder + "/" + name
            try contents.write(toFile: bad, atomically: true, encoding: .utf8)
            let result = try Fixtures.cli(["movie", "play", bad, Fixtures.nesROM, "--headless"], home: home)
            XCTAssertEqual(result.status, 1, file: file, line: line)
            XCTAssertTrue(result.stderr.contains(message), "\(result.stderr) lacks \(message)", file: file, line: line)
            XCTAssertEqual(
                try String(contentsOfFile: bad, encoding: .utf8), contents, "the bad file is left as it was",
                file: file, line: line)
        }
        try expectFailure("cut.rlm", String(text.prefix(text.count * 2 / 3)), "truncated movie")
        try expectFailure(
            "button.rlm", text.replacingOccurrences(of: "buttons up down", with: "buttons up jump"),
            "unknown button 'jump'")
        try expectFailure("line.rlm", text.replacingOccurrences(of: "..|", with: "x.|"), "unknown command 'x'")
        try expectFailure("short.rlm", text.replacingOccurrences(of: "frames 30", with: "frames 31"), "truncated movie")
        try expectFailure(
            "rom.rlm", text.replacingOccurrences(of: "content-sha1 ", with: "content-sha1 0"), "other content")
        try expectFailure("junk.rlm", "not a movie at all\n", "not a Retrolua movie")

        // Recording never overwrites an existing file.
        let again = try Fixtures.cli(
            ["movie", "record", path, Fixtures.nesROM, "--headless", "--frames", "5"], home: home)
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("exists; movies are never overwritten"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        let convert = try Fixtures.cli(["movie", "convert", path, path], home: home)
        XCTAssertEqual(convert.status, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
    }
}
