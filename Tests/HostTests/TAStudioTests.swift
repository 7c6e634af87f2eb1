@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Support

/// The TAS editor's model on the real NES core: seeking through the greenzone lands on exactly the
/// state a fresh playback has at that frame; edits replay as a fresh playback of the edited movie;
/// undo and redo give the movie back; markers are saved; the default editor answers mouse and keys.
final class TAStudioTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private struct Point: Equatable {
        let ram: [UInt8]
        let lag: Int
    }

    private func point(_ harness: ScriptHarness) -> Point {
        Point(ram: harness.session.systemRAM(), lag: harness.session.lagCount)
    }

    private static func input(_ frame: Int) -> InputState {
        var input = InputState()
        input.set(.right, frame % 7 < 4)
        input.set(.a, frame % 45 < 6)
        input.set(.start, frame % 97 == 0)
        return input
    }

    /// Records `frames` frames into a movie and plays it back read-write from its start.
    private func recordAndPlay(_ harness: ScriptHarness, frames: Int) throws -> String {
        try harness.recordAndPlay("tas.rlm", frames: frames, input: Self.input)
    }

    /// Plays the movie at its current state from the start and returns the state before every frame.
    private func freshPlayback(_ harness: ScriptHarness) throws -> [Point] {
        let emulator = harness.host.emulator
        let movie = try XCTUnwrap(emulator.movie.movie)
        var options = MovieEngine.PlayOptions()
        options.readOnly = false
        try emulator.playMovie(movie, path: nil, options: options)
        var points = [point(harness)]
        for _ in 0..<movie.length {
            emulator.runFrame()
            points.append(point(harness))
        }
        return points
    }

    func testSeekingAtRandomFramesLandsOnTheStateOfAFreshPlayback() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        _ = try recordAndPlay(harness, frames: 900)
        let emulator = harness.host.emulator
        _ = try freshPlayback(harness)
        XCTAssertEqual(emulator.movie.greenzone.count, 15, "without the editor shown, a state every 64 frames")
        emulator.movie.editorEngaged = true
        let fresh = try freshPlayback(harness)
        XCTAssertGreaterThan(emulator.movie.greenzone.count, 200, "with the editor shown, every frame near, fewer far")
        var random = TASRandom(seed: 17)
        for _ in 0..<40 {
            let target = Int.random(in: 0...900, using: &random)
            try emulator.seekMovie(to: target)
            XCTAssertEqual(emulator.movie.frame, target)
            XCTAssertTrue(point(harness) == fresh[target], "seek to \(target) differs from a fresh playback")
        }
        // The greenzone's spacing: every frame near the last seek, thinner far away, frame 0 always.
        XCTAssertTrue(emulator.movie.greenzone.contains(0))
        XCTAssertTrue(emulator.movie.inGreenzone(10))
        try emulator.seekMovie(to: 900)
        XCTAssertEqual(emulator.movie.mode, .record, "read-write at the end records")
    }

    func testAnEditedMovieReplaysAsAFreshPlaybackOfTheEditedMovie() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        _ = try recordAndPlay(harness, frames: 700)
        let emulator = harness.host.emulator
        try emulator.seekMovie(to: 650)
        var changed: [Int] = []
        emulator.listen { if case .movieChanged(let frame) = $0 { changed.append(frame) } }
        // An edit 600 frames back: the greenzone after it goes; auto-restore seeks back to 650.
        let first = try emulator.editMovie { engine throws(MovieError) in
            try engine.setButtons(50..<80, port: 0, [(.left, true), (.right, false)])
        }
        XCTAssertEqual(first, 50)
        XCTAssertEqual(changed, [50])
        XCTAssertFalse(emulator.movie.greenzone.frames.contains { $0 > 50 })
        XCTAssertNil(emulator.movie.lagged(60), "not run since the edit")
        try emulator.seekMovie(to: 650)
        var edited: [Int: Point] = [650: point(harness)]
        for frame in 651...700 {
            emulator.runFrame()
            edited[frame] = point(harness)
        }
        for frame in stride(from: 0, through: 649, by: 13) {
            try emulator.seekMovie(to: frame)
            edited[frame] = point(harness)
        }
        XCTAssertNotNil(emulator.movie.lagged(60))
        let fresh = try freshPlayback(harness)
        for (frame, seen) in edited.sorted(by: { $0.key < $1.key }) {
            XCTAssertTrue(seen == fresh[frame], "frame \(frame) differs from a fresh playback of the edited movie")
        }
    }

    func testUndoAndRedoGiveBackEveryVersionOfTheMovie() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        _ = try recordAndPlay(harness, frames: 200)
        let emulator = harness.host.emulator
        var versions: [(InputLog, [Int: String])] = []
        func keep() {
            versions.append((emulator.movie.movie!.log, emulator.movie.movie!.markers))
        }
        keep()
        func step(_ body: (MovieEngine) throws(MovieError) -> Int?) throws {
            XCTAssertNotNil(try emulator.editMovie(body))
            keep()
        }
        try step { engine throws(MovieError) in try engine.setButtons(10..<20, port: 0, [(.b, true)]) }
        try step { engine throws(MovieError) in try engine.insertFrames(at: 5, count: 3) }
        try step { engine throws(MovieError) in try engine.insertFrames(at: 40, count: 4, copies: 30..<32) }
        try step { engine throws(MovieError) in try engine.deleteFrames(0..<2) }
        try step { engine throws(MovieError) in try engine.clearFrames(100..<150) }
        try step { engine throws(MovieError) in try engine.setMarker(77, note: "jump") }
        try step { engine throws(MovieError) in try engine.setButtons(200..<205, port: 1, [(.a, true)]) }
        XCTAssertEqual(emulator.movie.movie!.markers, [77: "jump"])
        for index in stride(from: versions.count - 2, through: 0, by: -1) {
            XCTAssertNotNil(try emulator.editMovie { $0.undo() })
            XCTAssertEqual(emulator.movie.movie!.log, versions[index].0, "undo back to version \(index)")
            XCTAssertEqual(emulator.movie.movie!.markers, versions[index].1)
        }
        XCTAssertNil(try emulator.editMovie { $0.undo() }, "nothing left to undo")
        for index in 1..<versions.count {
            XCTAssertNotNil(try emulator.editMovie { $0.undo(redo: true) })
            XCTAssertEqual(emulator.movie.movie!.log, versions[index].0, "redo to version \(index)")
        }
        // A group is one step; a cancelled group leaves nothing.
        try emulator.movie.beginEdit("pair")
        _ = try emulator.editMovie { engine throws(MovieError) in try engine.setButtons(1..<2, port: 0, [(.x, true)]) }
        _ = try emulator.editMovie { engine throws(MovieError) in try engine.deleteFrames(3..<4) }
        XCTAssertEqual(emulator.movie.endEdit(), 1)
        _ = try emulator.editMovie { $0.undo() }
        XCTAssertEqual(emulator.movie.movie!.log, versions.last!.0, "the group undoes as one step")
        try emulator.movie.beginEdit("dropped")
        _ = try emulator.editMovie { engine throws(MovieError) in try engine.insertFrames(at: 0, count: 9) }
        XCTAssertNil(emulator.movie.endEdit(cancel: true))
        XCTAssertEqual(emulator.movie.movie!.log, versions.last!.0)
    }

    func testMarkersAreSavedWithTheMovieAndBadOnesAreRefused() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let path = try recordAndPlay(harness, frames: 120)
        try harness.load(
            """
            assert(tastudio.set_marker(10, "boss\\nfight") == 10)
            assert(tastudio.set_marker(0))
            assert(tastudio.set_marker(90, "end"))
            assert(tastudio.remove_marker(90) == 90)
            assert(tastudio.remove_marker(90) == false)
            assert(tastudio.insert(5, 2) == 5)
            assert(movie.save())
            print(#tastudio.markers(), tastudio.marker(12))
            print(select(2, tastudio.set_marker(500, "x")))
            print(pcall(tastudio.set_marker, -1, "x"))
            """)
        harness.run(1)
        XCTAssertEqual(
            harness.lines,
            [
                "2\tboss fight", "frame 500 is outside the movie (0…122)\tmovie",
                "false\ttastudio.set_marker: bad argument #1 'frame' (must be 0 or more)",
            ])
        let saved = try MovieText.read(path: path)
        XCTAssertEqual(saved.markers, [0: "", 12: "boss fight"])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for bad in ["marker x note", "marker -3 note", "marker", "marker 9999999999999 far"] {
            let broken = harness.folder + "/bad.rlm"
            try text.replacingOccurrences(of: "marker 0 \n", with: bad + "\n").write(
                toFile: broken, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try MovieText.read(path: broken)) { error in
                XCTAssertTrue("\(error)".contains("'marker' should be FRAME NOTE"), "\(error)")
            }
        }
    }
}

