import Foundation
import Support

enum NetplayRelayDefaults {
    static let port = 55436
}

/// The relay's wire format (docs/guides/netplay.md, "Over the internet"; lua/retrolua/netplay_room.lua).
enum RelayWire {
    static let magic = Array("RLRY".utf8)
    static let version: UInt8 = 1
    static let headerSize = 6
    /// A JOIN is padded to this size, so every reply to it (a cookie, the room, full) is smaller.
    static let joinSize = 64
    static let roomSize = 16

    enum Kind: UInt8 {
        case join = 1, cookie, room, data, full, leave
    }

    static func header(_ kind: Kind) -> [UInt8] { magic + [version, kind.rawValue] }

    /// The first five bytes of a room id in base32, `ABCD-EFGH`: what both players and the relay show.
    static func code(_ room: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let bits = room.prefix(5).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let letters = (0..<8).map { alphabet[Int(bits >> UInt64(35 - 5 * $0) & 31)] }
        return String(letters[0..<4]) + "-" + String(letters[4...])
    }
}

/// `retrolua netplay-relay`'s rooms: each a room id (a hash the players derive from their secret and the
/// content; the relay never sees either) with two seats, the host's and the joiner's. A datagram from a
/// seated address goes, unchanged, to the other seat; anything from an address without a seat is dropped
/// unanswered, except a JOIN, which gets a cookie until it echoes one (so a forged source cannot take a
/// seat) and never a reply larger than itself. What a member sends on is under a byte budget; seats
/// empty after `silence` seconds without a datagram.
final class NetplayRelay {
    struct Member {
        var address: String
        var lastHeard: Double
        var tokens: Double
        var refilled: Double
    }

    struct Counters {
        var received = 0, receivedBytes = 0, forwarded = 0, forwardedBytes = 0, replies = 0, replyBytes = 0
        var dropped = 0, overBudget = 0
    }

    static let silence = 30.0
    /// A seat whose occupant has been silent this long goes to a new player (one that restarted).
    static let takeover = 5.0
    static let maxRooms = 4096
    /// Seats one host (an IP address, whatever its ports) may hold, so one machine cannot take every room.
    static let seatsPerHost = 64
    static let rate = 4.0 * 1_048_576
    static let burst = 256.0 * 1024
    static let cookieEpoch = 30.0

    let socket: DatagramSocket
    private(set) var counters = Counters()
    private var rooms: [[UInt8]: [Member?]] = [:]
    private var seats: [String: (room: [UInt8], slot: Int)] = [:]
    private var hostSeats: [String: Int] = [:]
    private let log: (String) -> Void

    init(socket: DatagramSocket, log: @escaping (String) -> Void) {
        self.socket = socket
        self.log = log
    }

    var roomCount: Int { rooms.count }

    static func now() -> Double { ProcessInfo.processInfo.systemUptime }

    /// Until a stop signal: every waiting datagram handled, silent seats emptied once a second.
    func serve() {
        var lastSweep = Self.now()
        while !StopSignals.isRequested {
            _ = socket.wait(milliseconds: 250)
            for _ in 0..<4096 {
                guard let (bytes, from) = socket.receive() else { break }
                handle(Array(bytes), from: from, at: Self.now())
            }
            let time = Self.now()
            if time - lastSweep >= 1 {
                sweep(time)
                lastSweep = time
            }
        }
    }

    func handle(_ bytes: [UInt8], from: String, at time: Double) {
        counters.received += 1
        counters.receivedBytes += bytes.count
        guard bytes.count >= RelayWire.headerSize, bytes[0..<4].elementsEqual(RelayWire.magic),
            bytes[4] == RelayWire.version, let kind = RelayWire.Kind(rawValue: bytes[5])
        else {
            counters.dropped += 1
            return
        }
        switch kind {
        case .join: join(bytes, from: from, at: time)
        case .data: forward(bytes, from: from, at: time)
        case .leave: leave(from, reason: "left")
        case .cookie, .room, .full: counters.dropped += 1
        }
    }

