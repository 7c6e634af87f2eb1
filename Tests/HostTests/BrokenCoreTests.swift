import Foundation
import XCTest

/// Cores that lie, break or hang (Tests/cores/broken_core.c, one library per misbehaviour, built here
/// with Debian's gcc): every run is a child `retrolua run` that must end cleanly or with an error naming
/// the core — never a crash (a signal's status) or a hang (killed after the timeout).
final class BrokenCoreTests: XCTestCase {
    private static let folder = Fixtures.temporaryFolder()
    nonisolated(unsafe) private static var built: [String: String] = [:]
    private static let game: String = {
        let path = folder + "/game.brk"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("broken core content".utf8)))
        return path
    }()

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        try Fixtures.requireROMs()
    }

    /// The core for `mode` (nil: well-behaved) as `NAME_libretro.so` in `into` (a folder of its own by default).
    private func core(_ mode: String?, into: String? = nil, name: String = "broken") throws -> String {
        let key = "\(mode ?? "-") \(into ?? "") \(name)"
        if let path = Self.built[key] { return path }
        let folder = into ?? Self.folder + "/" + (mode ?? "good")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/\(name)_libretro.so"
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments =
            ["-shared", "-fPIC", "-O1", "-o", path, Fixtures.root + "/Tests/cores/broken_core.c", "-lm"]
            + (mode.map { ["-DMODE_\($0)"] } ?? [])
        try cc.run()
        cc.waitUntilExit()
        XCTAssertEqual(cc.terminationStatus, 0, "cc failed for \(mode ?? "good")")
        Self.built[key] = path
        return path
    }

    private func script(_ text: String) -> String {
        let path = Fixtures.temporaryFolder() + "/test.lua"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        return path
    }

    /// Runs 30 frames of the game on the core for `mode`; the result must be a clean exit.
    @discardableResult
    private func run(
        _ mode: String?, _ extra: [String] = [], status: Int32 = 0, home: String = Fixtures.temporaryFolder(),
        environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws -> Fixtures.Result {
        let path = try core(mode)
        let result = try Fixtures.cli(
            ["run", Self.game, "--core", path, "--frames", "30", "--headless"] + extra, home: home,
            environment: environment, timeout: 30)
        XCTAssertEqual(result.status, status, "\(mode ?? "good"): \(result.stderr)", file: file, line: line)
        return result
    }

    /// A clean run that warned about `warning`, naming the core.
    private func expectWarning(
        _ mode: String, _ warning: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try run(mode, extra, file: file, line: line)
        XCTAssertTrue(
            result.stderr.contains("[broken] core misbehaves: ") && result.stderr.contains(warning),
            "\(mode): \(result.stderr)", file: file, line: line)
    }

    private var memoryScript: String {
        script(
            """
            for _, d in ipairs(memory.domains()) do
              local ok = pcall(memory.read_bytes, 0, math.min(d.size, 4096), d.name)
              print("domain " .. d.name .. " " .. d.size .. " " .. tostring(ok))
            end
            """)
    }

    private var stateScript: String {
        script(
            """
            local ok, state = pcall(savestate.create)
            print("create " .. tostring(ok) .. " " .. tostring(state))
            if ok then local loaded, message = state:load(); print("load " .. tostring(loaded) .. " " .. tostring(message)) end
            """)
    }

    // MARK: The baseline

    func testTheWellBehavedCoreRunsAndSavesItsState() throws {
        let result = try run(nil, ["--script", stateScript])
        XCTAssertTrue(result.stdout.contains("frame    64x48 XRGB8888"), result.stdout)
        XCTAssertTrue(result.stdout.contains("load true"), result.stdout)
        XCTAssertFalse(result.stderr.contains("misbehaves"), result.stderr)
    }

    // MARK: Video frames

    func testHugePitch() throws { try expectWarning("HUGE_PITCH", "pitch of 1099511627776 bytes") }
    func testPitchSmallerThanWidth() throws { try expectWarning("PITCH_SMALL", "with a pitch of 4 bytes") }
    func testPitchThatWrapsNegative() throws { try expectWarning("NEGATIVE_PITCH", "with a pitch of -256 bytes") }
    func testFrameBufferShorterThanItsSize() throws { try expectWarning("SHORT_BUFFER", "not readable memory") }
    func testHugeFrameSize() throws { try expectWarning("HUGE_SIZE", "a video frame of 1073741824x1073741824") }
    func testZeroFrameSize() throws { try expectWarning("ZERO_SIZE", "a video frame of 0x0") }
    func testFrameBeyondTheDeclaredGeometry() throws { try expectWarning("BEYOND_GEOMETRY", "beyond the declared") }

    func testOnlyNullFramesMeanNoPicture() throws {
        let result = try run("NULL_ALWAYS")
        XCTAssertTrue(result.stdout.contains("frame    none"), result.stdout)
    }

    func testNullFramesDuplicateTheLastOne() throws {
        let shot = Fixtures.temporaryFolder() + "/shot.png"
        let result = try run("NULL_ALTERNATE", ["--screenshot", shot])
        XCTAssertTrue(result.stdout.contains("frame    64x48"), result.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot))
    }

    func testLyingFrameWithAScreenshotSaysThereIsNoFrame() throws {
        let result = try run("SHORT_BUFFER", ["--screenshot", Fixtures.temporaryFolder() + "/shot.png"], status: 1)
        XCTAssertTrue(result.stderr.contains("the core produced none"), result.stderr)
    }

    // MARK: Geometry, timing and pixel format

    func testHugeGeometry() throws { try run("GEOMETRY_HUGE") }
    func testZeroGeometryAndNaNAspect() throws { try run("GEOMETRY_ZERO") }
    func testNaNTimingAndHugeMaximumGeometry() throws { try run("AV_NAN") }
    func testTinyFrameRateWithAFrameTimeCallback() throws { try run("FPS_TINY") }

    func testUnknownPixelFormatIsRefused() throws {
        // The frame stays in the default 0RGB1555, 2 bytes a pixel.
        let result = try run("PIXEL_FORMAT_BAD")
        XCTAssertTrue(result.stdout.contains("frame    64x48 0RGB1555"), result.stdout)
    }

    // MARK: Audio

    private func expectAudioWarning(_ mode: String, _ warning: String?) throws {
        let wav = Fixtures.temporaryFolder() + "/out.wav"
        let result = try run(mode, ["--wav", wav, "--no-audio"])
        if let warning { XCTAssertTrue(result.stderr.contains(warning), "\(mode): \(result.stderr)") }
    }

    func testHugeAudioBatch() throws { try expectAudioWarning("AUDIO_HUGE", "an audio batch of 1099511627776 frames") }
    func testAudioBatchCountThatWrapsNegative() throws {
        try expectAudioWarning("AUDIO_NEGATIVE", "an audio batch of 18446744073709551615 frames")
    }
    func testAudioBatchShorterThanItsCount() throws { try expectAudioWarning("AUDIO_SHORT", "not readable memory") }
    func testNullAudioBatch() throws { try expectAudioWarning("AUDIO_NULL", nil) }

    // MARK: Savestates

    private func expectStateRefused(_ mode: String, _ message: String) throws {
        let result = try run(mode, ["--script", stateScript])
        XCTAssertTrue(result.stdout.contains(message), "\(mode): \(result.stdout)\n\(result.stderr)")
    }

    func testSerializeSizeOf2To62IsRefused() throws {
        try expectStateRefused("SERIALIZE_HUGE", "core 'broken' reports a savestate size of 4611686018427387904 bytes")
    }
    func testSerializeSizeThatWrapsNegativeIsRefused() throws {
        try expectStateRefused("SERIALIZE_NEGATIVE", "savestate size of 18446744073709551615 bytes")
    }
    func testSerializeThatFails() throws { try expectStateRefused("SERIALIZE_FAILS", "could not serialize") }
    func testUnserializeThatFails() throws { try expectStateRefused("UNSERIALIZE_FAILS", "load nil") }

    // MARK: Memory regions and maps

    private func expectMemoryWarning(_ mode: String, _ warning: String) throws {
        try expectWarning(mode, warning, ["--script", memoryScript])
    }

    func testSaveRAMOf16GiB() throws { try expectMemoryWarning("SAVE_RAM_HUGE", "save RAM of 17179869184 bytes") }
    func testSaveRAMLongerThanItsMemory() throws {
        try expectMemoryWarning("SAVE_RAM_SHORT", "save RAM of 1048576 bytes that is not readable")
    }
    func testSaveRAMSizeThatWrapsNegative() throws {
        try expectMemoryWarning("SAVE_RAM_NEGATIVE", "save RAM of 18446744073709551611 bytes")
    }
    func testSystemRAMOf1TiB() throws { try expectMemoryWarning("SYSTEM_RAM_HUGE", "system RAM of 1099511627776") }

    func testNullSaveRAMWithASizeIsNoSaveRAM() throws {
        let result = try run("SAVE_RAM_NULL", ["--script", memoryScript])
        XCTAssertFalse(result.stdout.contains("domain save_ram"), result.stdout)
    }

    func testMemoryMapDescriptorPastTheAddressSpace() throws {
        try expectMemoryWarning("MMAP_OVERFLOW", "memory-map descriptor 1: start 0xFFFFFFFFFFFFF000")
    }
    func testMemoryMapDescriptorOf1TiB() throws { try expectMemoryWarning("MMAP_LEN_HUGE", "memory-map descriptor 1") }
    func testMemoryMapDescriptorLongerThanItsMemory() throws {
        try expectMemoryWarning("MMAP_SHORT", "are not readable memory")
    }
    func testMemoryMapOffsetThatWraps() throws { try expectMemoryWarning("MMAP_OFFSET_HUGE", "out of range") }
    func testMemoryMapOfFourBillionDescriptors() throws {
        try expectMemoryWarning("MMAP_COUNT_HUGE", "a memory map of 4294967295 descriptors")
    }
    func testMemoryMapCountPastItsArray() throws { try expectMemoryWarning("MMAP_COUNT_PAST", "of 500 descriptors") }

    /// A core that cannot serialize before its first frame still gets power-on movies that replay and
    /// verify: from the command line (nothing has run yet) and from a script after frames have run
    /// (anchored at the first state it gave, noted in the header).
    func testPowerOnMoviesOnACoreThatCannotSerializeBeforeItsFirstFrame() throws {
        let path = try core("SERIALIZE_AFTER_FIRST_FRAME")
        let folder = Fixtures.temporaryFolder()
        let movie = folder + "/power.rlm"
        let recorded = try Fixtures.cli(
            ["movie", "record", movie, Self.game, "--core", path, "--headless", "--frames", "20", "--verify-log"],
            timeout: 30)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertTrue(try String(contentsOfFile: movie, encoding: .utf8).contains("\nstart power\n"))
        let verified = try Fixtures.cli(["movie", "verify", movie, Self.game, "--core", path], timeout: 30)
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("in sync  20 frames"), verified.stdout)

        let anchored = folder + "/anchored.rlm"
        let recorder = script(
            """
            for _ = 1, 5 do emu.frameadvance() end
            assert(movie.record("\(anchored)", {verify = true}))
            """)
        let run = try Fixtures.cli(
            ["run", Self.game, "--core", path, "--headless", "--frames", "30", "--script", recorder, "--allow-files"],
            timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("cannot save its power-on state"), run.stderr)
        let text = try String(contentsOfFile: anchored, encoding: .utf8)
        XCTAssertTrue(text.contains("\nstart state\n") && text.contains("\nanchor 1\n"), text)
        let replayed = try Fixtures.cli(["movie", "verify", anchored, Self.game, "--core", path], timeout: 30)
        XCTAssertEqual(replayed.status, 0, replayed.stdout + replayed.stderr)
        XCTAssertTrue(replayed.stdout.contains("in sync"), replayed.stdout)
    }

    /// Memory that differs from the first frame on, in every process (uninitialised at power-on): a movie's
    /// replay cannot be checked on such a core, and saying "desync" would blame the movie's input.
    func testAPowerOnMemoryDifferenceIsNotTheMoviesDesync() throws {
        let path = try core("POWER_ON_RANDOM")
        let movie = Fixtures.temporaryFolder() + "/power.rlm"
        let recorded = try Fixtures.cli(
            ["movie", "record", movie, Self.game, "--core", path, "--headless", "--frames", "20", "--verify-log"],
            timeout: 30)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let verified = try Fixtures.cli(["movie", "verify", movie, Self.game, "--core", path], timeout: 30)
        XCTAssertEqual(verified.status, 1, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("cannot verify: the memory differs already at frame 0"), verified.stdout)
        XCTAssertFalse(verified.stdout.contains("desync   frame"), verified.stdout)
    }

    /// A core printing through C's stdio and a script printing every frame share standard output: each line
    /// stays whole (a block-buffered core's output was cut at 4 KiB, in the middle of a line).
    func testAScriptsPrintAndACoresOwnOutputStayLineWhole() throws {
        let talk = script("for i = 1, 200 do print('script line ' .. i); emu.frameadvance() end")
        let path = try core("CHATTY")
        let result = try Fixtures.cli(
            ["run", Self.game, "--core", path, "--frames", "200", "--headless", "--script", talk], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        let summary: Set<Substring> = ["core", "content", "frames", "frame"]
        let mixed = lines.filter {
            !($0.hasPrefix("script line ") && $0.dropFirst(12).allSatisfy(\.isNumber))
                && !($0.hasPrefix("broken: frame ") && $0.hasSuffix("own chatter on its standard output"))
                && !summary.contains($0.split(separator: " ").first ?? "")
        }
        XCTAssertEqual(mixed, [], result.stdout)
        XCTAssertEqual(lines.filter { $0.hasPrefix("script line ") }.count, 200)
    }

    /// A region and a descriptor over a file mapping longer than the file (touching its end is SIGBUS):
    /// both are refused, and no bus address a script names faults.
    func testRegionAndDescriptorBeyondAFilesEnd() throws {
        let bus = script(
            """
            for _, address in ipairs({0x8000, 0x8FFF, 0x9000, 0x9FFF, -1, 0x6000, math.maxinteger, math.mininteger}) do
              print("bus " .. address .. " " .. tostring(pcall(memory.read_u8, address, "bus")))
            end
            print("hash " .. tostring(pcall(memory.hash, "bus")))
            """)
        let result = try run("FILE_SHORT", ["--script", memoryScript, "--script", bus])
        XCTAssertTrue(result.stderr.contains("save RAM of 8192 bytes that is not readable"), result.stderr)
        XCTAssertTrue(result.stderr.contains("memory-map descriptor 1"), result.stderr)
        XCTAssertFalse(result.stdout.contains("domain save_ram"), result.stdout)
        XCTAssertTrue(result.stdout.contains("bus 36864 false"), result.stdout)
        XCTAssertTrue(result.stdout.contains("bus 24576 true"), result.stdout)
        XCTAssertTrue(result.stdout.contains("hash true"), result.stdout)
    }

    func testMemoryMapWithNonsenseSelectAndDisconnect() throws {
        let result = try run("MMAP_SELECT", ["--script", memoryScript])
        XCTAssertTrue(result.stdout.contains("domain bus_8000 3 true"), result.stdout)
    }

    func testMemoryMapWithNullDescriptors() throws {
        let result = try run("MMAP_NULL", ["--script", memoryScript])
        XCTAssertFalse(result.stdout.contains("domain bus"), result.stdout)
    }

    // MARK: The environment

    private func expectVariableStillAnswered(_ mode: String, when: String = "load") throws {
        let result = try run(mode)
        XCTAssertTrue(result.stderr.contains("broken: GET_VARIABLE \(when) ok=one"), "\(mode): \(result.stderr)")
    }

    func testEveryCommandWithNullDataInSetEnvironment() throws { try expectVariableStillAnswered("ENV_NULL_SETENV") }
    func testEveryCommandWithNullDataInInit() throws { try expectVariableStillAnswered("ENV_NULL_INIT") }
    func testEveryCommandWithNullDataInLoadGame() throws { try expectVariableStillAnswered("ENV_NULL_LOAD") }
    func testEveryCommandWithNullDataInRun() throws { try expectVariableStillAnswered("ENV_NULL_RUN", when: "run") }
    func testOptionsWithNullKeysValuesAndLists() throws { try expectVariableStillAnswered("OPTIONS_NULL") }

    func testQueriesWithNullDataAreAnsweredAsSupported() throws {
        let result = try run("NULL_QUERIES")
        XCTAssertTrue(
            result.stderr.contains("broken: queries savestate_context=1 av_enable=1 fastforwarding=1 throttle=1"),
            result.stderr)
    }

    func testLogWithANullFormat() throws {
        let result = try run("LOG_NULL")
        XCTAssertTrue(result.stderr.contains("broken: logged"), result.stderr)
    }

    func testMessagesWithNullText() throws { try run("MESSAGE_NULL") }
    func testInputDescriptorsWithoutTheirEnd() throws { try run("INPUT_DESC_UNTERMINATED") }
    func testControllerInfoWithFourBillionTypes() throws { try run("CONTROLLER_HUGE") }

    // MARK: Loading and shutting down

    func testRefusedContentIsNeverUnloaded() throws {
        let result = try run("LOAD_FAILS", status: 1)
        XCTAssertTrue(result.stderr.contains("core 'broken' refused the content"), result.stderr)
        XCTAssertFalse(result.stderr.contains("retro_unload_game called"), result.stderr)
    }

    func testShutdownEndsTheRunAfterTheFrameAndWritesSaveRAM() throws {
        let home = Fixtures.temporaryFolder()
        let result = try run("SHUTDOWN_AT_10", ["--save-dir", home + "/saves"], home: home)
        XCTAssertTrue(result.stdout.contains("frames   10 in"), result.stdout)
        let save = FileManager.default.contents(atPath: home + "/saves/" + Fixtures.srm(Self.game))
        XCTAssertEqual(save?.first, 0x5A)
    }

    func testShutdownEndsAWindowedRun() throws {
        let home = Fixtures.temporaryFolder()
        let path = try core("SHUTDOWN_AT_10")
        let result = try Fixtures.cli(
            ["run", Self.game, "--core", path, "--no-audio", "--save-dir", home + "/saves"], home: home,
            environment: ["DISPLAY": try XDisplay.name()], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("frames   10 in"), result.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: home + "/saves/" + Fixtures.srm(Self.game))?.first, 0x5A)
    }

    // MARK: Files in the core folders

    /// A core folder holding a good `broken` core and the given bad files.
    private func coreFolder(_ modes: [String], truncated: Bool = false, garbage: Bool = false) throws -> String {
        let folder = Fixtures.temporaryFolder()
        _ = try core(nil, into: folder)
        for mode in modes { _ = try core(mode, into: folder, name: "bad_" + mode.lowercased()) }
        if truncated {
            let whole = try Data(contentsOf: URL(fileURLWithPath: try core(nil)))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder + "/half_libretro.so"))
        }
        if garbage { try Data("not a library\n".utf8).write(to: URL(fileURLWithPath: folder + "/x_libretro.so")) }
        return folder
    }

    private func expectFolderHarmless(_ folder: String, unusable: [String]) throws {
        let home = Fixtures.temporaryFolder()
        let environment = ["RETROLUA_CORE_PATH": folder, "RETROLUA_PROBE_TIMEOUT": "1"]
        for _ in 0..<2 {  // The second time from the cache.
            let cores = try Fixtures.cli(["cores"], home: home, environment: environment, timeout: 30)
            XCTAssertEqual(cores.status, 0, cores.stderr)
            for name in ["broken", "nestopia"] { XCTAssertTrue(cores.stdout.contains(name), cores.stdout) }
            for name in unusable {
                XCTAssertTrue(cores.stdout.contains("unusable:   \(folder)/\(name)_libretro.so"), cores.stdout)
            }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: home + "/.cache/retrolua/cores.json"))
        for rom in [Fixtures.nesROM, Self.game] {
            let run = try Fixtures.cli(
                ["run", rom, "--frames", "5", "--headless"], home: home, environment: environment, timeout: 30)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
    }

    func testCoreThatHangsInInitInTheSearchPath() throws {
        // retro_init is never called to probe: the core is listed like any other.
        try expectFolderHarmless(try coreFolder(["HANG_INIT"]), unusable: [])
    }
    func testCoreThatHangsWhenAskedForItsInfo() throws {
        try expectFolderHarmless(try coreFolder(["HANG_SYSINFO"]), unusable: ["bad_hang_sysinfo"])
    }
    func testCoreThatCrashesWhenAskedForItsInfo() throws {
        try expectFolderHarmless(try coreFolder(["CRASH_SYSINFO"]), unusable: ["bad_crash_sysinfo"])
    }
    func testCoreThatHangsWhenLoaded() throws {
        try expectFolderHarmless(try coreFolder(["HANG_CONSTRUCTOR"]), unusable: ["bad_hang_constructor"])
    }
    func testTruncatedAndGarbageLibrariesInTheSearchPath() throws {
        try expectFolderHarmless(try coreFolder([], truncated: true, garbage: true), unusable: ["half", "x"])
    }

    func testTruncatedLibraryGivenAsCoreIsNamed() throws {
        let folder = try coreFolder([], truncated: true, garbage: true)
        for (file, reason) in [("half", "truncated"), ("x", "not an ELF file")] {
            let path = folder + "/\(file)_libretro.so"
            let result = try Fixtures.cli(["run", Self.game, "--core", path, "--headless"], timeout: 30)
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("\(path): cannot load as a shared library: \(reason)"), result.stderr)
        }
    }
}