extension TAStudioTests {
    func testBizHawkAndFCEUXEditorCallsMapOntoTheSameMovie() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        _ = try recordAndPlay(harness, frames: 100)
        let emulator = harness.host.emulator
        emulator.movie.editorEngaged = true
        try emulator.seekMovie(to: 60)
        let bizhawk = harness.folder + "/bizhawk.lua"
        try """
        tastudio.submitinputchange(20, "P1 A", true)
        tastudio.submitinsertframes(30, 2)
        tastudio.applyinputchanges()
        tastudio.setmarker(25, "here")
        print("biz", tastudio.engaged(), tastudio.getmarker(25), tastudio.islag(10),
          tastudio.find_marker_on_or_before(40), #tastudio.get_frames_with_markers())
        """.write(toFile: bizhawk, atomically: true, encoding: .utf8)
        try harness.host.load(scriptAt: bizhawk, compat: "bizhawk")
        XCTAssertTrue(emulator.movie.input(at: 20)!.0.isPressed(.a, port: 0))
        XCTAssertEqual(emulator.movie.movie!.length, 102)
        XCTAssertEqual(emulator.movie.frame, 60, "applying an edit before the current frame comes back to it")
        let fceux = harness.folder + "/fceux.lua"
        try """
        taseditor.submitinputchange(21, 1, 1 + 128)
        print("fceux", taseditor.applyinputchanges("pair"), taseditor.getinput(21, 1), taseditor.getmarker(30),
          taseditor.getnote(1), taseditor.markedframe(25))
        taseditor.setplayback(5)
        """.write(toFile: fceux, atomically: true, encoding: .utf8)
        try harness.host.load(scriptAt: fceux, compat: "fceux")
        XCTAssertEqual(harness.lines, ["biz\ttrue\there\tfalse\t25\t1", "fceux\t21\t129\t1\there\ttrue"])
        XCTAssertEqual(emulator.movie.frame, 5)
        XCTAssertTrue(emulator.movie.input(at: 21)!.0.isPressed(.right, port: 0))
    }
}

