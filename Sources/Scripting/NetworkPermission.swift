import CLuaShim
import Foundation
import Support

#if canImport(Glibc)
    import Glibc
#endif

/// The one rule for which addresses a script's sockets may bind, connect and send to. Loopback
/// (127.0.0.0/8, ::1, `localhost`) needs the bare grant (`--allow-net`, or the menu's for one script);
/// any other address needs a grant naming it (`--allow-net=HOST[:PORT],…`) or everything (`--trust`,
/// Retrolua's own defaults). A host name is looked up only when a grant names it.
public struct NetworkPermission: Sendable, Equatable {
    public enum Level: Sendable, Equatable {
        case none, loopback, all
    }

    /// One `HOST[:PORT]` of `--allow-net=…`: the host lower-cased (`*` for every address), nil port: any.
    public struct Grant: Sendable, Equatable {
        public let host: String
        public let port: UInt16?

        /// Parses `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`; nil when it is none of them.
        public init?(_ text: String) {
            var host = text, port: UInt16?
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { return nil }
                host = String(text[text.index(after: text.startIndex)..<close])
                let rest = text[text.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":"), let number = UInt16(rest.dropFirst()) else { return nil }
                    port = number
                }
            } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
                host = String(text[..<colon])
                guard let number = UInt16(text[text.index(after: colon)...]) else { return nil }
                port = number
            }
            let allowed = host.unicodeScalars.allSatisfy {
                ($0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_:*".unicodeScalars.contains($0)))
            }
            guard !host.isEmpty, allowed, host.utf8.count <= 253 else { return nil }
            self.host = host.lowercased()
            self.port = port
        }

        public var text: String {
            let shown = host.contains(":") ? "[\(host)]" : host
            return port.map { "\(shown):\($0)" } ?? shown
        }

        func matches(_ host: String, _ port: UInt16) -> Bool {
            guard self.port == nil || self.port == port else { return false }
            if self.host == host.lowercased() { return true }
            // Numeric addresses match however they are written (::1 and 0:0::1).
            guard let mine = SocketAddress.numeric(self.host, 0), let theirs = SocketAddress.numeric(host, 0) else {
                return false
            }
            return SocketAddress.text(of: mine) == SocketAddress.text(of: theirs)
        }
    }

    public var level: Level
    public var grants: [Grant]

    public init(level: Level, grants: [Grant] = []) {
        self.level = level
        self.grants = grants
    }

    /// Where a socket may go: a resolved address, or every address (binding `*`).
    public enum Target {
        case address(sockaddr_storage)
        case everyAddress(port: UInt16)
    }

    /// The message a script without any network permission gets.
    public static let refusal =
        "network access needs --allow-net (loopback only), or \"allow loopback network\" for this script on the "
        + "menu's Scripts page; see docs/guides/security.md"

    /// `address` (`HOST:PORT`) resolved, when this permission reaches it; `binding`: to listen or bind on.
    public func resolve(_ address: String, binding: Bool) throws(SocketFailure) -> Target {
        guard level != .none else { throw SocketFailure(Self.refusal) }
        let (host, port) = try SocketAddress.split(address)
        let verb = binding ? "binding" : "reaching"
        if host == "*" {
            guard binding else { throw SocketFailure("'\(address)': * is for binding (every address)") }
            guard level == .all || grants.contains(where: { $0.matches("*", port) }) else {
                throw SocketFailure(
                    "binding every address (\(address)) reaches other machines: it needs --allow-net=*:\(port) "
                        + "or --trust; bind 127.0.0.1:\(port) for loopback")
            }
            return .everyAddress(port: port)
        }
        let numericHost = host.lowercased() == "localhost" ? "127.0.0.1" : host
        if let numeric = SocketAddress.numeric(numericHost, port) {
            if SocketAddress.isLoopback(numeric) || level == .all || grants.contains(where: { $0.matches(host, port) })
            {
                return .address(numeric)
            }
            let shown = host.contains(":") ? "[\(host)]" : host
            throw SocketFailure(
                "\(verb) \(address) (not loopback) needs --allow-net=\(shown):\(port) or --trust")
        }
        guard level == .all || grants.contains(where: { $0.matches(host, port) }) else {
            throw SocketFailure(
                "\(verb) \(address): a host name is looked up only when granted; it needs --allow-net=\(host) "
                    + "or --trust (loopback: 127.0.0.1, ::1 or localhost)")
        }
        // A lookup waits on the system's resolver (bounded by its own timeouts): the host's time, not the
        // script's, so the runaway-script clock does not count it.
        lh_host_work_begin()
        defer { lh_host_work_end() }
        return .address(try SocketAddress.resolve(host, port, passive: binding))
    }

    /// What `net.allowed()` reports: the level's name and the granted addresses.
    public var summary: (level: String?, grants: [String]) {
        switch level {
        case .none: return (nil, [])
        case .loopback: return ("loopback", grants.map(\.text))
        case .all: return ("all", grants.map(\.text))
        }
    }
}

extension Script {
    /// This script's network permission: everything for `--trust` and Retrolua's own defaults (netplay
    /// acts for the person who asked for it), loopback plus the grants for `--allow-net` or the menu's
    /// grant for this script's content, else none.
    var networkPermission: NetworkPermission {
        if host.options.trust || isFrontendDefault { return NetworkPermission(level: .all) }
        if host.options.allowNet || hasMenuNetworkGrant {
            return NetworkPermission(level: .loopback, grants: host.options.netGrants)
        }
        return NetworkPermission(level: .none)
    }

    /// Whether the person let this script (this path, this content) reach loopback from the menu.
    var hasMenuNetworkGrant: Bool {
        guard let contentSHA1 else { return false }
        return host.networkGrants.isGranted(path: path, sha1: contentSHA1)
    }

    /// The permission when the script has any; nil after noting the refusal, so the menu offers the grant.
    func networkAccess() -> NetworkPermission? {
        let permission = networkPermission
        guard permission.level == .none else { return permission }
        if isFromFile { host.networkRefused.insert(path) }
        return nil
    }
}
