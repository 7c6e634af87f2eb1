import Scripting

/// `--netplay host|join --netplay-relay HOST[:PORT] --netplay-room SECRET`: a session that meets its other
/// player in a room of a `retrolua netplay-relay` (lua/retrolua/netplay_room.lua) instead of at an address.
enum NetplayRoomArguments {
    /// The relayed session the options ask for; nil when they name no relay (a direct session).
    static func request(_ value: String, _ args: Arguments) throws -> NetplayRequest? {
        let relay = args.value("netplay-relay"), room = args.value("netplay-room")
        guard relay != nil || room != nil else { return nil }
        guard let relay, let room else {
            throw Arguments.UsageError(description: "--netplay-relay and --netplay-room go together")
        }
        guard value == "host" || value == "join" else {
            throw Arguments.UsageError(
                description: "through a relay, --netplay takes host or join (the relay is the address), got '\(value)'")
        }
        guard !room.isEmpty, room.utf8.count <= 256 else {
            throw Arguments.UsageError(description: "--netplay-room needs a secret of 1…256 bytes")
        }
        var request = NetplayRequest(
            mode: value == "host" ? .host : .join, address: relayAddress(relay))
        request.relay = request.address
        request.room = room
        return request
    }

    /// The room's options without `--netplay`.
    static func refuseWithoutNetplay(_ args: Arguments) throws {
        if args.value("netplay-relay") != nil || args.value("netplay-room") != nil {
            throw Arguments.UsageError(description: "--netplay-relay and --netplay-room apply to --netplay")
        }
    }

    /// `HOST` → `HOST:55436`; `[V6]` and a bare IPv6 address get brackets.
    static func relayAddress(_ address: String) -> String {
        let port = NetplayRelayDefaults.port
        if address.hasPrefix("[") { return address.hasSuffix("]") ? address + ":\(port)" : address }
        let colons = address.filter { $0 == ":" }.count
        if colons == 0 { return address + ":\(port)" }
        if colons > 1 { return "[\(address)]:\(port)" }
        return address
    }
}