    /// JOIN: u8 seat (1 host, 2 joiner), the room id (16 bytes), the cookie (16 bytes; zeros: none), padding.
    private func join(_ bytes: [UInt8], from: String, at time: Double) {
        let roomStart = RelayWire.headerSize + 1, cookieStart = roomStart + RelayWire.roomSize
        guard bytes.count >= RelayWire.joinSize, bytes[6] == 1 || bytes[6] == 2 else {
            counters.dropped += 1
            return
        }
        let slot = Int(bytes[6]) - 1
        let room = Array(bytes[roomStart..<cookieStart])
        let cookie = Array(bytes[cookieStart..<cookieStart + AddressCookie.size])
        guard cookie == self.cookie(from, room, time) || cookie == self.cookie(from, room, time - Self.cookieEpoch)
        else {
            reply(RelayWire.header(.cookie) + self.cookie(from, room, time), to: from, answering: bytes.count)
            return
        }
        if let seat = seats[from], seat.room != room || seat.slot != slot { leave(from, reason: "moved") }
        guard var members = rooms[room] ?? (rooms.count < Self.maxRooms ? [nil, nil] : nil),
            seats[from] != nil || hostSeats[Self.host(of: from), default: 0] < Self.seatsPerHost
        else {
            reply(RelayWire.header(.full), to: from, answering: bytes.count)
            return
        }
        if let occupant = members[slot], occupant.address != from {
            guard time - occupant.lastHeard > Self.takeover else {
                reply(RelayWire.header(.full), to: from, answering: bytes.count)
                return
            }
            leave(occupant.address, reason: "was replaced")
            members = rooms[room] ?? [nil, nil]
        }
        let arrived = members[slot] == nil
        var member = members[slot] ?? Member(address: from, lastHeard: time, tokens: Self.burst, refilled: time)
        member.lastHeard = time
        members[slot] = member
        rooms[room] = members
        if seats[from] == nil { hostSeats[Self.host(of: from), default: 0] += 1 }
        seats[from] = (room, slot)
        let present = members.compactMap { $0 }.count
        if arrived {
            log("room \(RelayWire.code(room)): the \(slot == 0 ? "host" : "joiner") came (\(present) of 2)")
        }
        reply(RelayWire.header(.room) + [UInt8(present)], to: from, answering: bytes.count)
    }

    /// DATA from a seated address: on to the other seat, unchanged, within the sender's byte budget.
    private func forward(_ bytes: [UInt8], from: String, at time: Double) {
        guard let seat = seats[from], var members = rooms[seat.room], var member = members[seat.slot] else {
            counters.dropped += 1
            return
        }
        member.lastHeard = time
        member.tokens = min(Self.burst, member.tokens + (time - member.refilled) * Self.rate)
        member.refilled = time
        defer {
            members[seat.slot] = member
            rooms[seat.room] = members
        }
        guard let other = members[1 - seat.slot] else {
            counters.dropped += 1
            return
        }
        guard member.tokens >= Double(bytes.count) else {
            counters.overBudget += 1
            return
        }
        member.tokens -= Double(bytes.count)
        do {
            try bytes.withUnsafeBytes { try socket.send($0, to: other.address) }
            counters.forwarded += 1
            counters.forwardedBytes += bytes.count
        } catch {}
    }

    private func leave(_ address: String, reason: String) {
        guard let seat = seats.removeValue(forKey: address) else { return }
        let host = Self.host(of: address), held = hostSeats[host, default: 1]
        hostSeats[host] = held > 1 ? held - 1 : nil
        guard var members = rooms[seat.room] else { return }
        members[seat.slot] = nil
        let present = members.compactMap { $0 }.count
        rooms[seat.room] = present == 0 ? nil : members
        log("room \(RelayWire.code(seat.room)): the \(seat.slot == 0 ? "host" : "joiner") \(reason) (\(present) of 2)")
    }

    /// Empties the seats silent for `silence` seconds, and the rooms left with none.
    func sweep(_ time: Double) {
        let silent = seats.filter { seat in
            guard let member = rooms[seat.value.room]?[seat.value.slot] else { return true }
            return time - member.lastHeard > Self.silence
        }
        for address in silent.keys { leave(address, reason: "went silent") }
    }

    /// `HOST` of `HOST:PORT` or `[V6]:PORT`.
    static func host(of address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    /// A reply to an address, never larger than the datagram it answers (the rule of netplay_guard).
    private func reply(_ bytes: [UInt8], to address: String, answering received: Int) {
        guard bytes.count <= received else { return }
        do {
            try bytes.withUnsafeBytes { try socket.send($0, to: address) }
            counters.replies += 1
            counters.replyBytes += bytes.count
        } catch {}
    }

    /// A keyed hash of the sender's address, the room and a coarse epoch (AddressCookie: only this process
    /// can make one), so echoing it proves the sender receives at its address.
    private func cookie(_ address: String, _ room: [UInt8], _ time: Double) -> [UInt8] {
        AddressCookie.of(Array("\(address)\n\(Int(time / Self.cookieEpoch))\n".utf8) + room)
    }
}
