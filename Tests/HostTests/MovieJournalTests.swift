@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro

/// Recordings journal as they go (`MOVIE.rlm.journal`) and recover after a crash; the recording's
/// folder is checked when it starts; battery saves reach the disk once a second of game time.
final class MovieJournalTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private static func pattern(_ frame: Int) -> InputState {
        var input = InputState()
        input.set(.right, frame % 3 == 0)
        input.set(.a, frame % 7 == 0)
        input.set(.l3, frame == 5)  // a button the game does not declare: the journal keeps it too
        return input
    }

    /// Records `frames` frames to a new movie in a fresh folder; the harness stays open (a "crash").
    private func recording(
        _ frames: Int, verify: Bool = false, start: Int = 0
    ) throws -> (ScriptHarness, String) {
        let path = Fixtures.temporaryFolder() + "/take.rlm"
        let harness = try ScriptHarness()
        var options = MovieEngine.RecordOptions()
        options.verify = verify
        try harness.host.emulator.movie.record(to: path, options: options)
        run(harness, frames, from: start)
        return (harness, path)
    }

    private func run(_ harness: ScriptHarness, _ frames: Int, from start: Int = 0) {
        for frame in start..<start + frames {
            harness.host.emulator.playerInput = Self.pattern(frame)
            harness.host.emulator.runFrame()
        }
    }

    private func journal(_ path: String) -> String { MovieJournal.path(for: path) }

    func testTheJournalStartsWithTheRecordingAndGoesWhenTheMovieIsSaved() throws {
        let (harness, path) = try recording(0)
        let text = try String(contentsOfFile: journal(path), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("retrolua-movie-journal 1\nretrolua-movie 1\n"), text)
        XCTAssertTrue(text.hasSuffix("[end]\n"), "the header alone, durably, before any frame")
        run(harness, 10)
        try harness.host.emulator.movie.stop()
        XCTAssertEqual(try MovieText.read(path: path).length, 10)
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal(path)))
        harness.close()
    }

    func testAJournalRecoversTheRecordingLosingAtMostTheLastSecond() throws {
        let (harness, path) = try recording(150)
        defer { harness.close() }
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertNil(recovered.note)
        XCTAssertEqual(recovered.movie.length, 120, "appended every 60 frames (a second of the NES's time)")
        let engine = harness.host.emulator.movie
        XCTAssertEqual(recovered.movie.log.prefix(120), engine.movie!.log.prefix(120))
        XCTAssertEqual(recovered.movie.guid, engine.movie!.guid)
        XCTAssertTrue(recovered.movie.buttons.contains(.l3), "the pressed undeclared button is listed")
        XCTAssertEqual(recovered.movie.log.input(at: 5).buttons[0], Self.pattern(5).buttons[0])
    }

    func testATruncatedJournalRecoversUpToItsLastWholeLine() throws {
        let (harness, path) = try recording(125)
        harness.close()
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: journal(path)))
        bytes.removeLast(4)  // the kill came in the middle of the last frame's line
        try bytes.write(to: URL(fileURLWithPath: journal(path)))
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(recovered.movie.length, 119)
        XCTAssertTrue(recovered.note?.contains("is torn") == true, recovered.note ?? "")
    }

    func testARerecordIsJournaledAsATruncationAndTheNewTimelineRecovers() throws {
        let (harness, path) = try recording(70)
        let emulator = harness.host.emulator
        let state = try emulator.encodeState()  // movie frame 70
        run(harness, 80, from: 70)
        try emulator.loadState(state, trusted: true)  // read-write: the movie is cut back to frame 70
        run(harness, 5, from: 1000)  // a different take from there
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(recovered.movie.rerecords, 1)
        XCTAssertEqual(recovered.movie.length, 70, "the truncation was journaled at once; the new frames not yet")
        XCTAssertEqual(recovered.movie.log.prefix(70), emulator.movie.movie!.log.prefix(70))
        let text = try String(contentsOfFile: journal(path), encoding: .utf8)
        XCTAssertTrue(text.contains("\nt 70\nr 1\n"), "truncation and rerecord count journaled")
        run(harness, 55, from: 1005)  // a second after the rerecord: appended
        let later = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(later.movie.length, 130)
        XCTAssertEqual(later.movie.log.prefix(130), emulator.movie.movie!.log.prefix(130))
        XCTAssertEqual(later.movie.log.input(at: 70).buttons[0], Self.pattern(1000).buttons[0])
        harness.close()
    }

    func testVerificationHashesAreJournaled() throws {
        let (harness, path) = try recording(60, verify: true)
        defer { harness.close() }
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(recovered.movie.ramHashes, harness.host.emulator.movie.movie!.ramHashes)
        XCTAssertEqual(recovered.movie.ramHashes.count, 60)
    }

    func testADamagedLineIsSkippedItsFrameLeftEmptyAndTheRestRecovered() throws {
        let (harness, path) = try recording(120)
        let recorded = harness.host.emulator.movie.movie!
        harness.close()
        var text = try String(contentsOfFile: journal(path), encoding: .utf8)
        text = text.replacingOccurrences(of: "\nf 70 ", with: "\nf 70 zz")
        try text.write(toFile: journal(path), atomically: true, encoding: .utf8)
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(recovered.movie.length, 120, "read past the damaged line")
        XCTAssertFalse(recovered.exact)
        XCTAssertEqual(recovered.problems.count, 1, recovered.problems.description)
        XCTAssertTrue(recovered.note?.contains("frame 70: the record is not") == true, recovered.note ?? "")
        XCTAssertEqual(recovered.emptyFrames, [70...70])
        XCTAssertEqual(recovered.movie.log.input(at: 70).buttons[0], 0, "the lost frame is left empty")
        XCTAssertEqual(recovered.movie.log.prefix(70), recorded.log.prefix(70))
        for frame in 71..<120 {
            XCTAssertEqual(recovered.movie.log.input(at: frame).buttons[0], recorded.log.input(at: frame).buttons[0])
        }
    }

    /// A line whose newline was lost (two frames on one line), garbage bytes, a damaged truncation: each
    /// is skipped and the journal is read on; a damaged frame number never moves frames.
    func testRecoveryResyncsPastMergedGarbageAndDamagedTruncationLines() throws {
        let (harness, path) = try recording(240)
        let recorded = harness.host.emulator.movie.movie!
        harness.close()
        var text = try String(contentsOfFile: journal(path), encoding: .utf8)
        text = text.replacingOccurrences(of: "\nf 10 ", with: "\nf 10 \u{1}\u{fffd}")  // garbage in the record
        let merged = try XCTUnwrap(text.range(of: "\nf 101 "))
        text.replaceSubrange(merged.lowerBound..<text.index(after: merged.lowerBound), with: " ")  // 100, 101 merged
        text = text.replacingOccurrences(of: "\nf 150 ", with: "\nf 1500 ")  // a damaged frame number
        text += "t 2x0\nf 200 " + String(repeating: "0", count: recorded.log.stride * 2) + "\n"
        try text.write(toFile: journal(path), atomically: true, encoding: .utf8)
        let recovered = try MovieJournal.recover(path: journal(path))
        XCTAssertEqual(recovered.problems.count, 4, recovered.problems.joined(separator: "\n"))
        XCTAssertEqual(recovered.emptyFrames, [10...10, 100...101, 150...150])
        XCTAssertEqual(recovered.movie.length, 201, "the lost truncation is implied by the frame line after it")
        for frame in [0, 9, 11, 99, 102, 149, 151, 199] {
            XCTAssertEqual(
                recovered.movie.log.input(at: frame).buttons[0], recorded.log.input(at: frame).buttons[0],
                "frame \(frame)")
        }
        XCTAssertEqual(recovered.movie.log.input(at: 200).buttons[0], 0)
    }

    func testJournalLinesThatDoNotFitAreRefusedNotApplied() throws {
        let (harness, path) = try recording(60)
        harness.close()
        for (bad, expected) in [
            ("f 999 0000000000", "frame 999 after the end (60)"), ("t 61", "truncation to frame 61 past the end"),
            ("x 1", "not a journal line"), ("f -1 00", "not a journal line"), ("r", "not a journal line"),
        ] {
            let damaged = journal(path) + ".\(expected.count)"
            try (String(contentsOfFile: journal(path), encoding: .utf8) + bad + "\n").write(
                toFile: damaged, atomically: true, encoding: .utf8)
            let recovered = try MovieJournal.recover(path: damaged)
            XCTAssertEqual(recovered.movie.length, 60, bad)
            XCTAssertTrue(recovered.note?.contains(expected) == true, "\(bad): \(recovered.note ?? "")")
        }
    }

    func testWhatIsNotAJournalOrHasNoWholeHeaderIsAnError() throws {
        let folder = Fixtures.temporaryFolder()
        try "retrolua-movie 1\n".write(toFile: folder + "/a.journal", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MovieJournal.recover(path: folder + "/a.journal")) {
            XCTAssertTrue("\($0)".contains("not a Retrolua movie journal"), "\($0)")
        }
        try "retrolua-movie-journal 1\nretrolua-movie 1\nguid x\n".write(
            toFile: folder + "/b.journal", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MovieJournal.recover(path: folder + "/b.journal")) {
            XCTAssertTrue("\($0)".contains("header is incomplete"), "\($0)")
        }
        XCTAssertThrowsError(try MovieJournal.recover(path: folder + "/none.journal")) {
            XCTAssertTrue("\($0)".contains("no such movie"), "\($0)")
        }
    }

    func testMovieRecoverWritesTheMovieAndRemovesTheJournal() throws {
        let (harness, path) = try recording(130)
        harness.close()
        let result = try Fixtures.cli(["movie", "recover", journal(path)])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("recovered 120 frames to \(path)"), result.stdout)
        XCTAssertEqual(try MovieText.read(path: path).length, 120)
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal(path)))
    }

    /// A journal damaged at random (bytes flipped, dropped, doubled, newlines lost or added) never traps:
    /// recovery keeps every frame line that reads, and says why any line did not.
    func testRandomlyDamagedJournalsRecoverWithoutTrapping() throws {
        let (harness, path) = try recording(240)
        harness.close()
        let original = try XCTUnwrap(FileManager.default.contents(atPath: journal(path)))
        let headerEnd = try XCTUnwrap(original.range(of: Data("\n[end]\n".utf8))).upperBound
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let damaged = journal(path) + ".damaged"
        for round in 0..<200 {
            var bytes = [UInt8](original)
            for _ in 0...next(6) {
                let at = headerEnd + next(bytes.count - headerEnd)
                switch next(5) {
                case 0: bytes[at] = UInt8(next(256))
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(bytes[at], at: at)
                case 3: bytes[at] = UInt8(ascii: "\n")
                default: if let newline = bytes[at...].firstIndex(of: 10) { bytes.remove(at: newline) }
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let recovered = try MovieJournal.recover(path: damaged)
            XCTAssertLessThanOrEqual(recovered.movie.length, 240 + 8, "round \(round)")
            if bytes != [UInt8](original) && recovered.exact {
                // A change can still read as lines the journal writes (a digit for a digit): never more frames.
                XCTAssertLessThanOrEqual(recovered.movie.length, 240, "round \(round)")
            }
            XCTAssertEqual(recovered.exact, recovered.problems.isEmpty)
        }
    }

    /// The fuzzer's seeds (Fuzz/corpus/journal): a journal left by kill -9 and one
    /// with a rerecord and damaged lines.
    func testTheFuzzSeedJournalsRecoverWithTheirDamageNamed() throws {
        let folder = Fixtures.root + "/Fuzz/corpus/journal/"
        let killed = try MovieJournal.recover(path: folder + "killed.rlm.journal")
        XCTAssertEqual(killed.movie.length, 180)
        XCTAssertTrue(killed.exact, "the kill came between two appends")
        let damaged = try MovieJournal.recover(path: folder + "rerecord-damaged.rlm.journal")
        XCTAssertEqual(damaged.movie.length, 173)
        XCTAssertEqual(damaged.movie.rerecords, 1)
        XCTAssertEqual(damaged.emptyFrames, [171...171])
        XCTAssertEqual(damaged.movie.ramHashes.count, 0, "the hashes stop at the first frame without one")
        XCTAssertEqual(damaged.problems.count, 2, damaged.problems.joined(separator: "\n"))
    }

    /// The journal stays unless all of it was recovered, and a recovery that lost anything says so and fails.
    func testMovieRecoverKeepsADamagedJournalAndFailsNamingWhatWasLost() throws {
        let (harness, path) = try recording(300)
        harness.close()
        var text = try String(contentsOfFile: journal(path), encoding: .utf8)
        text = text.replacingOccurrences(of: "\nf 9 ", with: "\n\u{0}\u{0}9 ")
        try text.write(toFile: journal(path), atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["movie", "recover", journal(path)])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.contains("recovered 300 frames to \(path)"), result.stdout)
        XCTAssertEqual(try MovieText.read(path: path).length, 300, "every readable frame")
        XCTAssertTrue(result.stderr.contains("1 of "), result.stderr)
        XCTAssertTrue(result.stderr.contains("journal lines could not be read"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not a journal line"), result.stderr)
        XCTAssertTrue(result.stderr.contains("frame 9"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the journal is kept"), result.stderr)
        XCTAssertEqual(try String(contentsOfFile: journal(path), encoding: .utf8), text, "the journal is untouched")
    }

    func testMovieRecoverKeepsATornJournal() throws {
        let (harness, path) = try recording(125)
        harness.close()
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: journal(path)))
        bytes.removeLast(4)
        try bytes.write(to: URL(fileURLWithPath: journal(path)))
        let result = try Fixtures.cli(["movie", "recover", journal(path)])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("is torn"), result.stderr)
        XCTAssertEqual(try MovieText.read(path: path).length, 119)
        XCTAssertEqual(FileManager.default.contents(atPath: journal(path)), bytes, "kept as it was")
    }

    func testMovieRecoverNeverOverwritesAMovie() throws {
        let (harness, path) = try recording(61)
        harness.close()
        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["movie", "recover", journal(path)])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("exists; movies are never overwritten"), result.stderr)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "precious")
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal(path)), "kept until recovered")
        let elsewhere = path + ".other.rlm"
        XCTAssertEqual(try Fixtures.cli(["movie", "recover", journal(path), elsewhere]).status, 0)
        XCTAssertEqual(try MovieText.read(path: elsewhere).length, 60)
    }

    func testARecordingIntoAnUnusableFolderIsRefusedBeforeAnyFrame() throws {
        let folder = Fixtures.temporaryFolder()
        try "a file".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--frames", "600", "--record-movie", folder + "/file/take.rlm"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.contains("cannot record to \(folder)/file/take.rlm: \(folder)/file is not a folder"),
            result.stderr)
        XCTAssertFalse(result.stdout.contains("frames "), "nothing ran")
    }

    func testARecordingIsRefusedWhileAnUnrecoveredJournalIsThere() throws {
        let (harness, path) = try recording(0)
        harness.close()
        let again = try ScriptHarness()
        defer { again.close() }
        XCTAssertThrowsError(try again.host.emulator.movie.record(to: path, options: .init())) {
            XCTAssertTrue("\($0)".contains("retrolua movie recover \(journal(path))"), "\($0)")
        }
    }

    // MARK: Save RAM

    private func bootCount(_ file: String) -> UInt8? { FileManager.default.contents(atPath: file)?.first }

    func testChangedSaveRAMReachesTheDiskAfterASecondOfGameTime() throws {
        let folder = Fixtures.temporaryFolder()
        let srm = folder + "/saves/" + Fixtures.srm()
        let session = try Fixtures.session(folder: folder)
        session.run(59)
        XCTAssertNil(bootCount(srm), "not before a second of game time")
        session.run(1)
        XCTAssertEqual(bootCount(srm), 1, "the game's change is on disk without a clean exit")
        session.core.memoryRegion(.saveRAM)!.pointer.storeBytes(of: 42, as: UInt8.self)
        session.run(60)
        XCTAssertEqual(bootCount(srm), 42)
        session.core.close()  // a crash: no close(), the disk has the last second's save
    }

    func testUnchangedSaveRAMIsNotRewritten() throws {
        let folder = Fixtures.temporaryFolder()
        let srm = folder + "/saves/" + Fixtures.srm()
        let session = try Fixtures.session(folder: folder)
        session.run(60)
        try FileManager.default.removeItem(atPath: srm)
        session.run(180)
        XCTAssertNil(bootCount(srm), "compared, found equal, not written")
        try session.close()
        XCTAssertEqual(bootCount(srm), 1, "close always writes")
    }

    func testAMovieFromPowerOnStopsThePeriodicSaveRAMWrites() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let srm = harness.session.paths.saves + "/" + Fixtures.srm()
        try harness.host.emulator.movie.record(to: Fixtures.temporaryFolder() + "/m.rlm", options: .init())
        harness.run(120)
        XCTAssertNil(bootCount(srm), "the movie's save RAM is not the player's")
    }
}
