import Foundation
import Libretro
import Support
import XCTest

/// BIOS files from a core's `.info`: the well-behaved test core (Tests/cores/broken_core.c) with a
/// copy of a real `.info` beside it, run through the CLI with a system folder of the test's own.
final class FirmwareTests: XCTestCase {
    private static let built = Fixtures.temporaryFolder()
    private var folder = "", system = "", game = ""

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        folder = Fixtures.temporaryFolder()
        system = folder + "/system"
        game = folder + "/game.brk"
        try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
        try Data("game".utf8).write(to: URL(fileURLWithPath: game))
        let library = Self.built + "/bios_libretro.so"
        if !FileManager.default.fileExists(atPath: library) {
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
            let source = Fixtures.root + "/Tests/cores/broken_core.c"
            cc.arguments = ["-shared", "-fPIC", "-O1", "-o", library, source, "-lm"]
            try cc.run()
            cc.waitUntilExit()
            XCTAssertEqual(cc.terminationStatus, 0)
        }
        try FileManager.default.copyItem(atPath: library, toPath: folder + "/bios_libretro.so")
    }

    /// Puts `info` beside the core as its `.info` file and runs 3 frames.
    private func run(info: String) throws -> Fixtures.Result {
        try info.write(toFile: folder + "/bios_libretro.info", atomically: true, encoding: .utf8)
        return try Fixtures.cli(
            [
                "run", game, "--core", folder + "/bios_libretro.so", "--system-dir", system, "--headless",
                "--frames", "3",
            ],
            timeout: 30)
    }

    /// beetle-psx's real `.info` (three required BIOS files with md5s in `notes`), for our content.
    private var psxInfo: String {
        get throws {
            let real = "/usr/share/libretro/info/mednafen_psx_libretro.info"
            guard FileManager.default.fileExists(atPath: real) else { throw XCTSkip("libretro-core-info missing") }
            return try String(contentsOfFile: real, encoding: .utf8)
                .replacingOccurrences(of: "supported_extensions = \"", with: "supported_extensions = \"brk|")
        }
    }

    func testAMissingRequiredBIOSFailsBeforeTheCoreLoadsNamingFileMD5AndPlace() throws {
        let result = try run(info: try psxInfo)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("core 'bios' needs firmware (BIOS)"), result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "scph5501.bin (PS1 US BIOS), md5 490f666e1afb15b7362b406ed1cea246: put it at \(system)/scph5501.bin"),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("scph5500.bin") && result.stderr.contains("scph5502.bin"))
        XCTAssertFalse(result.stderr.contains("psxonpsp660.bin"), "optional files are not asked for")
        XCTAssertFalse(result.stderr.contains("broken: GET_VARIABLE"), "the core never ran: \(result.stderr)")
    }

    /// A real `.info` from libretro-core-info, made to take our content (`.brk`).
    private func realInfo(_ name: String) throws -> String {
        let real = "/usr/share/libretro/info/\(name)_libretro.info"
        guard FileManager.default.fileExists(atPath: real) else { throw XCTSkip("libretro-core-info missing") }
        return try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: "supported_extensions = \"", with: "supported_extensions = \"brk|")
    }

    func testOneRegionsBIOSIsEnoughAndTheOthersAreWarnedAbout() throws {
        // A stand-in for the US BIOS alone: beetle-psx's .info lists JP, US and EU all as required.
        try Data("stand-in".utf8).write(to: URL(fileURLWithPath: system + "/scph5501.bin"))
        let result = try run(info: try psxInfo)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "core 'bios': scph5500.bin (PS1 JP BIOS) is not in \(system) (--system-dir); scph5501.bin serves in "
                    + "its place, but content of its region (JP) may not boot without it"), result.stderr)
        XCTAssertTrue(result.stderr.contains("scph5502.bin (PS1 EU BIOS) is not in"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\(system)/scph5501.bin: md5 "), "the stand-in's md5: \(result.stderr)")
        XCTAssertFalse(result.stderr.contains("psxonpsp660.bin"), "optional files are not asked for")

        // Saturn: the JP BIOS alone is enough too.
        try Data("stand-in".utf8).write(to: URL(fileURLWithPath: system + "/sega_101.bin"))
        let saturn = try run(info: try realInfo("mednafen_saturn"))
        XCTAssertEqual(saturn.status, 0, saturn.stderr)
        XCTAssertTrue(saturn.stderr.contains("mpr-17933.bin (Saturn US/EU BIOS) is not in"), saturn.stderr)
    }

    func testNoRegionsBIOSFailsNamingTheFilesAsAlternatives() throws {
        let result = try run(info: try realInfo("mednafen_saturn"))
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                """
                  one of these (a region's file is enough for content of that region):
                    sega_101.bin (Saturn JP BIOS), md5 85ec9ca47d8f6807718151cbcca8b964: put it at \(system)/sega_101.bin
                    mpr-17933.bin (Saturn US/EU BIOS)
                """), result.stderr)
    }

    /// The groups come from the descriptions of every real `.info`, not from a list per core: the PS1
    /// cores' three BIOS files, Saturn's two; a lone regional file stays required; optional ones are
    /// never grouped (Genesis Plus GX's MegaCD/SegaCD set is optional).
    func testRegionAlternativesFromTheRealInfoFiles() throws {
        let folder = "/usr/share/libretro/info"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw XCTSkip("libretro-core-info missing")
        }
        var found: [String: [String]] = [:]
        for name in names.sorted() where name.hasSuffix(".info") {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let groups = CoreFirmware.regionAlternatives(CoreFirmware.list(infoText: text, systemFolder: "/s"))
            if !groups.isEmpty { found[name] = groups.map { $0.map(\.path).joined(separator: " ") } }
        }
        let psx = ["scph5500.bin scph5501.bin scph5502.bin"]
        XCTAssertEqual(found["mednafen_psx_libretro.info"], psx)
        XCTAssertEqual(found["mednafen_psx_hw_libretro.info"], psx)
        XCTAssertEqual(found["mednafen_saturn_libretro.info"], ["sega_101.bin mpr-17933.bin"])
        XCTAssertNil(found["hatari_libretro.info"])
        XCTAssertNil(found["genesis_plus_gx_libretro.info"])
        for (name, groups) in found {
            XCTAssertTrue(groups.allSatisfy { $0.contains("scph55") || $0.contains("sega_101") }, "\(name): \(groups)")
        }
    }

    func testARealCoreWithoutItsBIOSIsRefusedBeforeItLoads() throws {
        let saturn = Fixtures.root + "/build/cores/mednafen_saturn_libretro.so"  // the stable-retro wheel's
        guard FileManager.default.fileExists(atPath: saturn) else { throw XCTSkip("run scripts/setup") }
        try Data("FILE \"x.bin\" BINARY\n".utf8).write(to: URL(fileURLWithPath: folder + "/disc.cue"))
        let result = try Fixtures.cli(
            ["run", folder + "/disc.cue", "--core", saturn, "--system-dir", system, "--headless", "--frames", "3"],
            timeout: 30)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "mpr-17933.bin (Saturn US/EU BIOS), md5 3240872c70984b6cbfda1586cab68dbe: put it at \(system)/mpr-17933.bin"
            ), result.stderr)
    }

    func testPresentFilesRunAndAnotherMD5IsOnlyAWarning() throws {
        let right = Data("a real BIOS".utf8)
        try right.write(to: URL(fileURLWithPath: system + "/good.bin"))
        try Data("another dump".utf8).write(to: URL(fileURLWithPath: system + "/other.bin"))
        let result = try run(
            info: """
                firmware_count = 3
                firmware0_desc = "good.bin (the right one)"
                firmware0_path = "good.bin"
                firmware0_opt = "false"
                firmware1_desc = "other.bin (a revision)"
                firmware1_path = "other.bin"
                firmware1_opt = "false"
                firmware2_desc = "extra.bin"
                firmware2_path = "extra.bin"
                firmware2_opt = "true"
                notes = "(!) good.bin (md5): \(Hashing.md5(right))|(!) other.bin (md5): 0123456789abcdef0123456789abcdef"
                """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "\(system)/other.bin: md5 \(Hashing.md5(Data("another dump".utf8))), but core 'bios' expects "
                    + "0123456789abcdef0123456789abcdef (other.bin (a revision)); it may not work"), result.stderr)
        XCTAssertFalse(result.stderr.contains("good.bin"), result.stderr)
        XCTAssertFalse(result.stderr.contains("extra.bin"), "a missing optional file is fine: \(result.stderr)")
    }

    func testHostileInfoFilesNeitherCrashNorHang() throws {
        try FileManager.default.createDirectory(atPath: system + "/folder.bin", withIntermediateDirectories: true)
        for info in [
            "firmware_count = 99999999999999999999999\nfirmware0_path = \"\"\n",
            "firmware_count = -5\nfirmware0_path = \"x.bin\"\n",
            "firmware_count = 9223372036854775807\nnotes = \"(!) (md5): zz|(!)|(md5):|(!) a (md5): 12\"\n",
            // A folder where a file should be is there but unreadable as a BIOS: a warning, no crash.
            "firmware_count = 1\nfirmware0_path = \"folder.bin\"\nnotes = \"(!) folder.bin (md5): "
                + String(repeating: "a", count: 32) + "\"\n",
        ] {
            let result = try run(info: info)
            XCTAssertEqual(result.status, 0, "\(info): \(result.stderr)")
        }
        // A path that climbs out of the system folder is only looked at, and reported where it points.
        let result = try run(info: "firmware_count = 1\nfirmware0_path = \"../../nowhere/bios.bin\"\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("put it at \(system)/../../nowhere/bios.bin"), result.stderr)
    }

    func testNotesGiveMD5sByFileName() {
        let files = CoreFirmware.list(
            infoText: """
                firmware_count = 2
                firmware0_path = "dc/dc_boot.bin"
                firmware0_desc = "Dreamcast BIOS"
                firmware1_path = "dc/dc_flash.bin"
                firmware1_opt = "TRUE"
                notes = "(!) dc_boot.bin (md5): E10C53C2F8B90BAB96EAD2D368858623|[i] other notes"
                """, systemFolder: "/s")
        XCTAssertEqual(
            files,
            [
                FirmwareFile(
                    path: "dc/dc_boot.bin", description: "Dreamcast BIOS", optional: false,
                    md5: "e10c53c2f8b90bab96ead2d368858623", fullPath: "/s/dc/dc_boot.bin"),
                FirmwareFile(
                    path: "dc/dc_flash.bin", description: "dc/dc_flash.bin", optional: true, md5: nil,
                    fullPath: "/s/dc/dc_flash.bin"),
            ])
    }
}