extension TAStudioTests {
    func testBadArgumentsAreNamedAndRefusalsComeBackAsNilAndAMessage() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(
            """
            print(tastudio.seek(10))
            print(tastudio.set_button(0, 1, "a", true))
            print(tastudio.undo(), tastudio.get_mask(0), tastudio.islag(0), tastudio.greenzone(0), #tastudio.markers())
            """, name: "idle.lua")
        harness.run(1)
        _ = try recordAndPlay(harness, frames: 30)
        try harness.load(
            """
            local function try(...) print(select(2, pcall(...))) end
            try(tastudio.set_button, 0, 9, "a", true)
            try(tastudio.set_button, 0, 1, "a", "yes")
            try(tastudio.insert, 0, 0)
            try(tastudio.insert, 0, 10 ^ 12 // 1)
            try(tastudio.set_input, 0, 1, 70000)
            try(tastudio.set_selection, { 1, "x" })
            try(tastudio.greenzone_info, { memory_mb = 0 })
            try(tastudio.seek, "5")
            try(tastudio.insert, math.maxinteger, 2)
            print(tastudio.seek(31))
            print(tastudio.delete(29, 5))
            print(tastudio.insert(31, 1))
            print(tastudio.begin(), tastudio.begin())
            print(tastudio.apply(), tastudio.history().gathering)
            """, name: "bad.lua")
        XCTAssertEqual(
            harness.lines,
            [
                "nil\tno movie is active\tmovie", "nil\tno movie is active\tmovie", "false\tnil\tnil\tfalse\t0",
                "tastudio.set_button: bad argument #2 'port' (must be 1…8)",
                "tastudio.set_button: bad argument #4 'pressed' (boolean expected, got string)",
                "tastudio.insert: bad argument #2 'count' (must be 1…5184000)",
                "tastudio.insert: bad argument #2 'count' (must be 1…5184000)",
                "tastudio.set_input: bad argument #3 'buttons' (a mask is 0…65535)",
                "tastudio.set_selection: bad argument #1 'frames' (item 2 is not a frame number)",
                "tastudio.greenzone_info: bad field 'memory_mb' in argument #1 (must be 1…65536)",
                "tastudio.seek: bad argument #1 'frame' (integer expected, got string)",
                "tastudio.insert: bad argument #1 'frame' (must be at most 1099511627776)",
                "nil\tframe 31 is outside the movie (0…30)\tmovie",
                "nil\tframes 29…33 are outside the movie (30 frames)\tmovie",
                "nil\tframe 31 is outside the movie (0…30)\tmovie",
                "true\tnil\tchanges are already being gathered (apply them first)",
                "false\tfalse",
            ])
    }
}

/// A small deterministic generator (splitmix64), so a failing frame can be found again.
private struct TASRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
