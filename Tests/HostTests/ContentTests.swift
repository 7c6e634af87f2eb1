@testable import Emulation
import Foundation
@testable import Libretro
import Support
import XCTest

/// Zipped content, playlists and core choice with real cores (Debian's and build/cores) on our ROMs,
/// zipped here; the hostile archives and playlists a stranger could hand over.
final class ContentTests: XCTestCase {
    static let bundled = Fixtures.root + "/build/cores"
    let folder = Fixtures.temporaryFolder()

    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A zip of `members` in the test folder.
    func zip(_ name: String, _ members: [(String, [UInt8])]) throws -> String {
        let path = folder + "/" + name
        try Data(ZipArchive.write(members.map { (name: $0.0, bytes: $0.1) })).write(to: URL(fileURLWithPath: path))
        return path
    }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func bundledCore(_ name: String) throws -> String {
        let path = Self.bundled + "/\(name)_libretro.so"
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("\(path) missing: run scripts/setup") }
        return path
    }

    /// The picture's hash after 30 frames, the content's identity and file name.
    func play(_ rom: String, core: String?) throws -> (picture: [UInt8], sha1: String, name: String, member: String?) {
        let session = try Fixtures.session(rom: rom, core: core, folder: folder)
        defer { try? session.close() }
        session.run(30)
        let picture = session.core.currentFrame()?.rgba() ?? []
        return (
            Array(Hashing.sha1(picture).utf8), session.content!.sha1, session.content!.fileName, session.content!.member
        )
    }

    func testZippedROMsRunAsTheROMsOnRealCores() throws {
        let nes = try zip("demo.zip", [("readme.txt", Array("hi".utf8)), ("demo.nes", bytes(Fixtures.nesROM))])
        let gb = try zip("gb.zip", [("demo.gb", bytes(Fixtures.gbROM))])
        let cases = [
            (nes, Fixtures.nesROM, "nestopia"), (nes, Fixtures.nesROM, try bundledCore("fceumm")),
            (gb, Fixtures.gbROM, "gambatte"), (gb, Fixtures.gbROM, "mgba"),
        ]
        // The other systems' homebrew ROMs, where scripts/setup has built them.
        var more: [(String, String, String)] = []
        for (rom, core) in [
            ("demo.sfc", "snes9x"), ("demo.gba", "mgba"), ("demo.a26", "stella"), ("demo.pce", "mednafen_pce_fast"),
        ] {
            let plain = Fixtures.root + "/build/roms/" + rom
            guard FileManager.default.fileExists(atPath: plain) else { continue }
            let corePath = core == "mgba" ? core : try bundledCore(core)
            more.append((try zip(rom + ".zip", [(rom, bytes(plain))]), plain, corePath))
        }
        for (zipped, plain, core) in cases + more {
            let fromZip = try play(zipped, core: core)
            let direct = try play(plain, core: core)
            XCTAssertEqual(fromZip.picture, direct.picture, "\(core): same game, same picture")
            XCTAssertEqual(fromZip.sha1, direct.sha1, "\(core): the identity is the member's, not the container's")
            XCTAssertEqual(fromZip.name, FilePath.fileName(of: plain))
            XCTAssertEqual(fromZip.member, FilePath.fileName(of: plain))
        }
    }

    /// genesis_plus_gx reads its content by path: the member goes to a private file, removed with the content.
    func testFullpathCoreGetsAPrivateCopyRemovedAfterwards() throws {
        let rom = Fixtures.root + "/build/roms/airstriker.md"
        guard FileManager.default.fileExists(atPath: rom) else { throw XCTSkip("no Airstriker ROM") }
        let zipped = try zip("air.zip", [("sub/airstriker.md", bytes(rom))])
        var extracted = ""
        do {
            let session = try Fixtures.session(rom: zipped, core: try bundledCore("genesis_plus_gx"), folder: folder)
            extracted = session.content!.corePath
            XCTAssertNotEqual(extracted, zipped)
            XCTAssertTrue(extracted.hasSuffix("/airstriker.md"), extracted)
            var info = stat()
            XCTAssertEqual(stat(FilePath.folder(of: extracted), &info), 0)
            XCTAssertEqual(info.st_mode & 0o777, 0o700, "only this user may enter the folder")
            session.run(60)
            XCTAssertEqual(session.content!.sha1, Hashing.sha1(try bytes(rom)))
            try session.close()
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: FilePath.folder(of: extracted)), "removed")
    }

    /// Archives a stranger could hand over: each refused with the archive named, nothing written outside.
    func testHostileArchivesAreRefusedWithTheirNames() throws {
        let nes = try bytes(Fixtures.nesROM)
        let noMember = try zip("docs.zip", [("readme.txt", Array("x".utf8)), ("cover.png", [1, 2, 3])])
        let corrupt = folder + "/corrupt.zip"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: corrupt))
        var truncatedBytes = try bytes(try zip("whole.zip", [("demo.nes", nes)]))
        truncatedBytes.removeLast(40)
        let truncated = folder + "/truncated.zip"
        try Data(truncatedBytes).write(to: URL(fileURLWithPath: truncated))
        var damagedBytes = try bytes(try zip("whole2.zip", [("demo.nes", nes)]))
        for offset in 60..<90 { damagedBytes[offset] ^= 0x5A }  // inside the deflated data
        let damaged = folder + "/damaged.zip"
        try Data(damagedBytes).write(to: URL(fileURLWithPath: damaged))
        let escaping = try zip("escape.zip", [("../evil.nes", nes), ("/abs.nes", nes)])
        let cases: [(String, [String])] = [
            (noMember, ["docs.zip", "no member with an extension", ".nes", "readme.txt"]),
            (corrupt, ["corrupt.zip", "not a zip archive"]),
            (truncated, ["truncated.zip"]),
            (damaged, ["damaged.zip", "member 'demo.nes' is corrupt"]),
            (escaping, ["escape.zip", "'../evil.nes'", "'/abs.nes'", "leave the archive"]),
            (try bomb(), ["bomb.zip", "demo.nes", "content limit", "before extracting"]),
        ]
        for (path, expected) in cases {
            for core in ["nestopia", try bundledCore("fceumm")] {
                XCTAssertThrowsError(try Fixtures.session(rom: path, core: core, folder: folder), path) { error in
                    for text in expected { XCTAssertTrue("\(error)".contains(text), "\(text) in \(error)") }
                }
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: FilePath.folder(of: folder) + "/evil.nes"))
        // A safe member beside an escaping one is used; the escaping one never is.
        let mixed = try zip("mixed.zip", [("../evil.nes", [0]), ("ok/demo.nes", nes)])
        XCTAssertEqual(try play(mixed, core: "nestopia").member, "ok/demo.nes")
    }

    /// A member declaring 4 GB: refused from its header, before anything is inflated.
    func bomb() throws -> String {
        var archive = try bytes(try zip("bomb-source.zip", [("demo.nes", try bytes(Fixtures.nesROM))]))
        var patched = 0
        for offset in 0..<(archive.count - 46) where Array(archive[offset..<offset + 4]) == [0x50, 0x4B, 0x01, 0x02] {
            archive.replaceSubrange(offset + 24..<offset + 28, with: [0x00, 0xFF, 0xFF, 0xFE])
            patched += 1
        }
        XCTAssertEqual(patched, 1)
        let path = folder + "/bomb.zip"
        try Data(archive).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testPlaylistsRefuseMissingFilesLoopsAndEmptyLists() throws {
        func write(_ name: String, _ text: String) throws -> String {
            let path = folder + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        try FileManager.default.copyItem(atPath: Fixtures.nesROM, toPath: folder + "/demo.nes")
        _ = try write("b.m3u", "demo.nes\na.m3u\n")
        let cases: [(String, [String])] = [
            (
                try write("missing.m3u", "# discs\ndemo.nes\ndisc2.nes\n"),
                ["missing.m3u", "line 3", "'disc2.nes'", "no such file"]
            ),
            (try write("self.m3u", "self.m3u\n"), ["self.m3u", "includes itself", "self.m3u → self.m3u"]),
            (try write("a.m3u", "b.m3u\n"), ["a.m3u", "includes itself", "a.m3u → b.m3u → a.m3u"]),
            (try write("empty.m3u", "# nothing\n\n"), ["empty.m3u", "names no disc"]),
            (try write("folder.m3u", "/\n"), ["folder.m3u", "line 1", "folder"]),
            // Found by the content fuzzer: a line of just "|" crashed the parser (index out of range).
            (try write("bar.m3u", "|"), ["bar.m3u", "line 1", "a label but no file name"]),
            (try write("label.m3u", "demo.nes\n |Disc 2\n"), ["label.m3u", "line 2", "no file name"]),
        ]
        for (path, expected) in cases {
            XCTAssertThrowsError(try Content(path: path), path) { error in
                for text in expected { XCTAssertTrue("\(error)".contains(text), "\(text) in \(error)") }
            }
        }
        // A playlist for a core without disk control plays its first disc.
        let one = try write("one.m3u", "demo.nes|Side A\n")
        XCTAssertEqual(try play(one, core: "nestopia").name, "demo.nes")
    }
}
