@testable import Emulation
import Foundation
import Libretro
import Support
import XCTest

/// Extreme numbers through the memory, cheat and watch functions; odd and hostile output paths;
/// oversized content. Crash-prone cases run in child processes (see `BadInput`).
final class BadNumberAndPathTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private static let extremes = ["math.mininteger", "math.maxinteger", "-1", "2^53", "math.maxinteger - 1"]

    /// Every memory, cheat and watch function with extreme integers (and NaN/inf where floats go).
    private func numberCases(domain: String) -> [BadCase] {
        var cases: [BadCase] = []
        let d = domain == "nil" ? "nil" : "\"\(domain)\""
        for (index, n) in Self.extremes.enumerated() {
            let tag = "\(domain) #\(index)"
            cases += [
                BadCase("read_u8 \(tag)", "memory.read_u8(\(n), \(d))", expect: ["memory.read_u8"]),
                BadCase("read_u32_le \(tag)", "memory.read_u32_le(\(n), \(d))", expect: ["memory.read_u32_le"]),
                BadCase("read_s16_be \(tag)", "memory.read_s16_be(\(n), \(d))", expect: ["memory.read_s16_be"]),
                BadCase("write_u8 \(tag)", "memory.write_u8(\(n), 1, \(d))", expect: ["memory.write_u8"]),
                BadCase("write_u16_le \(tag)", "memory.write_u16_le(\(n), 1, \(d))", expect: ["memory.write_u16_le"]),
                BadCase("read_bytes address \(tag)", "memory.read_bytes(\(n), 4, \(d))", expect: ["memory.read_bytes"]),
                BadCase("read_bytes length \(tag)", "memory.read_bytes(1, \(n), \(d))", expect: ["memory.read_bytes"]),
                BadCase(
                    "write_bytes \(tag)", "memory.write_bytes(\(n), \"abc\", \(d))", expect: ["memory.write_bytes"]),
                BadCase("hash address \(tag)", "memory.hash(\(d), \(n))", expect: ["memory.hash"]),
                BadCase("hash length \(tag)", "memory.hash(\(d), 1, \(n))", expect: ["memory.hash"]),
                BadCase(
                    "watch address \(tag)", "event.watch(\(d), \(n), 4, function() end)", expect: ["event.watch"]),
                BadCase("watch size \(tag)", "event.watch(\(d), 0, \(n), function() end)", expect: ["event.watch"]),
                BadCase(
                    "add_ram address \(tag)", "cheats.add_ram({address = \(n), value = 1, domain = \(d)})",
                    expect: ["cheats.add_ram"]),
                BadCase(
                    "add_ram step \(tag)",
                    "cheats.add_ram({address = 0, value = 1, repeat_count = 4, repeat_address_step = \(n) * 7})",
                    expect: ["cheats.add_ram"]),
                BadCase(
                    "add_ram repeat \(tag)", "cheats.add_ram({address = 0, value = 1, repeat_count = \(n) * 5})",
                    expect: ["cheats.add_ram"]),
            ]
        }
        cases += [
            BadCase("read_u8 NaN \(domain)", "memory.read_u8(0/0, \(d))", expect: ["memory.read_u8", "integer"]),
            BadCase("read_u8 inf \(domain)", "memory.read_u8(math.huge, \(d))", expect: ["memory.read_u8"]),
            BadCase("write_u8 NaN value \(domain)", "memory.write_u8(0, 0/0, \(d))", expect: ["memory.write_u8"]),
            BadCase("add_code 300 bytes \(domain)", "cheats.add_code(string.rep('A', 300))", expect: ["at most 255"]),
        ]
        return cases
    }

    func testExtremeNumbersThroughMemoryCheatAndWatchFunctions() throws {
        // nestopia: flat domains only; gambatte: the assembled bus too.
        let flat = try BadInput.check(numberCases(domain: "nil"))
        let bus = try BadInput.check(numberCases(domain: "bus"), rom: Fixtures.gbROM)
        XCTAssertGreaterThanOrEqual(flat + bus, 150)
    }

    // MARK: Paths

    func testOneCharacterRelativePathsAreWritten() throws {
        let folder = Fixtures.temporaryFolder()
        let shot = try BadInput.run(
            ["run", Fixtures.nesROM, "--headless", "--frames", "2", "--screenshot", "s"], in: folder)
        XCTAssertEqual(shot.status, 0, shot.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/s"))
        try "assert(savestate.save('1')); emu.exit()".write(
            toFile: folder + "/a.lua", atomically: true, encoding: .utf8)
        let state = try BadInput.run(
            ["run", Fixtures.nesROM, "--headless", "--allow-files", "--script", "a.lua"], in: folder)
        XCTAssertEqual(state.status, 0, state.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/1"))
        let movie = try BadInput.run(
            ["movie", "record", "m", Fixtures.nesROM, "--headless", "--frames", "3"], in: folder)
        XCTAssertEqual(movie.status, 0, movie.stderr)
        XCTAssertEqual(try MovieText.read(path: folder + "/m").length, 3)
        XCTAssertEqual(FilePath.folder(of: "s"), ".")
        XCTAssertEqual(FilePath.folder(of: "/s"), "/")
        XCTAssertEqual(FilePath.folder(of: "a/b/"), "a")
        XCTAssertEqual(FilePath.fileName(of: "a/b//"), "b")
    }

    /// Targets that are not regular files (FIFO, folder, device when the test may make one) are
    /// refused by every writer, and stay what they were.
    func testWritersRefuseFIFOsDevicesAndFolders() throws {
        let folder = Fixtures.temporaryFolder()
        var targets = [BadInput.fifo(folder + "/fifo"), folder + "/dir"]
        try FileManager.default.createDirectory(atPath: folder + "/dir", withIntermediateDirectories: true)
        if mknod(folder + "/null", S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 { targets.append(folder + "/null") }
        let types = targets.map(BadInput.fileType)
        var cases: [BadCase] = []
        for target in targets {
            let name = FilePath.fileName(of: target)
            cases += [
                BadCase("savestate.save \(name)", "savestate.save(\"\(target)\")", expect: [target]),
                BadCase("cheats.save \(name)", "cheats.save(\"\(target)\")", expect: [target]),
                BadCase("gui.screenshot \(name)", "gui.screenshot(\"\(target)\")", expect: [target]),
            ]
            for option in ["--screenshot", "--wav", "--record-movie"] {
                let child = try BadInput.run(["run", Fixtures.nesROM, "--headless", option, target], in: folder)
                XCTAssertEqual(child.status, 1, "\(option) \(target)")
                XCTAssertTrue(
                    child.stderr.contains(target) && child.stderr.contains("not a regular file"), child.stderr)
                XCTAssertFalse(child.stdout.contains("frames"), "\(option) \(target): the run started: \(child.stdout)")
            }
            XCTAssertThrowsError(try DurableFile.write([1, 2, 3], to: target)) {
                XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)")
            }
        }
        try BadInput.check(cases, in: folder)
        XCTAssertEqual(targets.map(BadInput.fileType), types, "targets untouched")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/dir"), [])
    }

    func testOutputsInAFolderThatCannotExistFailBeforeTheRun() throws {
        let folder = Fixtures.temporaryFolder()
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/file", contents: Data([1])))
        for option in ["--screenshot", "--wav", "--record-movie"] {
            let child = try BadInput.run(["run", Fixtures.nesROM, "--headless", option, "file/out"], in: folder)
            XCTAssertEqual(child.status, 1, child.stderr)
            XCTAssertTrue(child.stderr.contains("file/out") && child.stderr.contains("not a folder"), child.stderr)
        }
    }

    func testA245ByteROMNameKeepsItsSaveRAM() throws {
        let folder = Fixtures.temporaryFolder()
        let name = String(repeating: "r", count: 245)
        try FileManager.default.copyItem(atPath: Fixtures.nesROM, toPath: folder + "/\(name).nes")
        let session = try Fixtures.session(rom: folder + "/\(name).nes", folder: folder)
        session.run(3)
        try session.close()
        let saved = Fixtures.srm(folder + "/\(name).nes")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/saves"), [saved])
        XCTAssertLessThanOrEqual(saved.utf8.count, 255)
        XCTAssertLessThanOrEqual(
            FilePath.fileName(of: DurableFile.temporaryPath(for: folder + "/" + saved)).utf8.count, 255)
    }

    func testStaleTemporaryFilesOfDeadProcessesAreRemoved() throws {
        let folder = Fixtures.temporaryFolder()
        let dead = "x.state.tmp2147483000", live = "x.state.tmp1", parent = "x.state.tmp\(getppid())"
        let other = "y.state.tmp2147483000", unrelated = "x.state.tmpnotes"
        for file in [dead, live, parent, other, unrelated] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + file, contents: Data([1])))
        }
        try DurableFile.write([7], to: folder + "/x.state")
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: folder)),
            [live, parent, other, unrelated, "x.state"], "only the dead process's temporary file of x.state is gone")
    }

    func testOversizedContentIsRefusedWithItsLimit() throws {
        let folder = Fixtures.temporaryFolder()
        let path = folder + "/big.nes"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, off_t(Libretro.Content.maxLoadedSize + 1)), 0)  // sparse: no disk used
        let child = try BadInput.run(["run", path, "--headless", "--frames", "1"], in: folder)
        XCTAssertEqual(child.status, 1, child.stderr)
        XCTAssertTrue(child.stderr.contains(path) && child.stderr.contains("larger than 512 MB"), child.stderr)
        let pipe = BadInput.fifo(folder + "/pipe.nes")
        let fromPipe = try BadInput.run(["run", pipe, "--headless", "--frames", "1"], in: folder)
        XCTAssertEqual(fromPipe.status, 1, fromPipe.stderr)
        XCTAssertTrue(fromPipe.stderr.contains("not a regular file"), fromPipe.stderr)
    }
}
