import Foundation
import Support

/// `retrolua netplay-relay [PORT]`: the rendezvous both players of a netplay session dial out to, so
/// neither needs an open port (NetplayRelay; lua/retrolua/netplay_room.lua is the players' side).
enum NetplayRelayCommand {
    static let spec = CommandSpec(
        name: "netplay-relay", summary: "relay netplay sessions between players behind NAT (rooms on one UDP port)",
        usage: ["netplay-relay [PORT] [--bind HOST] [--quiet]"],
        description: """
            Listens on UDP port PORT (default \(NetplayRelayDefaults.port)) for players started with
            `--netplay host|join --netplay-relay THIS_HOST[:PORT] --netplay-room SECRET`, seats the two of a room
            (named by a hash of the secret and the content, so the relay learns neither) and passes each one's
            datagrams to the other unchanged. The players sign every packet with a key from the secret, so the
            relay can neither read the secret nor forge, only drop. An address gets a seat only after echoing a
            cookie (a forged source cannot), no reply is larger than what it answers, what a seat sends on is
            limited to 4 MiB/s, and a seat silent for 30 s empties. Prints a line per player that comes or
            goes; runs until SIGINT or SIGTERM.
            """,
        groups: [
            OptionGroup([
                Option("bind", "HOST", "the address to listen on (default *: every address)"),
                Option("quiet", nil, "print only the listening line"),
            ])
        ], takesFiles: false)

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch {
            usageFail("netplay-relay: \(error)", command: "netplay-relay")
        }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count <= 1 else {
            usageFail("netplay-relay: expected at most a PORT", command: "netplay-relay")
        }
        var port = NetplayRelayDefaults.port
        if let text = args.positionals.first {
            guard let number = Int(text), (0...65535).contains(number) else {
                usageFail("netplay-relay: PORT must be 0…65535, got '\(text)'", command: "netplay-relay")
            }
            port = number
        }
        let host = args.value("bind") ?? "*"
        let bound = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let socket: DatagramSocket
        do { socket = try DatagramSocket(binding: bound) } catch { fail("netplay-relay: \(error.description)") }
        StopSignals.install()
        let quiet = args.flag("quiet")
        let relay = NetplayRelay(socket: socket) { line in
            if !quiet { say(line) }
        }
        say("listening on \(socket.localAddress)")
        relay.serve()
        let counters = relay.counters
        say(
            "\(counters.received) datagrams in (\(counters.receivedBytes) bytes), "
                + "\(counters.forwarded) passed on (\(counters.forwardedBytes) bytes), \(counters.replies) replies "
                + "(\(counters.replyBytes) bytes), \(counters.dropped) dropped, \(counters.overBudget) over budget")
        exit(StopSignals.exitStatus ?? 0)
    }

    /// A line on stdout at once (not buffered: a pipe reads each as it comes).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("netplay-relay: \(line)\n".utf8))
    }
}
