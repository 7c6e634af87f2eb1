import Foundation

/// `--netplay host[:PORT]`, `--netplay join ADDRESS` or `retrolua netplay-check`: the session the
/// netplay default (lua/defaults/netplay.lua) starts, handed to it by `net.netplay()`.
public struct NetplayRequest: Sendable, Equatable {
    public enum Mode: String, Sendable {
        /// Listen for one player on `address` (`*:PORT`).
        case host
        /// Connect to the host at `address` (`HOST:PORT`).
        case join
        /// No peer: roll back every frame and check the replay (`retrolua netplay-check`).
        case check
    }

    /// RetroArch's netplay port, so a forwarded port serves both.
    public static let defaultPort = 55435

    public var mode: Mode
    public var address: String
    /// `--netplay-delay`: frames of input delay (nil: the netplay settings' own).
    public var delay: Int?
    /// `--netplay-options host`: a joiner takes the host's deciding core options (nil: refused on a difference).
    public var options: String?
    /// `--netplay-room`: the secret that names the room on a relay and keys its packets (nil: no relay).
    public var room: String?
    /// `--netplay-relay`: the relay's `HOST:PORT` both players dial out to.
    public var relay: String?
    /// `netplay-check`: frames to run and frames rolled back each one.
    public var frames: Int?
    public var rollback: Int?
    /// `netplay-check --buttons`: the RetroPad mask its random input presses (nil: all but select and start).
    public var buttons: Int?
    /// `--spectate`: join as a spectator, fed the session's confirmed inputs, sending none.
    public var spectate = false

    public init(mode: Mode, address: String = "", delay: Int? = nil) {
        self.mode = mode
        self.address = address
        self.delay = delay
    }

    /// `host`, `host:PORT`, or `join ADDRESS` (`HOST[:PORT]`, `[V6][:PORT]`).
    public static func parse(_ value: String) throws(RequestError) -> NetplayRequest {
        if value == "host" { return NetplayRequest(mode: .host, address: "*:\(defaultPort)") }
        if value.hasPrefix("host:") {
            guard let port = Int(value.dropFirst(5)), (1...65535).contains(port) else {
                throw RequestError("--netplay host:PORT needs a port 1…65535, got '\(value.dropFirst(5))'")
            }
            return NetplayRequest(mode: .host, address: "*:\(port)")
        }
        guard value == "join" || value.hasPrefix("join ") else {
            throw RequestError("--netplay expects host, host:PORT or join ADDRESS, got '\(value)'")
        }
        let address = value.dropFirst(4).trimmingCharacters(in: .whitespaces)
        guard !address.isEmpty else {
            throw RequestError("--netplay join needs the host's ADDRESS (HOST or HOST:PORT)")
        }
        return NetplayRequest(mode: .join, address: withPort(address))
    }

    /// `HOST` → `HOST:55435`; `[V6]` and a bare IPv6 address get brackets.
    static func withPort(_ address: String) -> String {
        if address.hasPrefix("[") { return address.hasSuffix("]") ? address + ":\(defaultPort)" : address }
        let colons = address.filter { $0 == ":" }.count
        if colons == 0 { return address + ":\(defaultPort)" }
        if colons > 1 { return "[\(address)]:\(defaultPort)" }
        return address
    }

    public struct RequestError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
