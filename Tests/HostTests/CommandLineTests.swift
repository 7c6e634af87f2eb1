@testable import Emulation
import Foundation
import XCTest
import Media

/// The `retrolua` binary end to end: summaries, determinism, screenshots and every bad input.
final class CommandLineTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func hash(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("frame ") }?.split(separator: " ").last.map(String.init)
    }

    func testDefaultRunPlaysTheDemoOnNestopiaAndPrintsASummary() throws {
        let result = try Fixtures.cli(["run", "--frames", "120"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("core     nestopia"), result.stdout)
        XCTAssertTrue(result.stdout.contains("content  demo.nes"), result.stdout)
        XCTAssertTrue(result.stdout.contains("frames   120 in"), result.stdout)
        XCTAssertNotNil(hash(in: result.stdout))
    }

    func testSameInputsGiveTheSameFrameHashAcrossRuns() throws {
        let first = try Fixtures.cli(["run", Fixtures.nesROM, "--frames", "90"])
        let second = try Fixtures.cli(["run", Fixtures.nesROM, "--frames", "90"])
        let other = try Fixtures.cli(["run", Fixtures.gbROM, "--frames", "90"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(hash(in: first.stdout), hash(in: second.stdout))
        XCTAssertNotEqual(hash(in: first.stdout), hash(in: other.stdout))
    }

    func testScreenshotIsAPNGWithTheGameColours() throws {
        let folder = Fixtures.temporaryFolder()
        let result = try Fixtures.cli(["run", "--frames", "30", "--screenshot", folder + "/shot.png", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "")
        let image = try PNGFile.read(folder + "/shot.png")
        XCTAssertEqual(image.width, 256)
        XCTAssertEqual(Array(image.rgba[0..<4]), [0x15, 0x3C, 0xFE, 0xFF])
    }

    func testCoresAndInfo() throws {
        let cores = try Fixtures.cli(["cores"])
        XCTAssertEqual(cores.status, 0)
        for name in ["nestopia", "gambatte", "mgba"] { XCTAssertTrue(cores.stdout.contains(name), cores.stdout) }
        XCTAssertTrue(cores.stdout.contains(".nes"))
        let info = try Fixtures.cli(["info", Fixtures.gbROM])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("core     gambatte"), info.stdout)
        XCTAssertTrue(info.stdout.contains("sha1     "), info.stdout)
        XCTAssertTrue(info.stdout.contains("crc32    "), info.stdout)
    }

    func testHelpForEachCommand() throws {
        for command in ["run", "cores", "info"] {
            let result = try Fixtures.cli([command, "--help"])
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.stdout.hasPrefix("usage: retrolua \(command)"), result.stdout)
        }
        XCTAssertEqual(try Fixtures.cli([]).status, 2)
        XCTAssertEqual(try Fixtures.cli(["fly"]).status, 2)
        XCTAssertEqual(try Fixtures.cli(["run", "--frames", "many"]).status, 2)
    }

    // MARK: Bad input: a clear message naming the culprit, non-zero exit, nothing lost.

    private func expectFailure(
        _ arguments: [String], mentions needles: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try Fixtures.cli(arguments)
        XCTAssertEqual(result.status, 1, "exit status; stderr: \(result.stderr)", file: file, line: line)
        for needle in needles {
            XCTAssertTrue(
                result.stderr.contains(needle), "'\(needle)' not in: \(result.stderr)", file: file, line: line)
        }
    }

    func testUnknownCoreNameListsInstalledCores() throws {
        try expectFailure(
            ["run", Fixtures.nesROM, "--core", "snes9000"],
            mentions: ["no core named 'snes9000'", "nestopia", "gambatte"])
    }

    func testALibraryThatIsNotACoreIsNamedAsSuch() throws {
        try expectFailure(
            ["run", Fixtures.nesROM, "--core", "/usr/lib/x86_64-linux-gnu/libz.so.1"],
            mentions: ["libz.so.1: not a libretro core (it has no retro_"])
        let folder = Fixtures.temporaryFolder()
        _ = FileManager.default.createFile(atPath: folder + "/fake_libretro.so", contents: Data("not elf".utf8))
        try expectFailure(
            ["run", Fixtures.nesROM, "--core", folder + "/fake_libretro.so"],
            mentions: ["fake_libretro.so: cannot load as a shared library"])
    }

    func testWrongAPIVersionIsNamed() throws {
        // A stand-in library with every libretro symbol whose retro_api_version answers 2.
        let folder = Fixtures.temporaryFolder()
        let names = [
            "set_environment", "set_video_refresh", "set_audio_sample", "set_audio_sample_batch", "set_input_poll",
            "set_input_state", "init", "deinit", "get_system_info", "get_system_av_info", "set_controller_port_device",
            "reset", "run", "serialize_size", "serialize", "unserialize", "cheat_reset", "cheat_set", "load_game",
            "unload_game", "get_region", "get_memory_data", "get_memory_size",
        ]
        let source =
            names.map { "long retro_\($0)(void) { return 0; }" }.joined(separator: "\n")
            + "\nunsigned retro_api_version(void) { return 2; }\n"
        try source.write(toFile: folder + "/future.c", atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = [
            "cc", "-shared", "-fPIC", "-w", "-o", folder + "/future_libretro.so", folder + "/future.c",
        ]
        try compiler.run()
        compiler.waitUntilExit()
        try XCTSkipUnless(compiler.terminationStatus == 0, "no C compiler to build the stand-in core")
        try expectFailure(
            ["run", Fixtures.nesROM, "--core", folder + "/future_libretro.so"],
            mentions: ["future_libretro.so: libretro API version 2, but Retrolua speaks version 1"])
    }

    func testUnreadableEmptyAndWrongSystemContent() throws {
        let folder = Fixtures.temporaryFolder()
        try expectFailure(
            ["run", folder + "/missing.nes"], mentions: ["missing.nes: cannot read content: no such file"])
        _ = FileManager.default.createFile(atPath: folder + "/empty.nes", contents: Data())
        try expectFailure(["run", folder + "/empty.nes"], mentions: ["empty.nes: content file is empty"])
        try expectFailure(
            ["run", Fixtures.gbROM, "--core", "nestopia"],
            mentions: ["demo.gb: core 'Nestopia' does not take this kind of file", ".nes"])
        _ = FileManager.default.createFile(atPath: folder + "/thing.xyz", contents: Data([1, 2, 3]))
        try expectFailure(
            ["run", folder + "/thing.xyz"], mentions: ["thing.xyz: no installed core takes this file's extension"])
    }

    func testGarbageROMIsRefusedByTheCore() throws {
        let folder = Fixtures.temporaryFolder()
        _ = FileManager.default.createFile(
            atPath: folder + "/garbage.nes", contents: Data(repeating: 0x42, count: 4096))
        try expectFailure(
            ["run", folder + "/garbage.nes"],
            mentions: ["garbage.nes: core 'Nestopia' refused the content (retro_load_game returned false)"])
    }
}
