@testable import Emulation
import Foundation
import Libretro
import XCTest

/// `kill -9` at random moments while a run keeps saving: data files, savestate slots, a `.cht` and a
/// movie recording. After every kill each file is whole (the old or the new version), no temporary
/// file beyond one per file is left, and the recording's journal recovers to a movie that lost at
/// most its last second.
final class KillLoopTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private static let script = """
        local dir, take = os.getenv("KILL_DIR"), os.getenv("KILL_TAKE")
        assert(movie.record(dir .. "/take" .. take .. ".rlm", { from = "power" }))
        local i, slot_saved = 0, false
        while true do
          local f = movie.frame()
          joypad.set(1, { right = f % 3 == 0, a = f % 7 == 0, down = f % 11 == 0 })
          emu.frameadvance()
          i = i + 1
          local body = string.rep(string.char(65 + i % 26), 500 + (i % 7) * 400)
          if i % 2 == 0 then
            assert(emu.save_data("blob.txt", "BEGIN " .. i .. "\\n" .. body .. "\\nEND " .. i .. "\\n"))
          end
          if i % 5 == 0 then assert(savestate.save(1)); slot_saved = true end
          if i % 7 == 0 then
            cheats.clear()
            assert(cheats.add_code("0005:0" .. (i % 10), { desc = "take " .. take .. " step " .. i }))
            assert(cheats.save(dir .. "/game.cht"))
          end
          if i % 40 == 0 and slot_saved then assert(savestate.load(1)) end  -- a rerecord
          if i % 3 == 0 then assert(emu.save_data("progress.txt", tostring(movie.frame()))) end
        end
        """

    func testFiftyKillsNeverLeaveABrokenFile() throws {
        let home = Fixtures.temporaryFolder(), dir = home + "/work"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let script = home + "/durable.lua"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let data = home + "/.local/share/retrolua/data", states = home + "/.local/share/retrolua/states/demo"
        var generator = SystemRandomNumberGenerator()
        var recoveredFrames = 0, rerecords = 0
        for take in 1...50 {
            let child = try ChildProcess(
                // The script keeps its files outside the data folder: it needs the widened file profile.
                ["run", Fixtures.nesROM, "--headless", "--allow-files", "--script", script], home: home,
                environment: ["KILL_DIR": dir, "KILL_TAKE": String(take)])
            let movie = dir + "/take\(take).rlm"
            XCTAssertTrue(child.waitUntil { FileManager.default.fileExists(atPath: MovieJournal.path(for: movie)) })
            usleep(UInt32.random(in: 20_000...700_000, using: &generator))
            child.signal(SIGKILL)
            XCTAssertEqual(child.finish().status, -SIGKILL)

            try checkBlob(data + "/blob.txt", take: take)
            try checkState(states + "/slot1.state", take: take)
            try checkCheats(dir + "/game.cht", take: take)
            let progress = (try? String(contentsOfFile: data + "/progress.txt", encoding: .utf8)).flatMap { Int($0) }
            let recovery = try MovieJournal.recover(path: MovieJournal.path(for: movie))
            let length = recovery.movie.length
            if let progress {
                // The journal is appended every 60 frames (a second of the NES's time).
                XCTAssertGreaterThanOrEqual(length, progress - 60, "take \(take): more than a second lost")
            }
            for frame in 0..<length {
                let buttons = recovery.movie.log.input(at: frame).buttons[0]
                var expected = InputState()
                expected.set(.right, frame % 3 == 0)
                expected.set(.a, frame % 7 == 0)
                expected.set(.down, frame % 11 == 0)
                XCTAssertEqual(buttons, expected.buttons[0], "take \(take) frame \(frame)")
                if buttons != expected.buttons[0] { break }
            }
            recoveredFrames += length
            rerecords += recovery.movie.rerecords
            try checkLitter([data, states, dir], take: take)
            try? FileManager.default.removeItem(atPath: data + "/progress.txt")
        }
        XCTAssertGreaterThan(recoveredFrames, 0, "the kills came while recordings ran")
        print("kill loop: 50 kills, \(recoveredFrames) frames recovered, \(rerecords) rerecords")
    }

    private func checkBlob(_ path: String, take: Int) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 4, "take \(take): blob.txt is whole")
        guard lines.count == 4, let i = Int(lines[0].dropFirst(6)) else {
            return XCTFail("take \(take): \(text.prefix(40))")
        }
        XCTAssertEqual(lines[2], "END \(i)", "take \(take)")
        XCTAssertEqual(lines[1].count, 500 + (i % 7) * 400, "take \(take)")
    }

    private func checkState(_ path: String, take: Int) throws {
        guard let bytes = FileManager.default.contents(atPath: path) else { return }
        XCTAssertNoThrow(
            try [UInt8](bytes).withUnsafeBytes { raw in try StateContainer.decode(raw) }, "take \(take): slot 1 whole")
    }

    private func checkCheats(_ path: String, take: Int) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let cheats = try CheatFile.parse(text, name: path)
        XCTAssertEqual(cheats.count, 1, "take \(take): game.cht whole")
    }

    /// At most one temporary file per file after a kill (stale ones from earlier kills are cleared
    /// here, as the next run's own cleanup would).
    private func checkLitter(_ folders: [String], take: Int) throws {
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            var temporaries: [String: Int] = [:]
            for name in names where name.contains(".tmp") {
                let base = String(name[..<name.range(of: ".tmp")!.lowerBound])
                temporaries[base, default: 0] += 1
                try FileManager.default.removeItem(atPath: folder + "/" + name)
            }
            for (base, count) in temporaries {
                XCTAssertLessThanOrEqual(count, 1, "take \(take): \(folder)/\(base) left \(count) temporary files")
            }
        }
    }
}
