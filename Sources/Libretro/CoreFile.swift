import Glibc

/// Checks a core file before `dlopen` touches it: a file that is not an ELF shared library for this
/// machine, or that is shorter than its own headers say (a truncated download faults with SIGBUS
/// inside the loader), is refused with an error naming it.
public enum CoreFile {
    public static func check(path: String) throws(RetroError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .notALibrary(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .notALibrary(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        let header = read(fd, at: 0, count: 64)
        guard header.count == 64, Array(header[0..<4]) == [0x7F, 0x45, 0x4C, 0x46] else {
            throw .notALibrary(path: path, reason: "not an ELF file (\(size) bytes; a core is a .so shared library)")
        }
        guard header[4] == 2, header[5] == 1, header.u16(16) == 3 else {
            throw .notALibrary(path: path, reason: "not a 64-bit little-endian ELF shared library")
        }
        guard header.u16(18) == machine else {
            throw .notALibrary(path: path, reason: "built for another processor (ELF machine \(header.u16(18)))")
        }
        let (phoff, phsize, phnum) = (header.u64(32), Int(header.u16(54)), Int(header.u16(56)))
        let (shoff, shsize, shnum) = (header.u64(40), Int(header.u16(58)), Int(header.u16(60)))
        let truncated = RetroError.notALibrary(path: path, reason: "truncated (\(size) bytes; its headers say more)")
        guard fits(phoff, phsize * phnum, in: size), shoff == 0 || fits(shoff, shsize * shnum, in: size),
            phsize >= 56
        else { throw truncated }
        let table = read(fd, at: Int(phoff), count: phsize * phnum)
        guard table.count == phsize * phnum else { throw truncated }
        for index in 0..<phnum {
            let entry = Array(table[index * phsize..<(index + 1) * phsize])
            // PT_LOAD segments are mapped from the file: each must lie within it.
            if entry.u32(0) == 1 && !fits(entry.u64(8), entry.u64(32), in: size) { throw truncated }
        }
    }

    #if arch(x86_64)
        private static let machine: UInt16 = 62
    #elseif arch(arm64)
        private static let machine: UInt16 = 183
    #else
        private static let machine: UInt16 = 0
    #endif

    private static func fits(_ offset: UInt64, _ length: some BinaryInteger, in size: Int) -> Bool {
        guard let length = UInt64(exactly: length) else { return false }
        let (end, overflow) = offset.addingReportingOverflow(length)
        return !overflow && end <= UInt64(max(size, 0))
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return got == count ? bytes : Array(bytes.prefix(max(got, 0)))
    }
}

extension Array where Element == UInt8 {
    fileprivate func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    fileprivate func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) } }
    fileprivate func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) } }
}
