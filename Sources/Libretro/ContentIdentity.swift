import Support

/// What identifies a game whatever its file is called: the SHA-1 of its bytes without the copier or
/// container header some dumps carry (as RetroAchievements hashes them), so a renamed ROM keeps its
/// saves and two different ROMs that share a name never share one.
extension Content {
    /// The SHA-1 of the content without its header (40 hex digits; empty when unreadable).
    public var identity: String {
        hash("identity") { bytes in
            let skip = Self.headerLength(bytes, fileExtension: fileExtension)
            return Hashing.sha1(UnsafeRawBufferPointer(rebasing: bytes[skip...]))
        }
    }

    /// The MD5 of the same bytes (hex): what FCEUX's `.fm2` `romChecksum` carries (in base64).
    public var identityMD5: String {
        hash("identity-md5") { bytes in
            let skip = Self.headerLength(bytes, fileExtension: fileExtension)
            return Hashing.md5(UnsafeRawBufferPointer(rebasing: bytes[skip...]))
        }
    }

    /// Header bytes to leave out of the identity: iNES and FDS (16), Atari Lynx (64), Atari 7800 (128),
    /// and the 512-byte copier headers of SNES and PC Engine dumps (sizes 512 past a whole bank).
    static func headerLength(_ bytes: UnsafeRawBufferPointer, fileExtension: String) -> Int {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && zip(bytes[offset...], magic).allSatisfy { $0 == $1 }
        }
        let length: Int
        if starts(Array("NES".utf8) + [0x1A]) || starts(Array("FDS".utf8) + [0x1A]) {
            length = 16
        } else if starts(Array("LYNX".utf8) + [0]) {
            length = 64
        } else if starts(Array("ATARI7800".utf8), at: 1) {
            length = 128
        } else if Self.copierHeaderExtensions.contains(fileExtension) && bytes.count % 8192 == 512 {
            length = 512  // SNES (SMC/SWC) and PC Engine copier headers
        } else {
            length = 0
        }
        return length < bytes.count ? length : 0
    }

    static let copierHeaderExtensions: Set = ["sfc", "smc", "swc", "fig", "pce"]
}
