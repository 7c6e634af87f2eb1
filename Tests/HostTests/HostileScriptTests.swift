import CLuaShim
import Foundation
import Support
import XCTest

@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// Hostile scripts against each security profile: every escape the profiles close, runaways, the memory
/// cap, and error reporting. Each case asserts a message naming the function or file, no crash, no hang
/// (in-process cases end by the watchdog; processes have timeouts), and files outside left intact.
final class HostileScriptTests: XCTestCase {
    enum Profile: String, CaseIterable { case confined, allowFiles, trust }

    /// A script and the text its output (`out(...)`, prefixed with the case) or its failure must contain.
    struct Case {
        let name: String
        let profiles: [Profile]
        let source: String
        let expect: String
        init(_ name: String, _ profiles: [Profile], _ source: String, _ expect: String) {
            (self.name, self.profiles, self.source, self.expect) = (name, profiles, source, expect)
        }
    }

    static let outside = "outside the folders this script may"
    static let binary = "attempt to load a binary chunk"
    static let dumped = "string.dump(function() return 1 end)"
    static let untrusted: [Profile] = [.confined, .allowFiles]

    /// PRECIOUS: a file outside every allowed folder; DATA: the data folder; HERE: the script's folder.
    static let cases: [Case] = [
        // debug beyond traceback and getinfo, by every way to the library
        Case("require-debug", untrusted, "out(require('debug').getupvalue, require('debug').sethook)", "nil\tnil"),
        Case(
            "loaded-debug", untrusted, "out(package.loaded.debug.getupvalue, package.loaded.debug.setlocal)", "nil\tnil"
        ),
        Case(
            "global-debug", untrusted, "out(debug.getupvalue, debug.sethook, debug.getregistry, debug.upvalueid)",
            "nil\tnil\tnil\tnil"),
        Case("same-table", untrusted, "out(require('debug') == debug, package.loaded.debug == debug)", "true\ttrue"),
        Case(
            "getinfo-func", untrusted, "out(debug.getinfo(1, 'f').func, debug.getinfo(io.open, 'f').func)", "nil\tnil"),
        Case(
            "getinfo-in-reader", untrusted,
            "local seen; load(function() seen = debug.getinfo(2, 'f') return nil end); out(seen and seen.func)", "nil"),
        Case("getinfo-works", untrusted, "out(debug.getinfo(1, 'S').short_src:match('getinfo%-works') ~= nil)", "true"),
        Case(
            "getinfo-level", untrusted,
            "local function f() local info = debug.getinfo(2, 'S') return info end out(f().what)", "main"),
        Case("traceback-works", untrusted, "out(debug.traceback('tb'):match('^tb\\nstack traceback') ~= nil)", "true"),
        Case(
            "getupvalue-wrapper", untrusted, "out(pcall(debug.getupvalue, io.open, 1))", "attempt to call a nil value"),
        // bytecode on every path
        Case("load-dump", untrusted, "out(load(\(dumped)))", binary),
        Case("load-mode-b", untrusted, "out(load(\(dumped), 'x', 'b'))", binary),
        Case("load-mode-bt", untrusted, "out(load(\(dumped), 'x', 'bt'))", binary),
        Case(
            "load-reader", untrusted, "local s = \(dumped) out(load(function() local c = s s = nil return c end))",
            binary),
        Case(
            "loadfile-bytecode", untrusted,
            "local f = assert(io.open(DATA .. '/b.luac', 'wb')) f:write(\(dumped)) f:close() out(loadfile(DATA .. '/b.luac'))",
            binary),
        Case(
            "loadfile-mode-b", untrusted,
            "local f = assert(io.open(DATA .. '/c.luac', 'wb')) f:write(\(dumped)) f:close() out(loadfile(DATA .. '/c.luac', 'b'))",
            binary),
        Case(
            "dofile-bytecode", untrusted,
            "local f = assert(io.open(DATA .. '/d.luac', 'wb')) f:write(\(dumped)) f:close() out(pcall(dofile, DATA .. '/d.luac'))",
            binary),
        Case(
            "require-bytecode", untrusted,
            "local f = assert(io.open(DATA .. '/evil.lua', 'wb')) f:write(\(dumped)) f:close() package.path = DATA .. '/?.lua' out(pcall(require, 'evil'))",
            binary),
        // the searchers: preload, Lua files, Retrolua's LuaSocket; loadlib gives only LuaSocket's opener
        Case(
            "searchers-count", untrusted, "out(#package.searchers, package.cpath, type(package.loadlib))",
            "3\t\tfunction"),
        Case("require-native", untrusted, "out(pcall(require, 'lfs'))", "module 'lfs' not found"),
        Case(
            "loadlib-native", untrusted, "out(package.loadlib('/lib/x86_64-linux-gnu/libc.so.6', 'luaopen_x'))",
            "nil\tpackage.loadlib: native code needs --trust"),
        Case(
            "luasocket-after-tampering", untrusted,
            "string.match = function() return '/etc/' end out(require('socket')._VERSION)", "LuaSocket 3.0.0"),
        // processes
        Case("os-execute", untrusted, "out(os.execute, io.popen)", "nil\tnil"),
        Case("os-exit", untrusted, "out(pcall(os.exit, 0))", "use emu.exit(code)"),
        // require and searchpath confined
        Case(
            "require-etc", [.confined], "package.path = '/etc/?' out(pcall(require, 'passwd'))",
            "require: /etc/passwd: \(outside) read"),
        Case(
            "searchpath-etc", [.confined], "out(package.searchpath('passwd', '/etc/?'))", "/etc/passwd: \(outside) read"
        ),
        Case(
            "searchpath-oracle", [.confined],
            "local _, a = package.searchpath('passwd', '/etc/?') local _, b = package.searchpath('nothere', '/etc/?') out(a:gsub('passwd', 'X') == b:gsub('nothere', 'X'))",
            "true"),
        Case(
            "require-here", [.confined], "package.path = HERE .. '/?.lua' out(pcall(require, 'nothing_here'))",
            "no file"),
        Case("require-retrolua", [.confined], "out(type(require('retrolua.json').decode))", "function"),
        // files in the default profile
        Case("open-etc", [.confined], "out(io.open('/etc/passwd'))", "io.open: /etc/passwd: \(outside) read"),
        Case("open-precious-w", [.confined], "out(io.open(PRECIOUS, 'w'))", "\(outside) write"),
        Case("open-precious-a", [.confined], "out(io.open(PRECIOUS, 'a+'))", "\(outside) write"),
        Case("open-precious-r", [.confined], "out(io.open(PRECIOUS))", "\(outside) read"),
        Case("open-here-w", [.confined], "out(io.open(HERE .. '/new.txt', 'w'))", "\(outside) write"),
        Case("open-here-r", [.confined], "out(io.open(HERE .. '/open-here-r.lua') ~= nil)", "true"),
        Case("open-data-w", [.confined], "local f = io.open(DATA .. '/w.txt', 'w') out(f ~= nil) f:close()", "true"),
        Case("open-dotdot", [.confined], "out(io.open(DATA .. '/../../escape.txt', 'w'))", "\(outside) write"),
        Case("open-nul", [.confined], "out(io.open(DATA .. '/x\\0/../../../etc/passwd'))", "NUL byte"),
        Case(
            "open-number", [.confined], "out(io.open(42))", "io.open: bad argument 'path' (string expected, got number)"
        ),
        Case(
            "open-mode-table", [.confined], "out(pcall(io.open, DATA .. '/m.txt', {}))",
            "io.open: bad argument #2 'mode'"),
        Case("open-symlink", [.confined], "out(io.open(HERE .. '/link/passwd'))", "\(outside) read"),
        Case("rename-out", [.confined], "out(pcall(os.rename, PRECIOUS, DATA .. '/stolen'))", "os.rename: "),
        Case(
            "rename-in", [.confined],
            "io.open(DATA .. '/r.txt', 'w'):close() out(pcall(os.rename, DATA .. '/r.txt', PRECIOUS))", "os.rename: "),
        Case("remove-out", [.confined], "out(pcall(os.remove, PRECIOUS))", "os.remove: "),
        Case(
            "remove-data", [.confined], "io.open(DATA .. '/x.txt', 'w'):close() out(os.remove(DATA .. '/x.txt'))",
            "true"),
        Case("lines-etc", [.confined], "out(pcall(io.lines, '/etc/passwd'))", "io.lines: /etc/passwd: \(outside) read"),
        Case("input-etc", [.confined], "out(pcall(io.input, '/etc/passwd'))", "io.input: /etc/passwd"),
        Case("output-precious", [.confined], "out(pcall(io.output, PRECIOUS))", "io.output: "),
        Case("loadfile-etc", [.confined], "out(loadfile('/etc/hostname'))", "loadfile: /etc/hostname: \(outside) read"),
        Case("dofile-etc", [.confined], "out(pcall(dofile, '/etc/hostname'))", "loadfile: /etc/hostname"),
        Case("loadfile-stdin", [.confined], "out(loadfile())", "reading stdin is not allowed"),
        Case("tmpname", [.confined], "out(os.tmpname)", "nil"),
        // bindings that take paths use the same check
        Case("savestate-save", [.confined], "out(savestate.save(PRECIOUS))", "\(outside) write"),
        Case("savestate-load", [.confined], "out(savestate.load('/etc/passwd'))", "\(outside) read"),
        Case("savestate-data-ok", [.confined], "out(savestate.save(DATA .. '/ok.state'))", "true"),
        Case("cheats-save", [.confined], "out(cheats.save(PRECIOUS))", "\(outside) write"),
        Case("cheats-load", [.confined], "out(cheats.load('/etc/passwd'))", "\(outside) read"),
        Case("image-load", [.confined], "out(gui.load_image('/etc/passwd'))", "\(outside) read"),
        Case("image-draw", [.confined], "out(pcall(gui.image, 0, 0, '/etc/passwd'))", "\(outside) read"),
        Case("screenshot", [.confined], "out(gui.screenshot(PRECIOUS))", "\(outside) write"),
        Case("movie-record", [.confined], "out(movie.record(PRECIOUS))", "\(outside) write"),
        // the data folder's own functions follow no symlink out of it (DATA/out -> PRECIOUS's folder)
        Case("save_data-link-folder", [.confined], "out(emu.save_data('out/stolen.txt', 'x'))", "\(outside) write"),
        Case("save_data-link-file", [.confined], "out(emu.save_data('secret', 'x'))", "\(outside) write"),
        Case("load_data-link-file", [.confined], "out(emu.load_data('secret'))", "\(outside) read"),
        Case("load_data-link-folder", [.confined], "out(emu.load_data('out/precious.txt'))", "\(outside) read"),
        Case(
            "save_data-ok", [.confined], "out(emu.save_data('mine/ok.txt', 'x'), emu.load_data('mine/ok.txt'))",
            "true\tx"),
        Case("movie-play", [.confined], "out(movie.play('/etc/passwd'))", "\(outside) read"),
        // the wider profiles
        Case("allow-files-read", [.allowFiles, .trust], "out(io.open('/etc/passwd') ~= nil)", "true"),
        Case("trust-debug", [.trust], "out(type(require('debug').getupvalue), type(os.execute))", "function\tfunction"),
        Case("trust-bytecode", [.trust], "out(load(\(dumped))())", "1"),
        // errors read clearly
        Case(
            "tostring-error", [.confined],
            "error(setmetatable({}, { __tostring = function() return 'custom problem' end }))",
            "custom problem"),
        Case("table-error", [.confined], "error({})", "(error object is a table value)"),
        // runaways and memory
        Case("pcall-loop", [.confined], "while true do pcall(function() while true do end end) end", "runaway loop"),
        Case(
            "coroutine-loop", [.confined],
            "while true do coroutine.resume(coroutine.create(function() while true do end end)) end", "runaway loop"),
        Case("sethook-loop", [.trust], "while true do debug.sethook() end", "runaway loop"),
        Case("rep-huge", [.confined], "out(pcall(string.rep, 'x', 1 << 40))", "resulting string too large"),
        Case("rep-cap", [.confined], "local s = string.rep('x', 1 << 29) out(#s)", "memory limit"),
        Case(
            "gsub-cap", [.confined],
            "local s = string.rep('x', 1 << 20) s = s:gsub('x', string.rep('y', 1000)) out(#s)", "memory limit"),
    ]

