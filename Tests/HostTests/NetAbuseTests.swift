import Foundation
import XCTest

@testable import Scripting
import Support
import CLuaShim

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile and careless peers of a script's TCP sockets (the bad-input suite for `net`): a peer that never
/// reads, a thousand connections, half-open connections, binary garbage, a script that fails with peers
/// connected. Nothing crashes or hangs; every bound holds and says so.
final class NetAbuseTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requireROMs()
    }

    private func harness() throws -> ScriptHarness {
        try ScriptHarness { $0.allowNet = true }
    }

    private func line(_ output: String, _ prefix: String) -> String {
        String(output.split(separator: "\n").last { $0.hasPrefix(prefix + " ") } ?? "")
    }

    /// A peer that never reads: `send` takes what fits the 1 MiB buffer, then 0 (never an error, never a
    /// wait); once the peer reads, the host flushes the rest between frames and every byte arrives in order.
    func testAPeerThatNeverReadsFillsTheBoundedBufferThenDrains() throws {
        let listener = try Peer.listen()
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            conn = assert(net.tcp_connect("127.0.0.1:\(listener.port)"))
            assert(conn:wait(1000))
            local chunk, total, zero = string.rep("0123456789abcdef", 16384), 0, 0  -- 256 KiB
            for _ = 1, 200 do
              local taken = assert(conn:send(chunk))
              total = total + taken
              if taken == 0 then zero = zero + 1 if zero == 3 then break end end
            end
            print("sent " .. total .. " pending " .. conn:pending() .. " zero " .. zero)
            event.on("frame_end", function() print("pending " .. conn:pending()) end)
            """)
        let peer = try listener.accept()
        let sent = line(harness.output, "sent").split(separator: " ")
        guard sent.count == 6 else { return XCTFail("\(harness.output) \(harness.failures)") }
        let total = Int(sent[1]) ?? 0, pending = Int(sent[3]) ?? -1
        XCTAssertEqual(sent[5], "3", "send returned 0 once the buffer was full: \(harness.output)")
        XCTAssertLessThanOrEqual(pending, 1 << 20)
        XCTAssertGreaterThan(pending, 0)
        XCTAssertLessThan(total, 200 * 262_144, "the script was not allowed to queue without bound")
        var received = 0
        var ordered = true
        while received < total {
            harness.run(1)
            let bytes = peer.receive(wait: 50, count: 1 << 20)
            for (offset, byte) in bytes.enumerated() where ordered {
                let expected = Array("0123456789abcdef".utf8)[(received + offset) % 16]
                if byte != expected { ordered = false }
            }
            received += bytes.count
            if bytes.isEmpty && line(harness.output, "pending") == "pending 0" { break }
        }
        XCTAssertEqual(received, total)
        XCTAssertTrue(ordered, "bytes arrived in order")
        harness.run(1)
        XCTAssertEqual(line(harness.output, "pending"), "pending 0")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A thousand connections at a script's listener: it holds at most 64 sockets, `accept` says why it took
    /// no more, frames keep running, and closing some lets it accept again.
    func testAThousandConnectionsMeetTheSocketLimit() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            server = assert(net.tcp_listen{backlog = 256})
            print("address " .. server:address())
            held, refusal = {}, nil
            event.on("frame_end", function()
              for _ = 1, 100 do
                local conn, message = server:accept()
                if conn then held[#held + 1] = conn elseif message then refusal = message break else break end
              end
              print("held " .. #held .. " " .. tostring(refusal))
              if refusal and not released then
                released = true
                for _ = 1, 10 do table.remove(held):close() end
                refusal = nil
                print("released 10")
              end
            end)
            """)
        let address = line(harness.output, "address")
        let port = try XCTUnwrap(UInt16(address.split(separator: ":").last ?? ""))
        var peers: [Int32] = []
        defer { for peer in peers { close(peer) } }
        for _ in 0..<1000 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { break }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = port.bigEndian
            target.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            peers.append(descriptor)
        }
        XCTAssertEqual(peers.count, 1000)
        harness.run(3)
        let lines = harness.output.split(separator: "\n").filter { $0.hasPrefix("held ") || $0.hasPrefix("released") }
        // The listener is one of the 64; closing ten let ten more in.
        XCTAssertEqual(lines.first, "held 63 too many sockets: a script may hold 64 open at once (close some)")
        XCTAssertEqual(lines.dropFirst().first, "released 10")
        XCTAssertEqual(
            lines.dropFirst(2).first, "held 63 too many sockets: a script may hold 64 open at once (close some)")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// Half-open: a peer that sends its request and shuts its side still gets the reply; the script sees
    /// the request, then "closed", and may still send.
    func testAHalfOpenPeerStillGetsItsReply() throws {
        let listener = try Peer.listen()
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local conn = assert(net.tcp_connect("127.0.0.1:\(listener.port)"))
            local got = {}
            while true do
              local data, why = conn:receive()
              if data then got[#got + 1] = data elseif why == "closed" then break end
              emu.frameadvance()
            end
            print("request " .. table.concat(got) .. " " .. select(2, conn:state()))
            print("reply " .. tostring(conn:send("reply to " .. table.concat(got))))
            conn:close()
            """)
        let peer = try listener.accept()
        peer.send(Array("request".utf8))
        shutdown(peer.descriptor, Int32(SHUT_WR))
        for _ in 0..<1000 where !harness.output.contains("reply ") {
            harness.run(1)
            usleep(1000)
        }
        XCTAssertTrue(harness.output.contains("request request closed by the peer"), harness.output)
        XCTAssertTrue(harness.output.contains("reply 16"), harness.output)
        XCTAssertEqual(peer.receive(wait: 10_000, count: 16), Array("reply to request".utf8))
        XCTAssertEqual(peer.receive(wait: 10_000), [], "then the end of the stream")
    }

    /// Every byte value, both ways, in odd-sized pieces: what arrives is what was sent.
    func testBinaryGarbageIsCarriedExactly() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            server = assert(net.tcp_listen{})
            print("address " .. server:address())
            local clients = {}
            event.on("frame_end", function()
              local c = server:accept()
              if c then clients[#clients + 1] = c end
              for _, client in ipairs(clients) do
                local data = client:receive(777)
                while data do assert(client:send(data) == #data) data = client:receive(777) end
              end
            end)
            """)
        let port = try XCTUnwrap(UInt16(line(harness.output, "address").split(separator: ":").last ?? ""))
        let peer = try Peer(port: port)
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        peer.send(garbage)
        var echoed: [UInt8] = []
        for _ in 0..<2000 where echoed.count < garbage.count {
            harness.run(1)
            echoed += peer.receive(wait: 5)
        }
        XCTAssertEqual(echoed.count, garbage.count)
        XCTAssertTrue(echoed == garbage, "the bytes came back unchanged")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A script that fails with peers connected closes its sockets: the peer sees the end of the stream and
    /// the port can be listened on again.
    func testAFailingScriptClosesItsSockets() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            server = assert(net.tcp_listen{})
            print("address " .. server:address())
            event.on("frame_end", function()
              held = held or server:accept()
              if held and held:receive() then error("the script breaks") end
            end)
            """)
        let address = line(harness.output, "address").dropFirst("address ".count)
        let port = try XCTUnwrap(UInt16(address.split(separator: ":").last ?? ""))
        let peer = try Peer(port: port)
        peer.send([1])
        for _ in 0..<1000 where harness.failures.isEmpty { harness.run(1) }
        XCTAssertEqual(harness.failures.count, 1, "\(harness.failures)")
        XCTAssertEqual(peer.receive(wait: 10_000), [], "the peer sees the end of the stream")
        try harness.load("print('again ' .. tostring(net.tcp_listen{bind = '\(address)'} ~= nil))", name: "again.lua")
        XCTAssertTrue(harness.output.contains("again true"), harness.output)
    }

    /// A script reloaded with a client connected (a connector edited while the tool is attached, `--watch`;
    /// or the menu's reload) listens on its fixed port again at once; the old connection ends, and the client
    /// connects anew.
    func testAReloadedScriptListensOnItsPortAgain() throws {
        let port = try Peer.listen().port  // a free port, closed again
        let harness = try ScriptHarness {
            $0.allowNet = true
            $0.watch = true
        }
        defer { harness.close() }
        let path = try harness.load(
            """
            local server, message = net.tcp_listen{bind = "127.0.0.1:\(port)"}
            print("listening " .. tostring(server ~= nil) .. " " .. tostring(message))
            local held
            event.on("frame_end", function() held = held or server:accept() end)
            """)
        let first = try Peer(port: port)
        harness.run(2)
        // Saved: a new modification time, seen within 15 frames.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        harness.run(16)
        XCTAssertEqual(harness.output.components(separatedBy: "listening true nil").count, 3, harness.output)
        XCTAssertEqual(first.receive(wait: 10_000), [], "the old connection ended")
        let second = try Peer(port: port)
        harness.run(2)
        harness.host.scriptRequests.append(.reload(path: path))
        harness.run(2)
        XCTAssertEqual(harness.output.components(separatedBy: "listening true nil").count, 4, harness.output)
        XCTAssertEqual(second.receive(wait: 10_000), [], "the old connection ended")
        _ = try Peer(port: port)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// Addresses and grants from strangers (a script's text, the command line): thousands of mangled ones
    /// from a fixed seed meet the parser and the permission without a trap, a lookup or a loopback escape —
    /// whatever is allowed under bare `--allow-net` is loopback.
    func testMangledAddressesAndGrantsNeverTrapOrEscapeLoopback() {
        let alphabet = Array("[]:.*0123456789abcdefx%-_ \u{0}\u{ff}é:::ffff127")
        let seeds = [
            "127.0.0.1:0", "[::1]:80", "localhost:1", "[::ffff:127.0.0.1]:5", "0.0.0.0:1", "*:0", "[::]:9",
            "127.1:80", "0x7f.1:80", "2130706433:80", "[fe80::1%lo]:80", "::1:80", "[::1]", "[::1]:", ":80",
            String(repeating: "9", count: 5000) + ":1", String(repeating: "[", count: 100), "1.2.3.4:65536",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let loopback = NetworkPermission(level: .loopback)
        for round in 0..<5000 {
            var text = Array(seeds[round % seeds.count])
            for _ in 0..<(next() % 4) {
                let position = text.isEmpty ? 0 : next() % (text.count + 1)
                switch next() % 3 {
                case 0: text.insert(alphabet[next() % alphabet.count], at: position)
                case 1: if position < text.count { text.remove(at: position) }
                default: if position < text.count { text[position] = alphabet[next() % alphabet.count] }
                }
            }
            let address = String(text)
            _ = NetworkPermission.Grant(address)
            for binding in [false, true] {
                guard case .address(let target) = try? loopback.resolve(address, binding: binding) else { continue }
                XCTAssertTrue(SocketAddress.isLoopback(target), "\(address) passed as loopback")
            }
        }
    }

    /// A script that only ever waits on its sockets does not hold the emulator for good: past the host time
    /// it may wait between frames, its waits count as its own time and the watchdog stops it.
    func testAScriptThatOnlyWaitsIsStopped() throws {
        Script.socketWaitAllowance = 300
        defer { Script.socketWaitAllowance = 60_000 }
        lh_set_deadlines(0.5, 0)
        defer { lh_set_deadlines(2, 4) }
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local server = assert(net.tcp_listen{})
            event.on("frame_end", function() while true do server:wait(100) end end)
            """)
        harness.run(1)
        XCTAssertEqual(harness.failures.count, 1, "\(harness.failures)")
        XCTAssertTrue(harness.failures.first?.message.contains("without returning") == true, "\(harness.failures)")
    }

    /// Bad arguments are errors naming the function and argument; a closed listener says so.
    func testBadArgumentsNameTheFunctionAndArgument() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local function try(f, ...) print(select(2, pcall(f, ...))) end
            try(net.tcp_listen, {backlog = 0})
            try(net.tcp_listen, {bind = 5})
            try(net.tcp_connect)
            local server = assert(net.tcp_listen{})
            try(server.wait, server, -1)
            local conn = assert(net.tcp_connect(server:address()))
            try(conn.receive, conn, 0)
            try(conn.send, conn, {})
            try(conn.state, server)
            server:close()
            try(server.accept, server)
            print(select(2, net.tcp_connect("nonsense")))
            print(select(2, net.tcp_connect("127.0.0.1:99999")))
            local taken = assert(net.tcp_listen{})
            print(select(2, net.tcp_listen{bind = taken:address()}))
            """)
        let out = harness.output
        for expected in [
            "net.tcp_listen: bad field 'backlog' in argument #1 (must be 1…256)",
            "net.tcp_listen: bad field 'bind' in argument #1 (string expected, got number)",
            "net.tcp_connect: bad argument #1 'address' (string expected",
            "tcp_listener:wait: bad argument #2 'milliseconds' (must be 0…1000)",
            "tcp_connection:receive: bad argument #2 'max' (must be at least 1)",
            "tcp_connection:send: bad argument #2 'data'", "tcp_connection:state: bad argument #1 'self'",
            "tcp_listener:accept: the listener is closed", "'nonsense' is not HOST:PORT",
            "'127.0.0.1:99999' is not HOST:PORT (port 0…65535)", "address already in use",
        ] {
            XCTAssertTrue(out.contains(expected), "\(expected) in \(out)")
        }
    }
}
