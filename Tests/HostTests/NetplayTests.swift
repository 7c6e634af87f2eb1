import Foundation
import XCTest

/// Netplay: the SyncTest (`retrolua netplay-check`), the `net` module's permission and sockets,
/// `emu.replay_frame` and `joypad.get_player` (what rollback is built on), `--netplay`'s command line,
/// and a whole session between a windowed host a person types into and a headless joiner.
final class NetplayTests: XCTestCase {
    private static let roms = Fixtures.root + "/build/roms/"
    private static let wheel = Fixtures.root + "/build/cores/"
    private static let folder = Fixtures.temporaryFolder()

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
    }

    private func script(_ text: String) -> String {
        let path = Fixtures.temporaryFolder() + "/test.lua"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        return path
    }

    private func requireFile(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is missing: run scripts/setup")
        }
    }

    /// A home folder whose `~/.config/retrolua/netplay.lua` is `settings`.
    private func home(netplay settings: String) -> String {
        let home = Fixtures.temporaryFolder()
        let config = home + "/.config/retrolua"
        try! FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: config + "/netplay.lua", contents: Data(settings.utf8)))
        return home
    }

    /// A UDP port nothing listens on now (the system's pick for a socket that is closed again).
    private func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The `results` of the JSON line in `stdout` (the run's last line starting with `{`).
    private func results(_ stdout: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let json = stdout.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let results = object["results"] as? [String: Any]
        else {
            XCTFail("no JSON line with results in: \(stdout)", file: file, line: line)
            return [:]
        }
        return results
    }

    // MARK: netplay-check (SyncTest)

    @discardableResult
    private func check(
        _ rom: String, core: String, _ extra: [String] = [], status: Int32, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let result = try Fixtures.cli(["netplay-check", rom, "--core", core] + extra, timeout: 60)
        XCTAssertEqual(
            result.status, status, "\(rom) on \(core): \(result.stdout)\n\(result.stderr)", file: file, line: line)
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("netplay-check: ") }
        XCTAssertEqual(lines.count, 1, "one netplay-check line: \(result.stdout)", file: file, line: line)
        return lines.first.map(String.init) ?? ""
    }

    private func expectDeterministic(
        _ rom: String, core: String, name: String, _ extra: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let output = try check(rom, core: core, extra, status: 0, file: file, line: line)
        XCTAssertTrue(output.hasPrefix("netplay-check: \(name) "), output, file: file, line: line)
        XCTAssertTrue(output.contains(": deterministic: "), output, file: file, line: line)
        XCTAssertFalse(output.contains("NOT"), output, file: file, line: line)
    }

    func testMGBAOnTheGBADemoIsDeterministic() throws {
        try expectDeterministic(Self.roms + "demo.gba", core: "mgba", name: "mgba")
    }

    func testGambatteIsDeterministic() throws {
        try expectDeterministic(Self.roms + "demo.gb", core: "gambatte", name: "gambatte")
    }

    func testSnes9xIsDeterministic() throws {
        let core = Self.wheel + "snes9x_libretro.so"
        try requireFile(core)
        try requireFile(Self.roms + "demo.sfc")
        try expectDeterministic(Self.roms + "demo.sfc", core: core, name: "snes9x")
    }

    func testGenesisPlusGXIsDeterministicOnTheDirections() throws {
        let core = Self.wheel + "genesis_plus_gx_libretro.so"
        try requireFile(core)
        try requireFile(Self.roms + "airstriker.md")
        try expectDeterministic(
            Self.roms + "airstriker.md", core: core, name: "genesis_plus_gx",
            ["--buttons", "up,down,left,right,x,l,r", "--frames", "600"])
    }

    func testNestopiaIsDeterministicWithoutItsTurboButtons() throws {
        try expectDeterministic(
            Fixtures.nesROM, core: "nestopia", name: "nestopia", ["--buttons", "b,a,up,down,left,right,l,r"])
    }

    /// Measured: nestopia's turbo buttons (x/y) keep a counter outside its savestate, so the default
    /// buttons (all but select and start) make a replay differ.
    func testNestopiaWithItsTurboButtonsIsNotDeterministic() throws {
        let output = try check(Fixtures.nesROM, core: "nestopia", status: 1)
        XCTAssertTrue(output.hasPrefix("netplay-check: nestopia "), output)
        XCTAssertTrue(output.contains("NOT deterministic: replaying frames "), output)
        XCTAssertNotNil(
            output.range(
                of: #"reached another state at frame \d+ \(first run \w+, replay \w+\)"#,
                options: .regularExpression), output)
        XCTAssertNotNil(output.range(of: #"held on frame \d+: port 1 "#, options: .regularExpression), output)
    }

    func testACoreWithAnUnserializedCounterIsNotDeterministic() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        let core = Self.folder + "/nondeterministic/broken_libretro.so"
        try FileManager.default.createDirectory(
            atPath: Self.folder + "/nondeterministic", withIntermediateDirectories: true)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = [
            "-shared", "-fPIC", "-O1", "-o", core, Fixtures.root + "/Tests/cores/broken_core.c", "-lm",
            "-DMODE_NONDETERMINISTIC",
        ]
        try cc.run()
        cc.waitUntilExit()
        XCTAssertEqual(cc.terminationStatus, 0, "cc failed")
        let game = Self.folder + "/game.brk"
        XCTAssertTrue(FileManager.default.createFile(atPath: game, contents: Data("broken core content".utf8)))
        let output = try check(game, core: core, ["--frames", "60"], status: 1)
        XCTAssertTrue(output.contains("NOT deterministic"), output)
        XCTAssertTrue(output.contains("differing: ") && output.contains("save_ram"), output)
    }

    func testBadCheckCommandLinesNameTheOption() throws {
        for (arguments, option) in [
            (["--rollback", "0"], "--rollback"), (["--rollback", "61"], "--rollback"),
            (["--buttons", "nope"], "--buttons"),
        ] {
            let result = try Fixtures.cli(
                ["netplay-check", Fixtures.nesROM, "--core", "nestopia"] + arguments, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stdout)\n\(result.stderr)")
            XCTAssertTrue(result.stderr.contains(option), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stdout.contains("deterministic"), "\(arguments): \(result.stdout)")
        }
        let result = try Fixtures.cli(
            ["netplay-check", Fixtures.nesROM, "--core", "nestopia", "--buttons", "nope"], timeout: 30)
        XCTAssertTrue(result.stderr.contains("nope"), result.stderr)
    }

    // MARK: the net module

    private func runNES(_ extra: [String], frames: Int = 2) throws -> Fixtures.Result {
        try Fixtures.cli(
            ["run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", String(frames)] + extra,
            timeout: 60)
    }

    private let udpScript = """
        local a, message = net.udp({bind = "127.0.0.1:0"})
        print("udp " .. tostring(a ~= nil) .. " " .. tostring(message))
        if a then
          local b = assert(net.udp({bind = "127.0.0.1:0"}))
          print("send " .. tostring(a:send("hi", b:address())))
          print("wait " .. tostring(b:wait(500)))
          local data, from = b:receive()
          print("received " .. tostring(data) .. " from_a " .. tostring(from == a:address()))
          local sent, why = a:send(string.rep("x", 1401), b:address())
          print("oversized " .. tostring(sent) .. " " .. tostring(why))
          local ok, err = pcall(net.udp, {max_size = 10})
          print("max_size " .. tostring(ok) .. " " .. tostring(err))
          local bad, bad_message = net.udp({bind = "nonsense"})
          print("bind " .. tostring(bad) .. " " .. tostring(bad_message))
        end
        """

    func testUDPNeedsAllowNet() throws {
        let result = try runNES(["--script", script(udpScript)])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("udp false "), result.stdout)
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("udp ") } ?? ""
        XCTAssertTrue(line.contains("--allow-net"), String(line))
        XCTAssertFalse(result.stdout.contains("send "), result.stdout)
    }

    func testUDPSocketsTalkWithAllowNet() throws {
        let result = try runNES(["--script", script(udpScript), "--allow-net"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = result.stdout
        XCTAssertTrue(out.contains("udp true nil"), out)
        XCTAssertTrue(out.contains("send true"), out)
        XCTAssertTrue(out.contains("wait true"), out)
        XCTAssertTrue(out.contains("received hi from_a true"), out)
        XCTAssertTrue(out.contains("oversized nil "), out)
        let oversized = out.split(separator: "\n").first { $0.hasPrefix("oversized ") } ?? ""
        XCTAssertGreaterThan(oversized.count, "oversized nil ".count + 3, "a message: \(oversized)")
        let maxSize = out.split(separator: "\n").first { $0.hasPrefix("max_size ") } ?? ""
        XCTAssertTrue(maxSize.hasPrefix("max_size false ") && maxSize.contains("max_size"), String(maxSize))
        XCTAssertTrue(maxSize.contains("64") && maxSize.contains("65507"), String(maxSize))
        let bind = out.split(separator: "\n").first { $0.hasPrefix("bind ") } ?? ""
        XCTAssertTrue(bind.hasPrefix("bind nil ") && bind.contains("nonsense"), String(bind))
    }

    // MARK: emu.replay_frame, state:hash, joypad.get_player

    func testReplayingFramesReachesTheSameState() throws {
        let result = try runNES(
            [
                "--script",
                script(
                    """
                    local inputs = { {0x180, 0x1}, {0x100, 0x0}, {0x10, 0x200} }
                    local names = { [0] = "b", "y", "select", "start", "up", "down", "left", "right", "a", "x", "l", "r" }
                    local function pad(mask)
                      local t = {}
                      for bit, name in pairs(names) do if mask & (1 << bit) ~= 0 then t[name] = true end end
                      return t
                    end
                    local start, saved = 20, nil
                    event.on("frame_start", function()
                      local i = inputs[emu.framecount() - start + 1]
                      if i then joypad.set(1, pad(i[1])); joypad.set(2, pad(i[2])) end
                    end)
                    event.on("input", function()
                      if emu.framecount() == 5 then
                        local ok, err = pcall(emu.replay_frame, {0, 0})
                        print("in input: " .. tostring(ok) .. " " .. tostring(err))
                      end
                    end)
                    event.on("frame_end", function()
                      local f = emu.framecount()
                      if f == start then saved = savestate.create() end
                      if f ~= start + #inputs then return end
                      local live = savestate.create():hash()
                      assert(saved:load({quiet = true}))
                      local counts = { emu.framecount() }
                      for _, i in ipairs(inputs) do
                        emu.replay_frame(i, {video = false})
                        counts[#counts + 1] = emu.framecount()
                      end
                      print("replay same " .. tostring(savestate.create():hash() == live))
                      print("counts " .. table.concat(counts, ","))
                      assert(saved:load({quiet = true}))
                      for _ in ipairs(inputs) do emu.replay_frame({0, 0}) end
                      print("released differs " .. tostring(savestate.create():hash() ~= live))
                      print("mask 70000: " .. select(2, pcall(emu.replay_frame, {70000})))
                      print("mask string: " .. select(2, pcall(emu.replay_frame, {"a"})))
                      joypad.set_player(2, {a = true, up = true, left_x = -1234, right_y = 777})
                      local p = joypad.get_player(2)
                      print("player 2 " .. tostring(p.a) .. " " .. tostring(p.up) .. " " .. tostring(p.b) .. " "
                            .. p.left_x .. " " .. p.left_y .. " " .. p.right_x .. " " .. p.right_y)
                      joypad.set_player(1, {start = true, select = true, right_x = 32767})
                      p = joypad.get_player(1)
                      print("player 1 " .. tostring(p.start) .. " " .. tostring(p.select) .. " " .. tostring(p.a) .. " "
                            .. p.right_x)
                    end)
                    """),
            ], frames: 40)
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = result.stdout
        XCTAssertTrue(out.contains("replay same true"), out)
        XCTAssertTrue(out.contains("counts 20,21,22,23"), out)
        // The masks reach the game: without them the replay ends elsewhere (so the match above means something).
        XCTAssertTrue(out.contains("released differs true"), out)
        for line in out.split(separator: "\n") where line.hasPrefix("mask ") {
            XCTAssertTrue(line.contains("emu.replay_frame") && line.contains("'input'"), String(line))
        }
        XCTAssertEqual(out.split(separator: "\n").filter { $0.hasPrefix("mask ") }.count, 2, out)
        let phase = out.split(separator: "\n").first { $0.hasPrefix("in input: ") } ?? ""
        XCTAssertTrue(phase.hasPrefix("in input: false ") && phase.contains("between frames"), String(phase))
        XCTAssertTrue(out.contains("player 2 true true false -1234 0 0 777"), out)
        XCTAssertTrue(out.contains("player 1 true true false 32767"), out)
    }

    // MARK: --netplay's command line

    func testNetplayCommandLineMistakes() throws {
        let run = ["run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--frames", "2"]
        for (arguments, words) in [
            (["--netplay", "join"], ["--netplay join", "ADDRESS"]),
            (["--netplay", "bogus"], ["bogus", "host", "join"]),
            (["--netplay-delay", "9", "--netplay", "host"], ["--netplay-delay", "0…8"]),
            (["--netplay-delay", "2"], ["applies to --netplay"]),
        ] {
            let result = try Fixtures.cli(run + arguments, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            for word in words { XCTAssertTrue(result.stderr.contains(word), "\(arguments): \(result.stderr)") }
        }
        // `join` last on the line: no address, not the ROM taken as one.
        let result = try Fixtures.cli(["run", Fixtures.nesROM, "--netplay", "join"], timeout: 30)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("ADDRESS"), result.stderr)
    }

    func testJoinTakesTheAddressNotTheROM() throws {
        let port = freePort()
        // The settings in an XDG_CONFIG_HOME of its own (not under HOME): the joiner gives up after 1 s.
        let config = home(netplay: "return { connect_timeout = 1 }") + "/.config"
        // The address right after `join`, the ROM after it: the address is not taken for the content.
        let result = try Fixtures.cli(
            [
                "run", "--netplay", "join", "127.0.0.1:\(port)", Fixtures.nesROM, "--core", "nestopia", "--headless",
                "--json",
            ], environment: ["XDG_CONFIG_HOME": config], timeout: 30)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("no answer from 127.0.0.1:\(port)"), result.stderr)
        XCTAssertTrue((results(result.stdout)["netplay_end"] as? String)?.contains("no answer") == true, result.stdout)
    }

    // MARK: a session, as people play it

    /// A windowed host (the default profile, every default loaded) a person types into, and a headless
    /// joiner: both end after 600 frames on the same state, and the joiner saw the host's button.
    func testWindowedHostAndHeadlessJoinerEndOnTheSameState() throws {
        let port = freePort()
        let frames = 600
        let settings = "return { stop_after = \(frames) }"
        let hostHome = home(netplay: settings), joinerHome = home(netplay: settings)
        let host = try WindowSession(
            [Fixtures.nesROM, "--core", "nestopia", "--netplay", "host:\(port)", "--json"], home: hostHome)
        XCTAssertTrue(host.waitUntil { host.stderr.contains("hosting on port \(port)") }, host.stderr)
        let recorder = script(
            """
            local seen, frames = false, 0
            event.on("frame_end", function()
              frames = frames + 1
              if joypad.get(1).a then seen = true end
            end)
            event.on("exit", function() print("port 1 a seen " .. tostring(seen) .. " in " .. frames .. " frames") end)
            """)
        let joiner = try ChildProcess(
            [
                "run", Fixtures.nesROM, "--core", "nestopia", "--headless", "--netplay", "join", "127.0.0.1:\(port)",
                "--json", "--script", recorder,
            ], home: joinerHome)
        XCTAssertTrue(host.waitUntil(seconds: 30) { host.stderr.contains("netplay: playing with") }, host.stderr)
        // The person holds X (the A button) in the host's window while the session runs.
        let window = try host.xdotool(["search", "--onlyvisible", "--pid", String(host.process.processIdentifier)])
            .split(separator: "\n").first.map(String.init)
        let windowID = try XCTUnwrap(window, "the host's window")
        try host.xdotool(["windowfocus", "--sync", windowID])
        try host.xdotool(["keydown", "x"])
        host.waitUntil(seconds: 40) { host.stderr.contains("netplay: finished") || !joiner.process.isRunning }
        try host.xdotool(["keyup", "x"])
        let joined = joiner.finish()
        XCTAssertEqual(joined.status, 0, joined.stdout + joined.stderr)
        XCTAssertTrue(host.waitUntil(seconds: 20) { host.stderr.contains("netplay: finished") }, host.stderr)
        // A window stays open after its session: the person closes it.
        try host.press("Escape", until: { !host.process.isRunning })
        XCTAssertEqual(host.waitForExit(), 0, host.stderr)

        let hostResults = results(host.stdout), joinerResults = results(joined.stdout)
        XCTAssertEqual(hostResults["netplay_end"] as? String, "finished \(frames) frames", host.stdout)
        XCTAssertTrue(
            (joinerResults["netplay_end"] as? String)?.contains("finished \(frames) frames") == true, joined.stdout)
        XCTAssertNil(hostResults["netplay_desync_frame"], host.stdout)
        XCTAssertNil(joinerResults["netplay_desync_frame"], joined.stdout)
        XCTAssertGreaterThan(hostResults["netplay_checks"] as? Int ?? 0, 0, host.stdout)
        XCTAssertEqual(hostResults["netplay_frames"] as? Int, frames, host.stdout)
        // Both sides end on frame `frames`: the host's "bye" must not cut the joiner's last frames short
        // (it has every input for them) — else the two report different states for the same session.
        XCTAssertEqual(joinerResults["netplay_frames"] as? Int, frames, "the joiner's last frame: \(joined.stdout)")
        let hostHash = hostResults["netplay_state_hash"] as? String
        XCTAssertNotNil(hostHash, host.stdout)
        XCTAssertEqual(hostHash, joinerResults["netplay_state_hash"] as? String, "\(host.stdout)\n\(joined.stdout)")
        XCTAssertEqual(
            hostResults["netplay_ram_hash"] as? String, joinerResults["netplay_ram_hash"] as? String,
            "\(host.stdout)\n\(joined.stdout)")
        XCTAssertTrue(joined.stdout.contains("port 1 a seen true"), joined.stdout)
    }
}
