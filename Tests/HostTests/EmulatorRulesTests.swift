@testable import Emulation
import Foundation
import Libretro
import Support
import XCTest

/// Every rule, tested once, against the `Emulator` itself (no Lua, no socket): hardcore mode, the
/// movie's rules, phases, memory bounds, and the events the operations emit. The doors' tests
/// (`DoorTranslationTests`) only check that each door turns these into its own words.
final class EmulatorRulesTests: XCTestCase {
    private var folder = ""
    private var session: Session!
    private var emulator: Emulator!
    private var events: [EmulatorEvent] = []

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        folder = Fixtures.temporaryFolder()
        session = try Fixtures.session(folder: folder)
        emulator = Emulator(session: session)
        emulator.listen { [unowned self] in events.append($0) }
        for _ in 0..<10 { emulator.runFrame() }
    }

    override func tearDownWithError() throws {
        try? session?.close()
        session = nil
        emulator = nil
    }

    private func refusal(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> Refusal? {
        do {
            try body()
            XCTFail("expected a refusal", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error is Refusal, "\(error)", file: file, line: line)
            return error as? Refusal
        }
    }

    private var ram: MemoryAccess.Domain { get throws { try emulator.memory.domain(named: "system_ram") } }

    func testHardcoreRefusesWhatWouldCheatAndAllowsTheRest() throws {
        try emulator.saveState(to: .slot(1))
        let state = try emulator.encodeState()
        let cheat = try emulator.addCheat("infinite", .ram(RAMCheat(address: 3, value: 9)))
        let buffer = RewindBuffer(memoryLimit: 1 << 20)
        try emulator.pushRewind(to: buffer)
        try emulator.setSpeed(0.5)
        events.removeAll()

        try emulator.setHardcore(true)
        XCTAssertTrue(emulator.hardcore)
        XCTAssertFalse(emulator.cheats.cheats[0].enabled, "turning hardcore on disables every cheat")
        XCTAssertEqual(emulator.speed, 1, "and returns to normal speed")
        XCTAssertEqual(events.filter { $0 == .reset }.count, 1, "and resets the game")

        let domain = try ram
        let refused: [(String, Refusal?)] = [
            ("write", refusal { try emulator.write([1], to: domain, address: 0) }),
            ("writable pointer", refusal { _ = try emulator.writablePointer(domain, address: 0, width: 1) }),
            ("slot load", refusal { try emulator.loadState(from: .slot(1)) }),
            ("bytes load", refusal { try emulator.loadState(state, trusted: true) }),
            ("quiet load", refusal { try emulator.loadState(state, trusted: true, quiet: true) }),
            ("rewind", refusal { _ = try emulator.stepRewind(buffer) }),
            ("slow motion", refusal { try emulator.setSpeed(0.5) }),
            ("add cheat", refusal { _ = try emulator.addCheat("x", .code("SXIOPO")) }),
            ("enable cheat", refusal { _ = try emulator.enableCheat(cheat, true) }),
            ("load cheats", refusal { _ = try emulator.loadCheats(from: folder + "/none.cht", append: false) }),
            ("overrides", refusal { try emulator.setOverrides(InputOverrides()) }),
            ("movie playback", refusal { try emulator.playMovie(at: folder + "/none.rlm", options: .init()) }),
        ]
        for (what, refusal) in refused {
            XCTAssertEqual(refusal?.kind, .hardcore, what)
            XCTAssertTrue(
                refusal?.reason.hasSuffix("not allowed in hardcore mode") ?? false,
                "\(what): \(String(describing: refusal))")
        }
        XCTAssertEqual(refused[0].1?.reason, "memory writes are not allowed in hardcore mode")
        XCTAssertEqual(refused[2].1?.reason, "state loads are not allowed in hardcore mode")

        // Allowed: reading, saving, resetting, fast-forward, turning cheats off and removing them.
        XCTAssertNoThrow(try emulator.memory.pointer(try ram, address: 0, width: 1))
        XCTAssertNoThrow(try emulator.saveState(to: .slot(2)))
        XCTAssertNoThrow(try emulator.reset())
        XCTAssertNoThrow(try emulator.setSpeed(4))
        XCTAssertEqual(try emulator.enableCheat(cheat, false), true)
        XCTAssertTrue(emulator.removeCheat(cheat))
        try emulator.setHardcore(false)
        XCTAssertNoThrow(try emulator.loadState(from: .slot(1)))
    }

    func testAPlayingMovieOwnsResetsAndItsTimeline() throws {
        let path = folder + "/m.rlm"
        try emulator.recordMovie(to: path, options: .init())
        for _ in 0..<5 { emulator.runFrame() }
        try emulator.reset()
        emulator.runFrame()
        XCTAssertEqual(emulator.movie.input(at: 5)?.1.contains(.reset), true, "a recording logs the reset on its frame")
        for _ in 0..<10 { emulator.runFrame() }
        try emulator.stopMovie()
        let outside = try emulator.encodeState()  // made with no movie active

        try emulator.playMovie(at: path, options: .init())
        XCTAssertEqual(emulator.movie.mode, .play)
        for (what, body) in [
            ("reset", { () throws in try self.emulator.reset() }),
            ("power", { () throws in try self.emulator.power() }),
        ] {
            let refused = refusal(body)
            XCTAssertEqual(refused?.kind, .movie, what)
        }
        XCTAssertEqual(refusal { try emulator.reset() }?.reason, "a movie is playing: its resets are part of its input")
        let load = refusal { try emulator.loadState(outside, trusted: true) }
        XCTAssertEqual(load?.kind, .movie)
        XCTAssertTrue(load?.reason.contains("not made during this movie") ?? false, String(describing: load))
        // Writes are not input: allowed during playback (they desync it, as in BizHawk).
        XCTAssertNoThrow(try emulator.write([7], to: try ram, address: 0x10))
    }

    func testNothingThatJumpsInTimeRunsInsideTheInputPoll() throws {
        final class Prober: EmulatorClient {
            unowned let emulator: Emulator
            var refusals: [Refusal] = []
            init(_ emulator: Emulator) { self.emulator = emulator }
            func frameWillStart() {}
            func frameStarted() {}
            func frameEnded() {}
            func emulator(didEmit event: EmulatorEvent) {}
            func inputPolled() {
                XCTAssertEqual(emulator.phase, .inputPoll)
                for body in [
                    { () throws in try self.emulator.reset() },
                    { () throws in try self.emulator.saveState(to: .slot(3)) },
                    { () throws in try self.emulator.loadState(from: .slot(3)) },
                    { () throws in try self.emulator.runExtraFrame(video: false, audio: false) },
                    { () throws in try self.emulator.recordMovie(to: "/nonexistent/x.rlm", options: .init()) },
                    { () throws in try self.emulator.setHardcore(true) },
                ] {
                    do { try body() } catch { if let refusal = error as? Refusal { refusals.append(refusal) } }
                }
            }
        }
        let prober = Prober(emulator)
        emulator.client = prober
        emulator.runFrame()
        XCTAssertEqual(prober.refusals.count, 6)
        XCTAssertTrue(prober.refusals.allSatisfy { $0.kind == .phase && $0.isMisuse }, "\(prober.refusals)")
        XCTAssertEqual(emulator.phase, .between)
        XCTAssertFalse(emulator.hardcore)
    }

    func testMemoryBoundsNeverTrapOnUntrustedNumbers() throws {
        let domain = try ram
        for (address, width) in [
            (Int.max, 1), (Int.max - 1, 2), (Int.min, 1), (-1, 1), (0, Int.max), (0, 0), (0, -1),
            (domain.size - 1, 2), (domain.size, 1), (1, Int.max),
        ] {
            XCTAssertNil(emulator.memory.resolve(domain, address: address, width: width), "\(address), \(width)")
            XCTAssertEqual(
                refusal { _ = try emulator.memory.pointer(domain, address: address, width: width) }?.kind, .outOfRange)
        }
        XCTAssertNotNil(emulator.memory.resolve(domain, address: domain.size - 2, width: 2))
        // A write is all of its bytes or none: one byte past the end refuses the whole write.
        let before = try XCTUnwrap(emulator.memory.resolve(domain, address: domain.size - 1, width: 1)).load(
            as: UInt8.self)
        let refused = refusal { try emulator.write([1, 2], to: domain, address: domain.size - 1) }
        XCTAssertEqual(refused?.reason, "address 0x7FF (2 bytes) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(
            emulator.memory.resolve(domain, address: domain.size - 1, width: 1)?.load(as: UInt8.self), before)
        XCTAssertEqual(refusal { _ = try emulator.memory.domain(named: "vram") }?.kind, .outOfRange)
    }

    func testOperationsEmitTheirEventsOnceFromWhicheverDoorAsks() throws {
        events.removeAll()
        try emulator.saveState(to: .slot(4))
        try emulator.loadState(from: .slot(4))
        try emulator.reset()
        let bytes = try emulator.encodeState()
        try emulator.loadState(bytes, trusted: true, quiet: true)
        XCTAssertEqual(
            events, [.stateSaved(.slot(4)), .timeJumped, .stateLoaded(.slot(4)), .timeJumped, .reset],
            "a quiet load (run-ahead's undo) emits nothing")
        // Events of the core's part of a frame wait for the between-frames point.
        final class Recorder: EmulatorClient {
            var log: [String] = []
            unowned let emulator: Emulator
            init(_ emulator: Emulator) { self.emulator = emulator }
            func frameWillStart() { log.append("will start") }
            func frameStarted() { log.append("started") }
            func inputPolled() { log.append("input"); emulator.show(message: "hello", from: "test") }
            func frameEnded() { log.append("ended") }
            func emulator(didEmit event: EmulatorEvent) { log.append("event in \(emulator.phase.name)") }
        }
        let recorder = Recorder(emulator)
        emulator.client = recorder
        emulator.runFrame()
        XCTAssertEqual(recorder.log, ["will start", "started", "input", "event in between frames", "ended"])
    }

    func testStatesFromElsewhereAreRefusedAndLeaveTheGameAlone() throws {
        let before = try emulator.encodeState()
        let ramBefore = Array(
            UnsafeRawBufferPointer(start: try emulator.memory.pointer(try ram, address: 0, width: 2048), count: 2048))
        try Data("RLST garbage".utf8).write(to: URL(fileURLWithPath: folder + "/bad.state"))
        let bad = refusal { try emulator.loadState(from: .file(folder + "/bad.state")) }
        XCTAssertEqual(bad?.kind, .failed)
        XCTAssertTrue(bad?.reason.hasPrefix(folder + "/bad.state: not a savestate") ?? false, String(describing: bad))
        XCTAssertEqual(refusal { try emulator.loadState(from: .slot(1000)) }?.kind, .outOfRange)
        XCTAssertEqual(
            refusal { try emulator.loadState(from: .file(folder + "/none.state")) }?.reason,
            folder + "/none.state: no such savestate")
        let ramAfter = Array(
            UnsafeRawBufferPointer(start: try emulator.memory.pointer(try ram, address: 0, width: 2048), count: 2048))
        XCTAssertEqual(ramBefore, ramAfter)
        XCTAssertEqual(try emulator.encodeState(), before)
    }
}
