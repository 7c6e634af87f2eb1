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

    @discardableResult
    private func expectVerdict(
        _ rom: String, core: String, name: String, _ extra: [String] = [], verdict: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let output = try check(rom, core: core, extra, status: 0, file: file, line: line)
        XCTAssertTrue(output.hasPrefix("netplay-check: \(name) "), output, file: file, line: line)
        XCTAssertTrue(output.contains(": \(verdict): "), output, file: file, line: line)
        XCTAssertFalse(output.contains("NOT"), output, file: file, line: line)
        return output
    }

    /// Memory and the state's bytes both identical after every replay.
    private func expectDeterministic(
        _ rom: String, core: String, name: String, _ extra: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let output = try expectVerdict(
            rom, core: core, name: name, extra, verdict: "deterministic", file: file, line: line)
        XCTAssertTrue(output.contains("every state and memory domain identical"), output, file: file, line: line)
    }

    /// A failure's report: the frame, what differed (two different hashes: never a contradiction) and
    /// the buttons held.
    private func expectNotDeterministic(
        _ rom: String, core: String, name: String, _ extra: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let output = try check(rom, core: core, extra, status: 1, file: file, line: line)
        XCTAssertTrue(output.hasPrefix("netplay-check: \(name) "), output, file: file, line: line)
        XCTAssertTrue(output.contains("NOT deterministic: replaying frames "), output, file: file, line: line)
        let pattern = #"reached another state at frame \d+: .*\(first run (\w+), replay (\w+)\)"#
        let match = output.range(of: pattern, options: .regularExpression).map { String(output[$0]) } ?? ""
        XCTAssertFalse(match.isEmpty, output, file: file, line: line)
        let hashes = match.split(separator: "(").last?.split(separator: " ") ?? []
        XCTAssertEqual(hashes.count, 5, match, file: file, line: line)
        if hashes.count == 5 {
            XCTAssertNotEqual(hashes[2].dropLast(), hashes[4].dropLast(), output, file: file, line: line)
        }
        XCTAssertNotNil(
            output.range(of: #"held on frame \d+: port 1 "#, options: .regularExpression), output, file: file,
            line: line)
        return output
    }

    func testMGBAOnTheGBADemoIsDeterministic() throws {
        try expectDeterministic(Self.roms + "demo.gba", core: "mgba", name: "mgba")
    }

    /// Measured: Debian's gambatte writes the wall-clock time into its savestates (two saves a second
    /// apart differ with no frame run), so a replay's bytes match the first run's only when no second
    /// ticked between them — how fast the build is decided the verdict. The check finds that out first
    /// and compares memory: the same verdict at any speed.
    func testGambattesStateHoldsTheTimeSoItIsComparedByMemory() throws {
        let output = try expectVerdict(
            Self.roms + "demo.gb", core: "gambatte", name: "gambatte", verdict: "time-dependent state")
        XCTAssertTrue(output.contains("deterministic in memory"), output)
        XCTAssertTrue(output.contains("every memory domain identical"), output)
        XCTAssertTrue(output.contains("change with no frame run"), output)
        // With a rollback of one frame too (it once said NOT deterministic over two equal hashes).
        try expectVerdict(
            Self.roms + "demo.gb", core: "gambatte", name: "gambatte", ["--rollback", "1", "--frames", "120"],
            verdict: "time-dependent state")
    }

    /// The time itself, shown the way the check sees it: two saves with only a second between them.
    func testGambattesSavestateChangesWithNoFrameRun() throws {
        let result = try Fixtures.cli(
            [
                "run", Self.roms + "demo.gb", "--core", "gambatte", "--headless", "--frames", "5", "--script",
                script(
                    """
                    event.on("frame_end", function()
                      if emu.framecount() ~= 2 then return end
                      local first = savestate.create()
                      local second = os.time()
                      while os.time() == second do local _ = ("x"):rep(1 << 16) end
                      print("same after a second " .. tostring(first:hash() == savestate.create():hash()))
                    end)
                    """),
            ], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("same after a second false"), result.stdout)
    }

    /// mGBA's Game Boy states hold sound bookkeeping a load does not restore: after a rollback over
    /// held buttons some of the state's bytes differ while memory never does.
    func testMGBAOnGameBoyContentIsDeterministicInMemory() throws {
        let output = try expectVerdict(
            Self.roms + "demo.gb", core: "mgba", name: "mgba", verdict: "deterministic in memory")
        XCTAssertTrue(output.contains("every memory domain identical"), output)
        XCTAssertNotNil(
            output.range(of: #"first at frame \d+ \(\d+ of \d+ bytes"#, options: .regularExpression), output)
        let json = try Fixtures.cli(
            ["netplay-check", Self.roms + "demo.gb", "--core", "mgba", "--frames", "60", "--json"], timeout: 60)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(results(json.stdout)["netplay_check"] as? String, "memory", json.stdout)
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
        for rom in ["demo.nes", "dodge.nes"] {
            try requireFile(Self.roms + rom)
            try expectDeterministic(
                Self.roms + rom, core: "nestopia", name: "nestopia", ["--buttons", "b,a,up,down,left,right,l,r"])
        }
    }

    /// Measured: nestopia's turbo buttons (x/y) keep a counter outside its savestate, so the default
    /// buttons (all but select and start) make a replay reach other memory.
    func testNestopiaWithItsTurboButtonsIsNotDeterministic() throws {
        let output = try expectNotDeterministic(Fixtures.nesROM, core: "nestopia", name: "nestopia")
        XCTAssertTrue(output.contains("memory differs: system_ram"), output)
    }

    /// The stable-retro build of mednafen_pce_fast: deterministic on a two-button pad; the six-button
    /// pad's extra buttons make replays reach other RAM (it once printed two equal hashes as a failure).
    func testMednafenPCEFastIsDeterministicOnTwoButtons() throws {
        let core = Self.wheel + "mednafen_pce_fast_libretro.so"
        try requireFile(core)
        try requireFile(Self.roms + "demo.pce")
        try expectDeterministic(
            Self.roms + "demo.pce", core: core, name: "mednafen_pce_fast", ["--buttons", "b,a,up,down,left,right"])
        let output = try expectNotDeterministic(Self.roms + "demo.pce", core: core, name: "mednafen_pce_fast")
        XCTAssertTrue(output.contains("memory differs: system_ram"), output)
    }

    /// parallel_n64 cannot save its state before its first frame: the check starts once it can.
    func testParallelN64IsCheckedFromTheFirstFrameItCanSave() throws {
        let core = Self.wheel + "parallel_n64_libretro.so"
        try requireFile(core)
        let rom = try N64TestROM.make(in: Self.folder)
        let result = try Fixtures.cli(
            ["netplay-check", rom, "--core", core, "--frames", "60"], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse(result.stderr.contains("could not serialize"), result.stderr)
        XCTAssertTrue(result.stdout.contains("netplay-check: parallel_n64 "), result.stdout)
        XCTAssertTrue(result.stdout.contains(": deterministic: 60 frames"), result.stdout)
    }

    private func brokenCore(_ mode: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        let folder = Self.folder + "/" + mode
        let core = folder + "/broken_libretro.so"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = [
            "-shared", "-fPIC", "-O1", "-o", core, Fixtures.root + "/Tests/cores/broken_core.c", "-lm", "-D" + mode,
        ]
        try cc.run()
        cc.waitUntilExit()
        XCTAssertEqual(cc.terminationStatus, 0, "cc failed")
        return core
    }

    private var brokenGame: String {
        let game = Self.folder + "/game.brk"
        XCTAssertTrue(FileManager.default.createFile(atPath: game, contents: Data("broken core content".utf8)))
        return game
    }

    func testACoreWithAnUnserializedCounterIsNotDeterministic() throws {
        let core = try brokenCore("MODE_NONDETERMINISTIC")
        let output = try expectNotDeterministic(brokenGame, core: core, name: "broken", ["--frames", "60"])
        XCTAssertTrue(output.contains("memory differs: save_ram"), output)
    }

    /// A core that never can save its state: one clear line, exit 1, not a script error.
    func testACoreThatCannotSaveIsReportedAsNotChecked() throws {
        let core = try brokenCore("MODE_SERIALIZE_FAILS")
        let result = try Fixtures.cli(["netplay-check", brokenGame, "--core", core, "--frames", "60"], timeout: 60)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(
            result.stdout.contains("cannot check: the core could not save its state in its first 60 frames"),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("could not serialize its state now"), result.stdout)
        XCTAssertFalse(result.stderr.contains("failed"), result.stderr)
    }

    /// The check presses only what a hand can on the pad the core describes: gambatte's pad has no X, Y,
    /// shoulders or stick buttons and there is no second pad; never up with down, nor left with right.
    func testTheRandomInputPressesOnlyButtonsThePadHasAndNeverOppositeDirections() throws {
        let result = try Fixtures.cli(
            [
                "run", Self.roms + "demo.gb", "--core", "gambatte", "--headless", "--frames", "2", "--script",
                script(
                    """
                    local check = require("retrolua.netplay_check")
                    print("pad " .. table.concat(joypad.buttons(1), ",") .. " port 2 " .. tostring(joypad.buttons(2)))
                    local pads = check.pads(0xffff)
                    local value = 1
                    local function random() value = (value * 1103515245 + 12345) & 0x7fffffff; return value >> 8 end
                    local union, opposite = 0, 0
                    for _ = 1, 5000 do
                      local mask = check.press(random, pads[1]) | check.press(random, pads[2])
                      union = union | mask
                      if mask & 0x30 == 0x30 or mask & 0xc0 == 0xc0 then opposite = opposite + 1 end
                    end
                    print(string.format("union %x opposite %d port2 %x", union, opposite, pads[2]))
                    """),
            ], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("pad b,select,start,up,down,left,right,a port 2 nil"), result.stdout)
        // b, select, start, the four directions and a: 0x1ff less y (bit 1).
        XCTAssertTrue(result.stdout.contains("union 1fd opposite 0 port2 0"), result.stdout)
    }

    /// A core that leaves part of its declared state unwritten: the bytes come out zero, not whatever the
    /// memory held before (a reused state object, freed sound), so two saves of one state hash the same.
    func testStateBytesACoreDoesNotWriteAreZero() throws {
        let core = try brokenCore("MODE_SERIALIZE_GAP")
        let result = try Fixtures.cli(
            [
                "run", brokenGame, "--core", core, "--headless", "--frames", "3", "--script",
                script(
                    """
                    event.on("frame_end", function()
                      local bytes, kept = savestate.create():bytes(), 0
                      for i = 1, #bytes do
                        local dirty = savestate.from_bytes(bytes:sub(1, i - 1) .. "\\xAA" .. bytes:sub(i + 1))
                        if dirty and dirty:save() and dirty:bytes():byte(i) == 0xAA then kept = kept + 1 end
                      end
                      print("kept " .. kept)
                      emu.exit(0)
                    end)
                    """),
            ], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("kept 0"), result.stdout)
    }

    /// Run-ahead checks once that states restore exactly and names the core where they do not.
    func testRunAheadWarnsOnACoreWhoseStatesDoNotRestoreExactly() throws {
        let core = Self.wheel + "picodrive_libretro.so"
        try requireFile(core)
        try requireFile(Self.roms + "airstriker.md")
        let config = Fixtures.temporaryFolder()
        try FileManager.default.createDirectory(atPath: config + "/retrolua", withIntermediateDirectories: true)
        try "return { frames = 1 }".write(toFile: config + "/retrolua/runahead.lua", atomically: true, encoding: .utf8)
        for (rom, core, warned) in [
            (Self.roms + "airstriker.md", core, true), (Fixtures.nesROM, "nestopia", false),
        ] {
            let result = try Fixtures.cli(
                ["run", rom, "--core", core, "--headless", "--with-defaults", "--frames", "10"],
                environment: ["XDG_CONFIG_HOME": config], timeout: 60)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stderr.contains("run-ahead: "), warned, "\(core): \(result.stderr)")
            if warned {
                XCTAssertTrue(result.stderr.contains("run-ahead: picodrive "), result.stderr)
                XCTAssertTrue(result.stderr.contains("does not restore its states exactly"), result.stderr)
                XCTAssertTrue(result.stderr.contains("reached another state"), result.stderr)
            }
        }
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
            (["--netplay-options", "mine", "--netplay", "join", "127.0.0.1"], ["--netplay-options", "host"]),
            (["--netplay-options", "host", "--netplay", "host"], ["--netplay-options", "applies to --netplay join"]),
            (["--netplay-options", "host"], ["applies to --netplay join"]),
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