    func testHostileScriptsInEveryProfile() throws {
        let precious = Fixtures.temporaryFolder() + "/precious.txt"
        try "precious".write(toFile: precious, atomically: true, encoding: .utf8)
        var checked = 0
        for profile in Profile.allCases {
            let harness = try ScriptHarness {
                $0.allowFiles = profile == .allowFiles
                $0.trust = profile == .trust
                $0.instructionBudget = 20_000_000
                $0.memoryLimit = 64 << 20
            }
            let data = harness.folder + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try? FileManager.default.createSymbolicLink(atPath: harness.folder + "/link", withDestinationPath: "/etc")
            try? FileManager.default.createSymbolicLink(
                atPath: data + "/out", withDestinationPath: FilePath.folder(of: precious))
            try? FileManager.default.createSymbolicLink(atPath: data + "/secret", withDestinationPath: precious)
            func quoted(_ text: String) -> String { "'" + text + "'" }
            for test in Self.cases where test.profiles.contains(profile) {
                let source =
                    "local PRECIOUS, DATA, HERE = \(quoted(precious)), \(quoted(data)), \(quoted(harness.folder))\n"
                    + "local function out(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]):gsub('%z', '\\\\0'):gsub('\\n', ' ') end "
                    + "print('\(test.name)|', table.unpack(t, 1, t.n)) end\n" + test.source
                try harness.load(source, name: test.name + ".lua")
                harness.run(1)
            }
            for test in Self.cases where test.profiles.contains(profile) {
                let output = harness.lines.filter { $0.hasPrefix(test.name + "|") }.joined(separator: "\n")
                let failure = harness.failures.filter { $0.script == test.name + ".lua" }.map(\.message)
                    .joined(separator: "\n")
                XCTAssertTrue(
                    (output + failure).contains(test.expect),
                    "\(test.name) [\(profile)]: expected '\(test.expect)' in output '\(output)' / failure '\(failure)'")
                checked += 1
            }
            harness.close()
        }
        XCTAssertEqual(try String(contentsOfFile: precious, encoding: .utf8), "precious", "files outside stay intact")
        XCTAssertFalse(FileManager.default.fileExists(atPath: FilePath.folder(of: precious) + "/stolen.txt"))
        XCTAssertGreaterThanOrEqual(checked, 60)
    }

