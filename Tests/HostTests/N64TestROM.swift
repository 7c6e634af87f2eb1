import Foundation
import XCTest

/// A tiny N64 program of our own (Tests/content/n64_boot.s) as a big-endian .z64, assembled with Debian's
/// MIPS binutils: parallel_n64's content for the GL and netplay tests.
enum N64TestROM {
    /// A 64-byte header, our boot code where IPL3 would be, zeros after; skips without the assembler.
    static func make(in folder: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mips-linux-gnu-as") else {
            throw XCTSkip("binutils-mips-linux-gnu not installed (scripts/setup)")
        }
        let object = folder + "/boot.o", linked = folder + "/boot.elf", binary = folder + "/boot.bin"
        try Fixtures.tool(
            "/usr/bin/mips-linux-gnu-as", ["-mips3", "-EB", "-o", object, Fixtures.root + "/Tests/content/n64_boot.s"])
        try Fixtures.tool(
            "/usr/bin/mips-linux-gnu-ld", ["-EB", "-Ttext=0xA4000040", "-e", "start", "-o", linked, object])
        try Fixtures.tool("/usr/bin/mips-linux-gnu-objcopy", ["-O", "binary", "-j", ".text", linked, binary])
        let boot = try Data(contentsOf: URL(fileURLWithPath: binary))
        var rom = [UInt8](repeating: 0, count: 0x10_1000)
        let header: [UInt32] = [0x8037_1240, 0x0000_000F, 0x8000_0400, 0x0000_144C]
        for (index, word) in header.enumerated() {
            for byte in 0..<4 { rom[index * 4 + byte] = UInt8(truncatingIfNeeded: word >> (24 - 8 * byte)) }
        }
        rom.replaceSubrange(0x20..<0x34, with: Array("RETROLUA GL TEST    ".utf8))
        rom.replaceSubrange(0x40..<0x40 + boot.count, with: boot)
        let path = folder + "/gl_test.z64"
        try Data(rom).write(to: URL(fileURLWithPath: path))
        return path
    }
}
