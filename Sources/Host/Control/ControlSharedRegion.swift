import Glibc

/// Memory shared with one binary-door client: an unnamed POSIX shared-memory object (created, then
/// unlinked at once, so nothing is left on disk whatever happens), mapped here and handed to the
/// peer as a file descriptor over the Unix socket (SCM_RIGHTS). The host writes frames, RAM, sound
/// and states into it; the client reads them in place.
final class ControlSharedRegion {
    let fd: Int32
    let size: Int
    let base: UnsafeMutableRawPointer

    init(size: Int) throws(ControlError) {
        let name = "/retrolua-\(getpid())-\(ControlAccess.generateToken().prefix(16))"
        let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ControlError("binary: cannot create shared memory: \(Self.lastError())") }
        shm_unlink(name)
        guard ftruncate(fd, off_t(size)) == 0 else {
            Glibc.close(fd)
            throw ControlError("binary: cannot size shared memory to \(size) bytes: \(Self.lastError())")
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
