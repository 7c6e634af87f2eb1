import Glibc

/// Memory shared with one binary-door client: an anonymous memory file (`memfd_create`: nothing on
/// disk whatever happens), mapped here and handed to the peer as a file descriptor over the Unix socket
/// (SCM_RIGHTS). The host writes frames, RAM, sound and states into it; the client reads them in place
/// and writes states to load into it. The file is sealed at its size before it is handed over: a
/// client that truncates it (which would make the host's next access to the mapping a SIGBUS) gets
/// EPERM, and no seal can be lifted. It stays writable: the client writes into it.
final class ControlSharedRegion {
    let fd: Int32
    let size: Int
    let base: UnsafeMutableRawPointer

    init(size: Int) throws(ControlError) {
        guard let create = Self.memfdCreate else {
            throw ControlError("binary: cannot create shared memory: this C library has no memfd_create")
        }
        let fd = create("retrolua-binary-door", Self.closeOnExec | Self.allowSealing)
        guard fd >= 0 else { throw ControlError("binary: cannot create shared memory: \(Self.lastError())") }
        guard ftruncate(fd, off_t(size)) == 0 else {
            Glibc.close(fd)
            throw ControlError("binary: cannot size shared memory to \(size) bytes: \(Self.lastError())")
        }
        guard fcntl(fd, Self.addSeals, Self.sealShrink | Self.sealGrow | Self.sealSeal) == 0 else {
            Glibc.close(fd)
            throw ControlError("binary: cannot seal shared memory at its size: \(Self.lastError())")
        }
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else {
            Glibc.close(fd)
            throw ControlError("binary: cannot map shared memory: \(Self.lastError())")
        }
        self.fd = fd
        self.size = size
        self.base = mapped
    }

    // memfd_create and its seals (<sys/mman.h> and <fcntl.h> under _GNU_SOURCE, which Swift's Glibc
    // module does not import): glibc 2.27's function, looked up once, and the kernel's constants.
    private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    private static let memfdCreate: MemfdCreate? = dlsym(nil, "memfd_create").map {
        unsafeBitCast($0, to: MemfdCreate.self)
    }
    private static let closeOnExec: UInt32 = 0x1  // MFD_CLOEXEC
    private static let allowSealing: UInt32 = 0x2  // MFD_ALLOW_SEALING
    private static let addSeals: Int32 = 1033  // F_ADD_SEALS (F_LINUX_SPECIFIC_BASE + 9)
    private static let sealSeal: Int32 = 0x1, sealShrink: Int32 = 0x2, sealGrow: Int32 = 0x4

    deinit {
        munmap(base, size)
        Glibc.close(fd)
    }

    /// Sends `line` with the region's descriptor attached (one sendmsg); false when the socket does
    /// not take it all at once (the peer has unread replies: the switch is refused then).
    func send(_ line: [UInt8], over socket: Int32) -> Bool {
        // struct cmsghdr (len, level, type) followed by one int, padded to 8 bytes: CMSG_SPACE(4).
        let headerSize = MemoryLayout<cmsghdr>.size
        let space = headerSize + 8
        var control = [UInt8](repeating: 0, count: space)
        var sent = -1
        control.withUnsafeMutableBytes { raw in
            var header = cmsghdr()
            header.cmsg_len = headerSize + MemoryLayout<Int32>.size
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = Int32(SCM_RIGHTS)
            raw.storeBytes(of: header, as: cmsghdr.self)
            raw.storeBytes(of: fd, toByteOffset: headerSize, as: Int32.self)
            var bytes = line
            bytes.withUnsafeMutableBytes { payload in
                var vector = iovec(iov_base: payload.baseAddress, iov_len: payload.count)
                withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = raw.baseAddress
                    message.msg_controllen = space
                    sent = sendmsg(socket, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
            }
        }
        return sent == line.count
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
