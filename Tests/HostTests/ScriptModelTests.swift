@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media
import Support

/// The script model: ordering within a frame, isolation of failures, limits, security, reloading.
final class ScriptModelTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testCallbacksAndCoroutinesRunInTheDocumentedOrder() throws {
        let harness = try ScriptHarness()
        let order = """
            local name = ...
            for _, e in ipairs({"frame_start", "input", "frame_end", "draw"}) do
              event.on(e, function() if emu.framecount() < 3 then print(NAME .. " " .. e .. " " .. emu.framecount()) \
            end end)
            end
            while emu.framecount() < 2 do
              emu.frameadvance()
              print(NAME .. " resumed " .. emu.framecount())
            end
            """
        try harness.load("NAME = 'A'\n" + order, name: "a.lua")
        try harness.load("NAME = 'B'\n" + order, name: "b.lua")
        harness.run(2)
        XCTAssertEqual(
            harness.lines,
            [
                "A frame_start 0", "B frame_start 0", "A input 0", "B input 0", "A frame_end 1", "B frame_end 1",
                "A resumed 1", "B resumed 1", "A draw 1", "B draw 1",
                "A frame_start 1", "B frame_start 1", "A input 1", "B input 1", "A frame_end 2", "B frame_end 2",
                "A resumed 2", "B resumed 2", "A draw 2", "B draw 2",
            ])
    }

    func testHostDeviceEventsReachScriptsBeforeTheFrame() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            event.on("key_down", function(key, is_repeat) print("down " .. key .. " " .. tostring(is_repeat) .. " " \
            .. emu.framecount()) end)
            event.on("key_up", function(key) print("up " .. key) end)
            event.on("gamepad", function(name, connected) print("pad " .. name .. " " .. tostring(connected)) end)
            event.on("frame_start", function() print("frame_start " .. emu.framecount()) end)
            """)
        harness.host.deliver([.keyDown("a", repeat: false), .keyDown("a", repeat: true), .gamepadAdded("Pad"), .quit])
        harness.run(1)
        harness.host.deliver([.keyUp("a"), .gamepadRemoved("Pad")])
        XCTAssertEqual(
            harness.lines,
            ["down a false 0", "down a true 0", "pad Pad true", "frame_start 0", "up a", "pad Pad false"])
    }

    func testAFailingScriptIsUnloadedWithItsTracebackAndTheOthersGoOn() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            local function explode() local t = nil; return t.field end
            event.on("frame_end", function() if emu.framecount() == 3 then explode() end end)
            """, name: "bad.lua")
        try harness.load("event.on('frame_end', function() print(emu.framecount()) end)", name: "good.lua")
        harness.run(5)
        XCTAssertEqual(harness.lines, ["1", "2", "3", "4", "5"])
        XCTAssertEqual(harness.failures.count, 1)
        let failure = try XCTUnwrap(harness.failures.first)
        XCTAssertEqual(failure.script, "bad.lua")
        XCTAssertTrue(failure.message.contains("bad.lua:1: attempt to index a nil value (local 't')"), failure.message)
        XCTAssertTrue(failure.message.contains("stack traceback:"), failure.message)
        XCTAssertTrue(failure.message.contains("bad.lua:2: in function"), failure.message)
        XCTAssertEqual(harness.host.scriptCount, 1)
        XCTAssertNil(harness.host.emulator.exitCode)
    }

    func testSyntaxErrorsNameTheFileAndLine() throws {
        let harness = try ScriptHarness()
        XCTAssertThrowsError(try harness.load("local x = = 1", name: "broken.lua")) { error in
            XCTAssertTrue("\(error)".contains("broken.lua:1: unexpected symbol near '='"), "\(error)")
        }
    }

    func testStrictMakesAFailureEndTheRun() throws {
        let harness = try ScriptHarness { $0.strict = true }
        try harness.load("event.on('frame_end', function() error('boom') end)")
        harness.run(10)
        XCTAssertEqual(harness.host.emulator.exitCode, 1)
        XCTAssertEqual(harness.session.frameCount, 1)
    }

    func testPhaseRulesRefuseStateLoadsAndResetsDuringTheInputPoll() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            local state = savestate.create()
            event.on("input", function()
              for _, f in ipairs({function() return state:load() end, emu.reset, function() return savestate.save(1) \
            end}) do
                local ok, message = pcall(f)
                print(message)
              end
              event.off(1)
            end)
            """)
        harness.run(1)
        let expected = ["state:load", "emu.reset", "savestate.save"].map {
            """
            \($0): not allowed during the core's input poll (the input event); call it from the main chunk or a \
            frame_start, frame_end or draw callback
            """
        }
        XCTAssertEqual(harness.lines, expected)
        XCTAssertTrue(harness.failures.isEmpty)
    }

    func testWatchesFireExactlyOnChanges() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            for _ = 1, 5 do emu.frameadvance() end
            event.watch(nil, 3, 1, function(new, old) print("x " .. old .. " -> " .. new) end)
            event.watch("system_ram", 0, 2, function(new, old) if new % 50 == 0 then print("frame counter " .. new) \
            end end)
            event.watch(nil, 0x300, 5, function(new, old) print("bytes " .. #old .. " " .. new:byte(5)) end)
            emu.frameadvance()
            joypad.set(1, {right = true}); emu.frameadvance()
            joypad.set(1, {right = true}); emu.frameadvance()
            emu.frameadvance()
            memory.write_u8(0x304, 9)
            emu.frameadvance()
            emu.frameadvance()
            """)
        harness.run(60)
        XCTAssertEqual(harness.lines, ["x 120 -> 121", "x 121 -> 122", "bytes 5 9", "frame counter 50"])
    }

    func testDeterminismOfAScriptedRun() throws {
        let bot = """
            local seed = 12345
            local function random() seed = (seed * 1103515245 + 12345) % 2147483648; return seed end
            for _ = 1, 200 do
              local r = random()
              joypad.set(1, {right = r % 3 == 0, left = r % 5 == 0, down = r % 7 == 0, a = r % 2 == 0})
              emu.frameadvance()
            end
            print(memory.hash(), emu.framecount())
            """
        var results: [String] = []
        for _ in 0..<2 {
            let harness = try ScriptHarness()
            try harness.load(bot)
            harness.run(200)
            results.append(harness.output + (try XCTUnwrap(harness.host.frameWithOverlay())).rgba.count.description)
            results.append(Hashing.sha1Frame(harness))
            harness.close()
        }
        XCTAssertEqual(results[0], results[2])
        XCTAssertEqual(results[1], results[3])
    }

    func testRunawayLoopIsStoppedByTheWatchdog() throws {
        let harness = try ScriptHarness { $0.instructionBudget = 5_000_000 }
        try harness.load("event.on('frame_end', function() while true do end end)", name: "spin.lua")
        try harness.load("event.on('frame_end', function() print('alive ' .. emu.framecount()) end)", name: "ok.lua")
        harness.run(2)
        XCTAssertEqual(harness.lines, ["alive 1", "alive 2"])
        let failure = try XCTUnwrap(harness.failures.first)
        XCTAssertTrue(
            failure.message.contains(
                "spin.lua:1: script ran 5000000 instructions without returning to the emulator (runaway loop?)"),
            failure.message)
        XCTAssertTrue(failure.message.contains("stack traceback"), failure.message)
    }

    func testTheWatchdogCatchesRunawaysInScriptCoroutinesAndLeavesShortEntriesUnhooked() throws {
        let harness = try ScriptHarness {
            $0.instructionBudget = 5_000_000
            $0.trust = true  // debug.gethook
        }
        // A runaway coroutine stops, and so does the script that resumed it: catching the error is no way
        // to keep looping (the hook fires at every instruction until control is back in the host).
        try harness.load(
            """
            local created = coroutine.create(function() while true do end end)
            event.on("frame_end", function() print("resume", coroutine.resume(created)) end)
            """, name: "co.lua")
        try harness.load(
            """
            local wrapped = coroutine.wrap(function() while true do end end)
            event.on("frame_end", function() print("wrap", pcall(wrapped)) end)
            """, name: "wrap.lua")
        try harness.load(
            """
            event.on("frame_end", function()
              local frame = emu.framecount()
              if frame == 3 then local n = 0 for i = 1, 2000000 do n = n + i end end  -- some work, short in time
              if frame == 4 then print("hook after", tostring(debug.gethook())) end
              print("coroutines hooked", debug.gethook(coroutine.create(print)) ~= nil)
            end)
            """, name: "short.lua")
        harness.run(4)
        XCTAssertEqual(harness.failures.map(\.script), ["co.lua", "wrap.lua"])
        for failure in harness.failures { XCTAssertTrue(failure.message.contains("runaway loop"), failure.message) }
        XCTAssertEqual(
            harness.lines,
            [
                "coroutines hooked\ttrue", "coroutines hooked\ttrue", "coroutines hooked\ttrue", "hook after\tnil",
                "coroutines hooked\ttrue",
            ],
            "runaway coroutines are stopped; the host's own entries run without a hook")
        harness.close()

        // An entry long enough to be armed, but within its budget, finishes; the next runs unhooked again.
        let long = try ScriptHarness { $0.trust = true }  // debug.gethook
        try long.load(
            """
            event.on("frame_end", function()
              if emu.framecount() == 1 then
                local started, n = os.clock(), 0
                while os.clock() - started < 0.3 and debug.gethook() == nil do n = n + 1 end
                print("armed", debug.gethook() ~= nil)
              else
                print("later", debug.gethook() ~= nil)
              end
            end)
            """)
        long.run(2)
        for failure in long.failures { XCTFail(failure.message) }
        XCTAssertEqual(long.lines, ["armed\ttrue", "later\tfalse"])
        long.close()
    }

    func testTheBudgetIsPerEntryNotPerScriptLifetime() throws {
        let harness = try ScriptHarness { $0.instructionBudget = 5_000_000 }
        try harness.load("for _ = 1, 100 do for _ = 1, 100000 do end emu.frameadvance() end print('done')")
        harness.run(101)
        XCTAssertEqual(harness.lines, ["done"])
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testMemoryBombHitsTheCapAndOnlyThatScriptDies() throws {
        let harness = try ScriptHarness { $0.memoryLimit = 16 << 20 }
        try harness.load(
            """
            local hoard = {}
            event.on("frame_end", function()
              for i = 1, 1e9 do hoard[#hoard + 1] = string.rep("x", 1000) .. i end
            end)
            """, name: "bomb.lua")
        try harness.load(
            """
            event.on("frame_end", function()
              local s = memory.read_bytes(0, 2048) -- bindings still allocate fine
              print(#s)
            end)
            """, name: "fine.lua")
        harness.run(2)
        XCTAssertEqual(harness.lines, ["2048", "2048"])
        let failure = try XCTUnwrap(harness.failures.first)
        XCTAssertEqual(failure.script, "bomb.lua")
        XCTAssertTrue(failure.message.contains("memory limit of 16 MB"), failure.message)
    }

    func testAnAllocationInsideABindingOverTheCapRaisesAfterTheBindingReturns() throws {
        let harness = try ScriptHarness { $0.memoryLimit = 4 << 20 }
        try harness.load(
            """
            local keep = {}
            for i = 1, 1e9 do
              keep[i] = memory.read_bytes(0, 2048)
            end
            """, name: "reader.lua")
        XCTAssertTrue(harness.failures.first?.message.contains("memory limit of 4 MB") ?? false, "\(harness.failures)")
        harness.run(1)
    }

    func testDefaultProfileRefusesProcessesNativeCodeAndBytecode() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            print(os.execute, io.popen, package.cpath)
            print(pcall(os.exit, 0))
            print((select(2, pcall(require, "lfs")):gsub("%s+", " ")))
            print(load(string.dump(function() end)))
            print(load("return 1 + 1")())
            print(package.loadlib("/lib/x86_64-linux-gnu/libc.so.6", "luaopen_x"))
            print(package.loadlib("socket-linux-5-4.so", "luaopen_socket_core")() == require("socket.core"))
            """)
        XCTAssertEqual(harness.lines[0], "nil\tnil\t")
        XCTAssertTrue(
            harness.lines[1].hasPrefix("false\t") && harness.lines[1].contains("use emu.exit(code)"), harness.lines[1])
        XCTAssertTrue(
            harness.lines[2].contains("module 'lfs' not found") && !harness.lines[2].contains(".so"),
            "no native searcher: \(harness.lines[2])")
        XCTAssertTrue(harness.lines[3].contains("attempt to load a binary chunk"), harness.lines[3])
        XCTAssertEqual(harness.lines[4], "2")
        XCTAssertTrue(
            harness.lines[5].hasPrefix("nil\tpackage.loadlib: native code needs --trust")
                && harness.lines[5].hasSuffix("\topen"), "only LuaSocket's opener: \(harness.lines[5])")
        XCTAssertEqual(harness.lines[6], "true", "loadlib's LuaSocket is require's")
    }

    func testTrustRestoresTheFullLibrary() throws {
        let harness = try ScriptHarness { $0.trust = true }
        try harness.load("print(type(os.execute), type(io.popen), type(package.loadlib))")
        XCTAssertEqual(harness.lines, ["function\tfunction\tfunction"])
    }

    func testTheDefaultProfileConfinesFilesToTheScriptAndDataFolders() throws {
        let harness = try ScriptHarness { $0.allowFiles = false }
        try FileManager.default.createDirectory(atPath: harness.folder + "/data", withIntermediateDirectories: true)
        try "hi".write(toFile: harness.folder + "/notes.txt", atomically: true, encoding: .utf8)
        try harness.load(
            """
            local here = assert(io.open(SCRIPT_DIR .. "/notes.txt")); print(here:read("a")); here:close()
            local data = assert(io.open(SCRIPT_DIR .. "/data/out.txt", "w")); data:close()
            print(io.open("/etc/passwd"))
            print(io.open(SCRIPT_DIR .. "/../escape.txt", "w"))
            print(pcall(os.remove, "/tmp/anything"))
            print(loadfile("/etc/hostname"))
            print(debug.getupvalue)
            print(io.open(SCRIPT_DIR .. "/notes.txt", "w"))
            """.replacingOccurrences(of: "SCRIPT_DIR", with: "\"\(harness.folder)\""))
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        XCTAssertEqual(harness.lines.count, 7)
        XCTAssertEqual(harness.lines[0], "hi")
        XCTAssertTrue(harness.lines[1].hasPrefix("nil\tio.open: /etc/passwd: outside the folders"), harness.lines[1])
        XCTAssertTrue(harness.lines[2].contains("escape.txt: outside the folders"), harness.lines[2])
        XCTAssertTrue(
            harness.lines[3].hasPrefix("true\tnil\t") && harness.lines[3].contains("os.remove: /tmp/anything: outside"),
            harness.lines[3])
        XCTAssertTrue(harness.lines[4].hasPrefix("nil\tloadfile: /etc/hostname: outside the folders"), harness.lines[4])
        XCTAssertEqual(harness.lines[5], "nil")
        XCTAssertTrue(harness.lines[6].contains("outside the folders this script may write"), harness.lines[6])
        XCTAssertEqual(try String(contentsOfFile: harness.folder + "/notes.txt", encoding: .utf8), "hi")
    }

    func testHotReloadReplacesCallbacksAndKeepsTheEmulator() throws {
        let harness = try ScriptHarness { $0.watch = true }
        let path = try harness.load(
            "event.on('frame_end', function() print('v1 ' .. emu.framecount()) end)", name: "live.lua")
        harness.run(20)
        // A modification time in the past is still a change.
        try "event.on('frame_end', function() print('v2 ' .. emu.framecount()) end)".write(
            toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        harness.run(20)
        let lines = harness.lines
        XCTAssertEqual(lines.first, "v1 1")
        XCTAssertEqual(lines.last, "v2 40")
        let switchover = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("v2") })
        XCTAssertTrue(
            lines[..<switchover].allSatisfy { $0.hasPrefix("v1") }
                && lines[switchover...].allSatisfy { $0.hasPrefix("v2") })
        XCTAssertEqual(lines.count, 40, "exactly one callback per frame: the old one is gone")
        XCTAssertEqual(harness.session.frameCount, 40, "the emulator kept running")

        // A broken edit keeps the running version and reports the error.
        try "event.on('frame_end', function(".write(toFile: path, atomically: true, encoding: .utf8)
        harness.run(20)
        XCTAssertEqual(harness.lines.last, "v2 60")
        XCTAssertTrue(harness.failures.last?.message.contains("live.lua") ?? false)
    }
}

extension Hashing {
    static func sha1Frame(_ harness: ScriptHarness) -> String {
        harness.host.frameWithOverlay().map { sha1($0.rgba) } ?? "none"
    }
}
