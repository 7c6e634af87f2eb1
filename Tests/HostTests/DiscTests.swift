@testable import Emulation
import Foundation
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
@testable import Libretro
import Support
import XCTest

/// The disc tray: `.m3u` playlists on a core with disk control (Tests/cores/disc_core.c, built here:
/// none of the installed cores offers disk control without a BIOS), the `disc` module, the default
/// hotkeys, and the rules (movies, cores without a tray).
final class DiscTests: XCTestCase {
    private static let folder = Fixtures.temporaryFolder()
    private static let core: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { return nil }
        let path = folder + "/disc_libretro.so"
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = ["-shared", "-fPIC", "-O1", "-o", path, Fixtures.root + "/Tests/cores/disc_core.c"]
        guard (try? cc.run()) != nil else { return nil }
        cc.waitUntilExit()
        return cc.terminationStatus == 0 ? path : nil
    }()

    /// Three discs whose first bytes are A, B, C; the playlist names the first two.
    private func harness() throws -> ScriptHarness {
        guard let core = Self.core else { throw XCTSkip("no C compiler") }
        let folder = Fixtures.temporaryFolder()
        for (name, byte) in [("one", "A"), ("two", "B"), ("three", "C")] {
            try byte.write(toFile: folder + "/\(name).dsk", atomically: true, encoding: .utf8)
        }
        try "# a two-disc game\none.dsk|Intro\ntwo.dsk|Ending\n".write(
            toFile: folder + "/game.m3u", atomically: true, encoding: .utf8)
        return try ScriptHarness(rom: folder + "/game.m3u", core: core)
    }

    func testPlaylistDiscsAndTheDiscModule() throws {
        let harness = try harness()
        defer { harness.close() }
        let discs = FilePath.folder(of: harness.session.content!.path)
        try harness.load(
            """
            local tray = disc.state()
            print(tray.count, tray.index, tray.ejected)
            for _, d in ipairs(disc.list()) do print(d.index, d.path:match("[^/]+$"), d.label) end
            print(disc.select(2))
            print(disc.eject(), disc.ejected(), disc.select(2), disc.insert(), disc.index())
            print(disc.add("\(discs)/three.dsk"), disc.count())
            print(pcall(disc.select, 9))
            print(pcall(disc.select, "2"))
            print(disc.add("\(discs)/missing.dsk"))
            emu.frameadvance()
            print(memory.read_u8(3))
            """)
        harness.run(2)
        XCTAssertEqual(
            harness.lines,
            [
                "2\t1\tfalse", "1\tone.dsk\tDisc 1", "2\ttwo.dsk\tDisc 2",
                "nil\tthe tray is closed: eject first (disc.eject())\tfailed", "true\ttrue\ttrue\ttrue\t2", "3\t3",
                "false\tdisc.select: disc 9 does not exist (the tray holds 3)",
                "false\tdisc.select: bad argument #1 'index' (integer expected, got string)",
                "nil\t\(discs)/missing.dsk: no such file\tfailed", "66",
            ], harness.errors)
        XCTAssertEqual(harness.session.content!.extraDiscs.map(\.label), ["Ending"])
    }

    /// States keep the tray (the core's own state); a movie owns the timeline, so swaps are refused in one.
    func testStatesKeepTheTrayAndMoviesRefuseSwaps() throws {
        let harness = try harness()
        defer { harness.close() }
        let emulator = harness.host.emulator
        let saved = try emulator.session.core.serialize()
        try emulator.setDiscEjected(true)
        try emulator.selectDisc(2)
        try emulator.loadState(saved, trusted: true)
        XCTAssertEqual(try emulator.discState(), DiscTray(count: 2, index: 0, ejected: false))
        try emulator.movie.record(to: harness.folder + "/m.rlm", options: .init())
        XCTAssertThrowsError(try emulator.setDiscEjected(true)) {
            XCTAssertEqual(($0 as? Refusal)?.kind, .movie)
            XCTAssertTrue("\($0)".contains("while a movie is recording"), "\($0)")
        }
        try harness.load("print(disc.eject())")
        XCTAssertEqual(harness.lines.last, "nil\tdisc eject not allowed while a movie is recording\tmovie")
    }

    func testDiscHotkeys() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/hotkeys.lua")
        let emulator = harness.host.emulator
        harness.host.deliver([.keyDown("]", repeat: false)])
        XCTAssertEqual(try emulator.discState(), DiscTray(count: 2, index: 1, ejected: true), "next disc, tray open")
        harness.host.deliver([.keyDown("o", repeat: false)])
        XCTAssertEqual(try emulator.discState(), DiscTray(count: 2, index: 1, ejected: false), "closed on disc 2")
        harness.run(1)
        XCTAssertEqual(harness.session.systemRAM()[3], UInt8(ascii: "B"))
        harness.host.deliver([.keyDown("[", repeat: false), .keyDown("[", repeat: false)])
        XCTAssertEqual(try emulator.discState().index, 1, "previous twice wraps around to disc 2")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A real core's tray (picodrive's, for Sega CD): images are added and listed through its _EXT
    /// interface; it refuses to insert a cartridge as a CD, and that refusal reaches the script.
    func testPicodrivesTrayThroughTheDiscModule() throws {
        let rom = Fixtures.root + "/build/roms/airstriker.md"
        let core = ContentTests.bundled + "/picodrive_libretro.so"
        guard FileManager.default.fileExists(atPath: rom), FileManager.default.fileExists(atPath: core) else {
            throw XCTSkip("picodrive or Airstriker missing: run scripts/setup")
        }
        let harness = try ScriptHarness(rom: rom, core: core)
        defer { harness.close() }
        let copy = harness.folder + "/second.md"
        try FileManager.default.copyItem(atPath: rom, toPath: copy)
        try harness.load(
            """
            print(disc.add("\(copy)"), disc.count())
            for _, d in ipairs(disc.list()) do print(d.index, d.path:match("[^/]+$"), d.label) end
            print(disc.eject(), disc.ejected())
            print(disc.select(2))
            print(disc.insert(), disc.index())
            """)
        harness.run(10)
        XCTAssertEqual(
            harness.lines,
            [
                "2\t2", "1\tairstriker.md\tairstriker", "2\tsecond.md\tsecond", "true\ttrue",
                "nil\tcore 'picodrive' refused disc 2\tfailed", "true\t1",
            ], harness.errors)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testCoresWithoutDiskControlAnswerNilAndAMessage() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(
            """
            for _, name in ipairs({"state", "count", "index", "ejected", "eject", "insert", "list"}) do
              print(name, disc[name]())
            end
            print(disc.select(1))
            print(disc.add("x.dsk"))
            """)
        let refusal = "core 'nestopia' has no disk control (it takes one disc at a time)"
        XCTAssertEqual(harness.lines.count, 9)
        for line in harness.lines { XCTAssertTrue(line.hasSuffix("nil\t" + refusal + "\tfailed"), line) }
    }
}
