import Foundation
import Support
import Glibc

/// Who may drive the emulator through the socket. Loopback TCP is open to every local user, so a
/// TCP connection's first request must be `{"cmd": "hello", "token": "…"}` with the run's token; a
/// Unix socket admits only peers of the emulator's own uid (`SO_PEERCRED`).
public struct ControlAccess: Sendable {
    /// The token TCP clients must show (nil: a Unix socket, where the peer's uid decides).
    public let token: String?

    public init(token: String?) { self.token = token }

    /// 128 random bits as 32 hex digits (the system generator: getrandom).
    public static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
    }

    /// A token given by the user (`--control-token FILE`): its first line, at least 16 characters.
    public static func readToken(from path: String) throws(ControlError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ControlError("--control-token \(path): cannot read the token file")
        }
        let token = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces)
        guard token.utf8.count >= 16, token.utf8.count <= 256 else {
            throw ControlError("--control-token \(path): the token must be 16 to 256 characters on the first line")
        }
        return token
    }

    /// Where a run's generated token is kept: beside the data folder, named by the port.
    public static func tokenFile(dataFolder: String, port: String) -> String {
        FilePath.folder(of: dataFolder) + "/control-" + port + ".token"
    }

    /// Writes the token readable by the user alone (0600 from creation, then renamed into place).
    public static func writeToken(_ token: String, to path: String) throws(ControlError) {
        let folder = FilePath.folder(of: path)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ControlError("cannot write the control token to \(path): \(lastError())") }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        let synced = fsync(fd) == 0
        Glibc.close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ControlError("cannot write the control token to \(path): \(lastError())")
        }
    }

    /// The reply to a connection's first request: nil admits it; otherwise the refusal to send
    /// before closing it.
    func checkHello(_ line: ArraySlice<UInt8>) -> String? {
        let request = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
        guard let request, request["cmd"] as? String == "hello" else {
            return
                """
                this control socket needs {"cmd": "hello", "token": "…"} as the first request (the token is \
                printed when the run starts and kept in control-PORT.token beside the data folder)
                """
        }
        guard let given = request["token"] as? String else { return "hello needs \"token\": a string" }
        return Self.same(given, token ?? "") ? nil : "wrong control token"
    }

    /// Compares every byte whatever the first difference (no timing hint about the token).
    static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count, !b.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The uid at the other end of a Unix socket (nil when the kernel does not say).
    static func peerUID(_ fd: Int32) -> uid_t? {
        // struct ucred (pid, uid, gid): Glibc leaves it out without _GNU_SOURCE.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            length == socklen_t(MemoryLayout.size(ofValue: credentials))
        else { return nil }
        return credentials.uid
    }

    /// A Unix peer is admitted only when it runs as the emulator's own user.
    static func admits(peer: uid_t?, own: uid_t) -> String? {
        guard let peer else { return "the control socket could not tell who connected; refusing" }
        return peer == own ? nil : "this control socket serves uid \(own) only; refusing uid \(peer)"
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
