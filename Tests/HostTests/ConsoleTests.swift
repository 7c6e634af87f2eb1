@testable import Emulation
import Foundation
import Libretro
import Media
import XCTest
@testable import Control
@testable import Run
@testable import Scripting

/// The console evaluator (`ScriptConsole`) as a person uses it through every door: chunks typed at a
/// prompt, their values and output, the state they keep, the limits around them, and the JSON door's
/// `console`/`complete` requests over the same evaluator.
final class ConsoleTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A harness under the default profile (no --allow-files), as `retrolua attach` meets a run.
    private func harness(_ configure: (inout ScriptOptions) -> Void = { _ in }) throws -> ScriptHarness {
        try ScriptHarness { options in
            options.allowFiles = false
            configure(&options)
        }
    }

    private func values(_ harness: ScriptHarness, _ chunk: String) -> [String] {
        let reply = harness.host.console.evaluate(chunk)
        XCTAssertEqual(reply.status, .done, "\(chunk): \(reply.error ?? "")")
        return reply.values
    }

    func testExpressionsShowTheirValuesAndStatePersists() throws {
        let h = try harness()
        defer { h.close() }
        XCTAssertEqual(values(h, "1+1"), ["2"])
        XCTAssertEqual(values(h, "x = 5"), [])
        XCTAssertEqual(values(h, "x * 2"), ["10"])
        // A `local` typed at the prompt becomes a console global, so the next line sees it.
        XCTAssertEqual(values(h, "local y = 7"), [])
        XCTAssertEqual(values(h, "y"), ["7"])
        XCTAssertEqual(values(h, "local function square(n) return n * n end"), [])
        XCTAssertEqual(values(h, "square(4)"), ["16"])
        XCTAssertEqual(values(h, "local a, b"), [])
        XCTAssertEqual(values(h, "a, b, y"), ["nil", "nil", "7"])
        // A longer chunk keeps its locals: they end with it.
        XCTAssertEqual(values(h, "local scratch = {} for i = 1, 3 do scratch[i] = i end"), [])
        XCTAssertEqual(values(h, "scratch"), ["nil"])
        XCTAssertEqual(values(h, "return 1, 'a', nil"), ["1", "a", "nil"])
        XCTAssertEqual(values(h, "{1, 2, {z = 3}, 'q'}"), ["{1, 2, {z = 3}, \"q\"}"])
        XCTAssertEqual(values(h, "local t = {}; t.me = t; return t"), ["{me = <cycle>}"])
        // Tables shown within limits: depth and entries.
        let big = values(h, "local t = {} for i = 1, 1000 do t[i] = i end return t")
        XCTAssertTrue(big.first?.hasSuffix("… (970 more)}") ?? false, "\(big)")
        XCTAssertEqual(values(h, "{{{{{1}}}}}"), ["{{{{…}}}}"])
        XCTAssertEqual(values(h, "emu.framecount()"), ["0"])
    }

    func testAnUnfinishedChunkAsksForMoreAndAFinishedOneRuns() throws {
        let h = try harness()
        defer { h.close() }
        XCTAssertEqual(h.host.console.evaluate("for i = 1, 3 do").status, .incomplete)
        XCTAssertEqual(h.host.console.evaluate("t = {").status, .incomplete)
        let reply = h.host.console.evaluate("for i = 1, 3 do\nprint(i)\nend")
        XCTAssertEqual(reply.status, .done)
        XCTAssertEqual(reply.output.map(\.text), ["1", "2", "3"])
        let syntax = h.host.console.evaluate("x = = 1")
        XCTAssertEqual(syntax.status, .error)
        XCTAssertTrue(syntax.error?.hasPrefix("console:1:") ?? false, "\(syntax)")
    }

    func testErrorsSayWhereAndWhatWentWrong() throws {
        let h = try harness()
        defer { h.close() }
        XCTAssertEqual(h.host.console.evaluate("error('boom')").error, "console:1: boom")
        let bad = h.host.console.evaluate("memory.read_u8('a')")
        XCTAssertEqual(
            bad.error, "console:1: memory.read_u8: bad argument #1 'address' (integer expected, got string)")
        _ = values(h, "function deep() error('inside') end")
        XCTAssertEqual(h.host.console.evaluate("deep()").error, "console:1: inside")
        // A failed chunk takes nothing down: the console and the game go on.
        XCTAssertEqual(values(h, "2 + 2"), ["4"])
        XCTAssertTrue(h.failures.isEmpty)
    }

    func testOutputGoesToWhoeverTypedTheChunk() throws {
        let h = try harness()
        defer { h.close() }
        let reply = h.host.console.evaluate("print('hi', 3); console.warn('careful'); return 1")
        XCTAssertEqual(reply.output.map(\.text), ["hi\t3", "warning: careful"])
        XCTAssertEqual(reply.output.map(\.isError), [false, true])
        XCTAssertEqual(reply.values, ["1"])
        XCTAssertEqual(h.output, "", "a chunk's output is its reply's, not the terminal's")
        // A callback the console registered runs every frame; its output, typed by nobody, goes to the terminal.
        _ = values(h, "event.on('frame_end', function() print('tick', emu.framecount()) end)")
        h.run(2)
        XCTAssertEqual(h.lines, ["tick\t1", "tick\t2"])
    }

    func testTheDefaultProfileAppliesWithoutTrustAndTrustWidensIt() throws {
        let h = try harness()
        let opened = h.host.console.evaluate("io.open('/etc/passwd')")
        XCTAssertEqual(opened.values.first, "nil")
        XCTAssertTrue(opened.values.last?.contains("outside the folders this script may read") ?? false, "\(opened)")
        XCTAssertEqual(values(h, "type(os.execute)"), ["nil"])
        h.close()
        let trusted = try harness { $0.trust = true }
        defer { trusted.close() }
        XCTAssertEqual(values(trusted, "type(os.execute)"), ["function"])
    }

    func testARunawayChunkIsStoppedAndTheConsoleKeepsItsState() throws {
        let h = try harness { $0.instructionBudget = 5_000_000 }
        defer { h.close() }
        _ = values(h, "kept = 41")
        let runaway = h.host.console.evaluate("while true do end")
        XCTAssertEqual(runaway.status, .error)
        XCTAssertTrue(runaway.error?.contains("runaway loop") ?? false, "\(runaway)")
        XCTAssertEqual(values(h, "kept + 1"), ["42"])
        h.run(3)
        XCTAssertEqual(values(h, "emu.framecount()"), ["3"])
    }

    func testFrameAdvanceRunsFramesAndAnInterruptStopsALoopOfThem() throws {
        let h = try harness()
        defer { h.close() }
        XCTAssertEqual(values(h, "emu.frameadvance(); emu.frameadvance(); return emu.framecount()"), ["2"])
        XCTAssertEqual(h.host.emulator.session.frameCount, 2)
        // Ctrl-C of the terminal's console (from another thread) stops a chunk that runs frames for ever.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            ScriptConsole.interrupt.store(true, ordering: .relaxed)
        }
        let endless = h.host.console.evaluate("while true do emu.frameadvance() end")
        XCTAssertEqual(endless.status, .error)
        XCTAssertTrue(endless.error?.contains("interrupted") ?? false, "\(endless)")
        XCTAssertGreaterThan(h.host.emulator.session.frameCount, 2)
        XCTAssertEqual(values(h, "1"), ["1"])
    }

    func testChunksAreRefusedDuringTheCoresPartOfAFrame() throws {
        let h = try harness()
        defer { h.close() }
        /// Forwards the frame's hooks to the script host and types a chunk inside the input poll.
        final class TypingInsideTheFrame: EmulatorClient {
            let host: ScriptHost
            var reply: ScriptConsole.Reply?
            init(_ host: ScriptHost) { self.host = host }
            func frameWillStart() { host.frameWillStart() }
            func frameStarted() { host.frameStarted() }
            func inputPolled() {
                host.inputPolled()
                reply = host.console.evaluate("1")
            }
            func frameEnded() { host.frameEnded() }
            func emulator(didEmit event: EmulatorEvent) { host.emulator(didEmit: event) }
        }
        let typing = TypingInsideTheFrame(h.host)
        h.host.emulator.client = typing
        h.host.emulator.runFrame()
        XCTAssertEqual(typing.reply?.status, .error)
        XCTAssertTrue(typing.reply?.error?.contains("between frames") ?? false, "\(String(describing: typing.reply))")
        h.host.emulator.client = h.host
    }

    func testCompletionOffersTheAPIAndTheConsolesOwnNames() throws {
        let h = try harness()
        defer { h.close() }
        XCTAssertEqual(h.host.console.complete("x = emu.fr"), ["emu.frameadvance", "emu.framecount"])
        XCTAssertTrue(h.host.console.complete("mem").contains("memory"))
        XCTAssertTrue(h.host.console.complete("whi").contains("while"))
        _ = values(h, "my_counter = 1; my_table = {alpha = 1, beta = 2}")
        XCTAssertEqual(h.host.console.complete("my_c"), ["my_counter"])
        XCTAssertEqual(h.host.console.complete("print(my_table.a"), ["my_table.alpha"])
        // Completing never runs a script's __index (it could loop or fail).
        _ = values(h, "trap = setmetatable({}, {__index = function() error('ran') end})")
        XCTAssertEqual(h.host.console.complete("trap."), [])
        XCTAssertEqual(h.host.console.complete("nothing.here."), [])
        XCTAssertEqual(h.host.console.complete("('x'):re"), [], "an expression's fields would need it run")
        _ = values(h, "st = savestate.create()")
        XCTAssertTrue(h.host.console.complete("st:").contains("st:save"), "a userdata's methods")
    }

    func testHotReloadLeavesTheConsoleAloneThoughAFileHasItsName() throws {
        let h = try harness { $0.watch = true }
        defer { h.close() }
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(h.folder))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        _ = values(h, "kept = 'yes'")
        try "error('a file called console is not the console')".write(
            toFile: h.folder + "/console", atomically: true, encoding: .utf8)
        h.run(40)
        XCTAssertEqual(values(h, "kept"), ["yes"])
        XCTAssertTrue(h.failures.isEmpty, "\(h.failures)")
    }

    func testTheConsoleStartsAfreshAfterItsOwnCallbackFails() throws {
        let h = try harness()
        defer { h.close() }
        _ = values(h, "lost = true; event.on('frame_end', function() error('callback broke') end)")
        h.run(1)
        let reply = h.host.console.evaluate("lost")
        XCTAssertEqual(reply.values, ["nil"])
        XCTAssertTrue(reply.output.first?.text.contains("started afresh") ?? false, "\(reply)")
        XCTAssertTrue(reply.output.first?.text.contains("callback broke") ?? false, "\(reply)")
    }

    func testScriptsReachTheConsoleBetweenFrames() throws {
        let h = try harness()
        defer { h.close() }
        try h.load(
            """
            console.evaluate("1 + 2", function(reply) print("evaluated", reply.status, reply.values[1]) end)
            console.evaluate("error('no')", function(reply) print("failed", reply.status, reply.error) end)
            console.complete("emu.frame", function(matches) print("completed", table.concat(matches, ",")) end)
            """)
        XCTAssertEqual(h.lines, [], "the requests wait for the next delivery of events")
        h.host.deliver([])
        XCTAssertEqual(
            h.lines,
            ["evaluated\tdone\t3", "failed\terror\tconsole:1: no", "completed\temu.frameadvance,emu.framecount"])
    }

    func testTheJSONDoorSpeaksToTheSameConsole() throws {
        let h = try harness()
        defer { h.close() }
        let door = ControlSession(emulator: h.host.emulator, scripts: RunControlScripts(h.host), allowEval: false)
        func ask(_ request: [String: Any]) throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(door.handle(line).utf8)) as? [String: Any])
        }
        _ = values(h, "shared = 'from the window'")
        let reply = try ask(["cmd": "console", "lua": "print('x'); return shared"])
        XCTAssertEqual(reply["ok"] as? Bool, true)
        XCTAssertEqual(reply["status"] as? String, "done")
        XCTAssertEqual(reply["values"] as? [String], ["from the window"])
        XCTAssertEqual((reply["output"] as? [[String: String]])?.first, ["text": "x", "stream": "out"])
        XCTAssertEqual(try ask(["cmd": "console", "lua": "if true then"])["status"] as? String, "incomplete")
        let failed = try ask(["cmd": "console", "lua": "error('x')"])
        XCTAssertEqual(failed["error"] as? String, "console:1: x")
        XCTAssertEqual(try ask(["cmd": "complete", "text": "emu.framec"])["matches"] as? [String], ["emu.framecount"])
        XCTAssertEqual(try ask(["cmd": "console"])["error"] as? String, "console needs \"lua\": a chunk of Lua")
        // eval keeps its meaning: --trust only.
        XCTAssertEqual(
            try ask(["cmd": "eval", "lua": "return 1"])["error"] as? String, "eval is only allowed with --trust")
    }

    func testFrameAsPNGAndMemoryAsIntegers() throws {
        let h = try harness()
        defer { h.close() }
        h.run(3)
        let door = ControlSession(emulator: h.host.emulator, scripts: RunControlScripts(h.host), allowEval: false)
        door.encodePNG = { try PNGFile.encode($0) }
        func ask(_ request: [String: Any]) throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(door.handle(line).utf8)) as? [String: Any])
        }
        let frame = try ask(["cmd": "frame", "format": "png", "scale": 2])
        let png = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(frame["data"] as? String)).map { [UInt8]($0) })
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let picture = try XCTUnwrap(h.host.emulator.picture())
        // IHDR: width and height, big-endian, at bytes 16 and 20.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual([width, height], [picture.width * 2, picture.height * 2])
        XCTAssertEqual(frame["width"] as? Int, picture.width * 2)
        XCTAssertEqual(try ask(["cmd": "frame", "format": "png", "scale": 9])["ok"] as? Bool, false)
        let integers = try XCTUnwrap(
            try ask(["cmd": "read", "address": 0, "length": 16, "encoding": "integers"])["values"] as? [Int])
        let base64 = try XCTUnwrap(try ask(["cmd": "read", "address": 0, "length": 16])["data"] as? String)
        XCTAssertEqual(integers, [UInt8](try XCTUnwrap(Data(base64Encoded: base64))).map(Int.init))
        XCTAssertEqual(
            try ask(["cmd": "read", "address": 0, "encoding": "hex"])["error"] as? String,
            "\"encoding\" is base64 or integers, got \"hex\"")
    }

    func testAScaledPictureRepeatsEachPixel() {
        let image = RGBAImage(rgba: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], width: 2, height: 2)
        let scaled = image.scaled(by: 3)
        XCTAssertEqual([scaled.width, scaled.height], [6, 6])
        for y in 0..<6 {
            for x in 0..<6 {
                let source = (y / 3 * 2 + x / 3) * 4, target = (y * 6 + x) * 4
                XCTAssertEqual(Array(scaled.rgba[target..<target + 4]), Array(image.rgba[source..<source + 4]))
            }
        }
        XCTAssertEqual(image.scaled(by: 1), image)
    }
}