    func testALatin1ByteInAStringLiteralIsValidLua() throws {
        let harness = try ScriptHarness { $0.allowFiles = false }
        let path = harness.folder + "/latin1.lua"
        try Data("print(#'caf".utf8 + [0xE9] + "')".utf8).write(to: URL(fileURLWithPath: path))
        try harness.load(file: path)
        XCTAssertEqual(harness.lines, ["4"])
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A run of `script` headless with save RAM in `folder/saves`; returns the process result.
    private func run(_ script: String, in folder: String, frames: Int = 10) throws -> Fixtures.Result {
        let path = folder + "/hostile.lua"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try Fixtures.cli([
            "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", String(frames), "--save-dir",
            folder + "/saves",
            "--script", path,
        ])
    }

    func testABacktrackingPatternEndsTheRunAtTheHardDeadlineWithSaveRAMWritten() throws {
        let folder = Fixtures.temporaryFolder()
        let result = try run(
            "event.on('frame_end', function() if emu.framecount() == 3 then "
                + "string.find(string.rep('a', 40), string.rep('(.-)', 14) .. 'b') end end)", in: folder)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("ran past its hard deadline"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/saves/" + Fixtures.srm()), "save RAM written")
    }

    func testARunawayExitCallbackStillLetsSaveRAMBeWritten() throws {
        let folder = Fixtures.temporaryFolder()
        let result = try run(
            "event.on('exit', function() while true do pcall(function() while true do end end) end end)", in: folder,
            frames: 3)
        XCTAssertTrue(result.stderr.contains("runaway loop"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/saves/" + Fixtures.srm()), "save RAM written")
    }

    func testSIGTERMDuringARunawayEndsTheRunWithSaveRAMWritten() throws {
        for body in [
            "while true do pcall(function() while true do end end) end",
            "string.find(string.rep('a', 40), string.rep('(.-)', 14) .. 'b')",
        ] {
            let folder = Fixtures.temporaryFolder()
            let path = folder + "/spin.lua"
            try
                "event.on('frame_end', function() if emu.framecount() == 2 then print('spinning') io.stdout:flush() \(body) end end)"
                .write(toFile: path, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Fixtures.binary)
            process.arguments = [
                "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "100000", "--save-dir",
                folder + "/saves", "--script", path,
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = folder
            environment["DISPLAY"] = nil
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            process.standardError = Pipe()
            try process.run()
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [process] in
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("spinning") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += chunk
            }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            XCTAssertNotEqual(process.terminationReason, .uncaughtSignal, "ended by itself, not killed: \(body)")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder + "/saves/" + Fixtures.srm()), "save RAM written: \(body)"
            )
        }
    }

    // MARK: Teardown: a finalizer that never returns

    static let endlessFinalizer =
        "KEPT = setmetatable({}, {__gc = function() io.stdout:write('finalizing\\n') io.stdout:flush() while true do end end})"

    func testAFinalizerThatNeverReturnsEndsTheRunAtTheHardDeadlineWithSaveRAMWritten() throws {
        let folder = Fixtures.temporaryFolder()
        let path = folder + "/gc.lua"
        try Self.endlessFinalizer.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            [
                "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "10", "--save-dir", folder + "/saves",
                "--script", path, "--screenshot", folder + "/last.png",
            ], timeout: 60)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/last.png"), "the screenshot is written too")
        XCTAssertTrue(result.stdout.contains("finalizing"), "the finalizer ran: \(result.stdout)")
        XCTAssertTrue(result.stderr.contains("did not finish closing"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/saves/" + Fixtures.srm()), "save RAM written")
    }

    func testSIGTERMWhileAFinalizerNeverReturnsEndsTheRunWithSaveRAMWritten() throws {
        let folder = Fixtures.temporaryFolder()
        let path = folder + "/gc.lua"
        try Self.endlessFinalizer.write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = [
            "run", Fixtures.nesROM, "--headless", "--quiet", "--frames", "5", "--save-dir", folder + "/saves",
            "--script", path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder
        environment["DISPLAY"] = nil
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("finalizing") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder + "/saves/" + Fixtures.srm()),
            "save RAM is written before the scripts' states close")
        kill(process.processIdentifier, SIGTERM)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "ended by itself, not killed")
        XCTAssertEqual(process.terminationStatus, 3, stderr)
        XCTAssertTrue(stderr.contains("within a second of SIGINT/SIGTERM"), stderr)
    }

    func testAFinalizerFromASettingsFileEndsTheRunTheSameWay() throws {
        let home = Fixtures.temporaryFolder()
        try FileManager.default.createDirectory(atPath: home + "/.config/retrolua", withIntermediateDirectories: true)
        try (Self.endlessFinalizer + "\nreturn {}").write(
            toFile: home + "/.config/retrolua/osd.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--headless", "--quiet", "--with-defaults", "--frames", "10"], home: home,
            timeout: 60)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stdout.contains("finalizing"), "the settings file's finalizer ran: \(result.stdout)")
        XCTAssertTrue(result.stderr.contains("did not finish closing"), result.stderr)
        let saves = home + "/.local/share/retrolua/saves/" + Fixtures.srm()
        XCTAssertTrue(FileManager.default.fileExists(atPath: saves), "save RAM written")
    }

    // MARK: Deadlines: the host's work for a binding is not the script's time

    /// Runs `body` with a 50 ms soft deadline (the hard one as it is), then puts the default back.
    private func withShortDeadline(_ body: () throws -> Void) rethrows {
        lh_set_deadlines(0.05, 0)
        defer { lh_set_deadlines(2, 4) }
        try body()
    }

    func testFramesASeekRunsDoNotCountAgainstTheScriptsDeadline() throws {
        try withShortDeadline {
            let harness = try ScriptHarness()
            defer { harness.close() }
            try harness.host.emulator.movie.record(to: harness.folder + "/take.rlm", options: .init())
            harness.run(300)
            try harness.load(
                """
                tastudio.greenzone_info({enabled = false})
                for _ = 1, 3 do assert(tastudio.seek(0)) assert(tastudio.seek(300)) end
                print('seeked', emu.framecount())
                """)
            XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
            XCTAssertEqual(harness.lines, ["seeked\t300"])
        }
    }

    func testACallbackFiredInsideABindingIsStillStopped() throws {
        try withShortDeadline {
            let harness = try ScriptHarness()
            defer { harness.close() }
            try harness.load("event.on('state_loaded', function() while true do end end)", name: "spin.lua")
            try harness.load("assert(savestate.save(1)) assert(savestate.load(1)) print('after')", name: "loader.lua")
            XCTAssertEqual(harness.lines, ["after"])
            XCTAssertEqual(harness.failures.map(\.script), ["spin.lua"])
            XCTAssertTrue(harness.failures.first?.message.contains("runaway loop") == true, "\(harness.failures)")
        }
    }
}
