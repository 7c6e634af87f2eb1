import Foundation
import XCTest

@testable import Scripting

#if canImport(Glibc)
    import Glibc
#endif

/// The `net` module's TCP (`tcp_listen`, `tcp_connect`, `select`) on real loopback sockets, against a peer
/// written here with the system's calls, and its permission under each profile.
final class NetTCPTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requireROMs()
    }

    private func harness(allowNet: Bool = true, trust: Bool = false) throws -> ScriptHarness {
        try ScriptHarness { options in
            options.allowNet = allowNet
            options.trust = trust
        }
    }

    func testAnEchoServerServesAPeerBetweenFrames() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            server = assert(net.tcp_listen{bind = "127.0.0.1:0"})
            print("address " .. server:address())
            local clients = {}
            event.on("frame_end", function()
              local c = server:accept()
              if c then clients[#clients + 1] = c end
              for _, client in ipairs(clients) do
                local data = client:receive()
                if data then client:send("echo:" .. data) end
              end
            end)
            """)
        let address = try XCTUnwrap(harness.output.split(separator: "\n").first { $0.hasPrefix("address ") })
        let port = try XCTUnwrap(UInt16(address.split(separator: ":").last ?? ""))
        let peer = try Peer(port: port)
        peer.send(Array("hello\0\u{ff}".utf8))
        var received: [UInt8] = []
        for _ in 0..<200 where received.count < 12 {
            harness.run(1)
            received += peer.receive(wait: 10)
        }
        XCTAssertEqual(received, Array("echo:hello\0\u{ff}".utf8))
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testAClientScriptConnectsSendsAndSeesThePeerClose() throws {
        let listener = try Peer.listen()
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local conn = assert(net.tcp_connect("127.0.0.1:\(listener.port)"))
            print("peer " .. conn:peer())
            while conn:state() == "connecting" do emu.frameadvance() end
            print("state " .. conn:state())
            print("sent " .. conn:send("ping"))
            local got = {}
            while true do
              local data, why = conn:receive()
              if data then got[#got + 1] = data elseif why == "closed" then break end
              emu.frameadvance()
            end
            print("got " .. table.concat(got) .. " " .. table.concat({conn:state()}, " "))
            print("again " .. tostring(select(2, conn:receive())))
            """)
        XCTAssertTrue(harness.output.contains("peer 127.0.0.1:\(listener.port)"), harness.output)
        let peer = try listener.accept()
        for _ in 0..<1000 where !harness.output.contains("sent ") { harness.run(1) }
        XCTAssertTrue(harness.output.contains("state open"), harness.output)
        XCTAssertTrue(harness.output.contains("sent 4"), harness.output)
        XCTAssertEqual(peer.receive(wait: 10_000, count: 4), Array("ping".utf8))
        peer.send(Array("pong".utf8))
        peer.close()
        for _ in 0..<1000 where !harness.output.contains("again ") {
            harness.run(1)
            usleep(1000)
        }
        XCTAssertTrue(harness.output.contains("got pong closed closed by the peer"), harness.output)
        XCTAssertTrue(harness.output.contains("again closed"), harness.output)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A half-close (LuaSocket's `shutdown("send")`): the peer reads the last bytes and then the end of the
    /// stream, and what it sends back still arrives.
    func testAHalfCloseEndsTheStreamOneWay() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local server = assert(net.tcp_listen{})
            local client = assert(net.tcp_connect(server:address()))
            net.select({server}, 1000)
            local accepted = assert(server:accept())
            while client:state() == "connecting" do client:wait(100) end
            client:send("last words")
            client:shutdown("send")
            print("after " .. tostring(client:send("more")))
            local got = {}
            while true do
              accepted:wait(100)
              local data, why = accepted:receive()
              if data then got[#got + 1] = data elseif why == "closed" then break end
            end
            print("server got " .. table.concat(got) .. ", then the end")
            print("reply " .. accepted:send("still heard"))
            local reply = ""
            while #reply < 11 do client:wait(100); reply = reply .. (client:receive() or "") end
            print("client got " .. reply .. " " .. client:state())
            print("bad " .. select(2, pcall(client.shutdown, client, "both")))
            """)
        XCTAssertTrue(harness.output.contains("after nil"), harness.output)
        XCTAssertTrue(harness.output.contains("server got last words, then the end"), harness.output)
        XCTAssertTrue(harness.output.contains("reply 11"), harness.output)
        XCTAssertTrue(harness.output.contains("client got still heard open"), harness.output)
        XCTAssertTrue(harness.output.contains("bad tcp_connection:shutdown: bad argument #2 'how'"), harness.output)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testSelectReportsTheReadyOnes() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            local server = assert(net.tcp_listen{})
            local client = assert(net.tcp_connect(server:address()))
            local idle = assert(net.tcp_listen{})
            local ready = net.select({idle, server}, 1000)
            print("ready " .. #ready .. " " .. tostring(ready[1] == server))
            local accepted = assert(server:accept())
            print("none " .. #net.select({idle, server, accepted}, 0))
            client:send("x")
            ready = net.select({client, accepted}, 1000)
            print("data " .. #ready .. " " .. tostring(ready[1] == accepted))
            print("bad " .. select(2, pcall(net.select, {idle, "x"})))
            print("ms " .. select(2, pcall(net.select, {}, 1001)))
            """)
        XCTAssertTrue(harness.output.contains("ready 1 true"), harness.output)
        XCTAssertTrue(harness.output.contains("none 0"), harness.output)
        XCTAssertTrue(harness.output.contains("data 1 true"), harness.output)
        XCTAssertTrue(harness.output.contains("bad net.select: bad argument #1 'objects' (entry 2"), harness.output)
        XCTAssertTrue(harness.output.contains("ms net.select: bad argument #2 'milliseconds'"), harness.output)
    }

    func testTheDefaultProfileIsRefusedNamingTheFlagAndTheMenu() throws {
        let harness = try harness(allowNet: false)
        defer { harness.close() }
        try harness.load(
            """
            print("listen " .. select(2, net.tcp_listen{}))
            print("connect " .. select(2, net.tcp_connect("127.0.0.1:1")))
            print("udp " .. select(2, net.udp{}))
            print("allowed " .. tostring(net.allowed()))
            """)
        for function in ["listen", "connect", "udp"] {
            let line = harness.output.split(separator: "\n").first { $0.hasPrefix(function + " ") } ?? ""
            XCTAssertTrue(line.contains("--allow-net") && line.contains("Scripts page"), String(line))
        }
        XCTAssertTrue(harness.output.contains("allowed nil"), harness.output)
    }

    func testBareAllowNetReachesOnlyLoopback() throws {
        let harness = try harness()
        defer { harness.close() }
        try harness.load(
            """
            print("allowed " .. net.allowed())
            print("any " .. select(2, net.tcp_listen{bind = "*:0"}))
            print("zero " .. select(2, net.tcp_listen{bind = "0.0.0.0:0"}))
            print("far " .. select(2, net.tcp_connect("192.0.2.1:80")))
            print("name " .. select(2, net.tcp_connect("example.invalid:80")))
            print("udp_far " .. select(2, assert(net.udp{}):send("x", "192.0.2.1:9")))
            print("udp_any " .. select(2, net.udp{bind = "*:0"}))
            print("udp_default " .. assert(net.udp{}):address())
            print("v6 " .. tostring(net.tcp_listen{bind = "[::1]:0"} ~= nil))
            print("localhost " .. tostring(net.tcp_listen{bind = "localhost:0"} ~= nil))
            """)
        let out = harness.output
        XCTAssertTrue(out.contains("allowed loopback"), out)
        XCTAssertTrue(out.contains("any binding every address (*:0)"), out)
        XCTAssertTrue(out.contains("zero binding 0.0.0.0:0 (not loopback) needs --allow-net=0.0.0.0:0 or --trust"), out)
        XCTAssertTrue(out.contains("far reaching 192.0.2.1:80 (not loopback) needs --allow-net=192.0.2.1:80"), out)
        XCTAssertTrue(out.contains("name reaching example.invalid:80: a host name is looked up only when granted"), out)
        XCTAssertTrue(out.contains("udp_far reaching 192.0.2.1:9 (not loopback)"), out)
        XCTAssertTrue(out.contains("udp_any binding every address"), out)
        XCTAssertTrue(out.contains("udp_default 127.0.0.1:"), out)
        XCTAssertTrue(out.contains("localhost true"), out)
    }

    func testAGrantAddsTheAddressItNamesAndNoOther() throws {
        let harness = try ScriptHarness { options in
            options.allowNet = true
            options.netGrants = ["192.0.2.1:80", "[2001:db8::1]", "*:0"].compactMap(NetworkPermission.Grant.init)
        }
        defer { harness.close() }
        try harness.load(
            """
            local level, grants = net.allowed()
            print("allowed " .. level .. " " .. table.concat(grants, " "))
            print("granted " .. tostring(net.tcp_connect("192.0.2.1:80") ~= nil))
            print("other_port " .. select(2, net.tcp_connect("192.0.2.1:81")))
            print("v6 " .. tostring(net.udp{bind = "[::1]:0"} ~= nil))
            print("any " .. tostring(net.tcp_listen{bind = "*:0"} ~= nil))
            """)
        let out = harness.output
        XCTAssertTrue(out.contains("allowed loopback 192.0.2.1:80 [2001:db8::1] *:0"), out)
        XCTAssertTrue(out.contains("granted true"), out)
        XCTAssertTrue(out.contains("other_port reaching 192.0.2.1:81 (not loopback)"), out)
        XCTAssertTrue(out.contains("any true"), out)
    }

    func testGrantsParseAsTheCommandLineWritesThem() {
        XCTAssertEqual(NetworkPermission.Grant("Example.COM:43055")?.text, "example.com:43055")
        XCTAssertEqual(NetworkPermission.Grant("[::1]:80")?.text, "[::1]:80")
        XCTAssertEqual(NetworkPermission.Grant("::1")?.text, "[::1]")
        XCTAssertEqual(NetworkPermission.Grant("*")?.text, "*")
        for bad in ["", "a:b", "host:70000", "[::1", "a b", "x:1:2:3:4:5:6:7:8:9\0", "\u{0}"] {
            XCTAssertNil(NetworkPermission.Grant(bad), bad)
        }
    }

    func testTheCommandLineTakesGrantsAndRefusesNonsense() throws {
        let probe = Fixtures.temporaryFolder() + "/probe.lua"
        try "print('allowed', net.allowed(), table.concat(select(2, net.allowed()), ','))".write(
            toFile: probe, atomically: true, encoding: .utf8)
        let run = ["run", Fixtures.nesROM, "--headless", "--frames", "1", "--script", probe]
        let granted = try Fixtures.cli(run + ["--allow-net=192.0.2.1:80,localhost", "--allow-net=[::1]"])
        XCTAssertEqual(granted.status, 0, granted.stderr)
        XCTAssertTrue(granted.stdout.contains("allowed\tloopback\t192.0.2.1:80,localhost,[::1]"), granted.stdout)
        let bare = try Fixtures.cli(run + ["--allow-net"])
        XCTAssertTrue(bare.stdout.contains("allowed\tloopback\t"), bare.stdout)
        let bad = try Fixtures.cli(run + ["--allow-net=a:b"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--allow-net: 'a:b' is not HOST[:PORT]"), bad.stderr)
        let trusted = try Fixtures.cli(run + ["--trust"])
        XCTAssertTrue(trusted.stdout.contains("allowed\tall"), trusted.stdout)
    }

    func testConnectingToAClosedPortSaysConnectionRefused() throws {
        let harness = try harness()
        defer { harness.close() }
        let port = try Peer.listen().port  // listened on, then closed: nothing answers there now
        try harness.load(
            """
            local conn, message = net.tcp_connect("127.0.0.1:\(port)")
            if conn then
              for _ = 1, 20 do if conn:wait(100) then break end end
              print("refused " .. table.concat({conn:state()}, " "))
              print("receive " .. table.concat({tostring(conn:receive())}, " ") .. " " .. select(2, conn:receive()))
            else
              print("refused closed " .. message)
            end
            """)
        XCTAssertTrue(harness.output.contains("refused closed connection refused"), harness.output)
    }

    /// Tests/python/test_net.py: Python peers on loopback — an echo server script serves several clients
    /// (every byte value, one that leaves at once), a script's client reaches a Python server, and binding
    /// every address needs `--allow-net=*:PORT` or `--trust`.
    func testPythonPeersOnLoopback() throws {
        try Fixtures.assertPytestPasses("test_net.py", summary: "6 passed")
    }
}

/// A TCP peer made with the system's calls, independent of what it tests.
final class Peer {
    let descriptor: Int32
    let port: UInt16

    private init(descriptor: Int32, port: UInt16) {
        self.descriptor = descriptor
        self.port = port
    }

    convenience init(port: UInt16) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Peer.loopback(port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw XCTSkip("connect: \(String(cString: strerror(errno)))") }
        self.init(descriptor: descriptor, port: port)
    }

    /// A listening peer on a loopback port the system picks.
    static func listen() throws -> Peer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        XCTAssertEqual(Glibc.listen(descriptor, 16), 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Peer(descriptor: descriptor, port: UInt16(bigEndian: address.sin_port))
    }

    func accept() throws -> Peer {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "a connection arrives")
        let accepted = Glibc.accept(descriptor, nil, nil)
        XCTAssertGreaterThanOrEqual(accepted, 0)
        return Peer(descriptor: accepted, port: port)
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    deinit { close() }

    private var closed = false
    func close() {
        if !closed { Glibc.close(descriptor) }
        closed = true
    }

    func send(_ bytes: [UInt8]) {
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }, bytes.count)
    }

    /// What arrives within `wait` ms (up to `count` bytes, waiting until that many or the time passes).
    func receive(wait: Int32, count: Int = 65536) -> [UInt8] {
        var got: [UInt8] = []
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while got.count < count, poll(&entry, 1, wait) == 1 {
            var buffer = [UInt8](repeating: 0, count: count - got.count)
            let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if read <= 0 { break }
            got += buffer[0..<read]
        }
        return got
    }
}
