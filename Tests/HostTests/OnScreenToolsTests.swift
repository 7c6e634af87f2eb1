@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media

/// The menu (lua/defaults/menu.lua) and the RAM tools (lua/defaults/ramtools.lua) driven by synthetic key
/// events against the NES demo, whose player x is system RAM 0x03 (right adds 1 a frame).
final class OnScreenToolsTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func harness(_ names: [String]) throws -> ScriptHarness {
        let harness = try ScriptHarness()
        for name in names { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        return harness
    }

    /// Presses and releases each key in turn (`"12"` types a number: one key per character).
    private func keys(_ harness: ScriptHarness, _ names: String...) {
        for name in names {
            harness.host.deliver([.keyDown(name, repeat: false)])
            harness.host.deliver([.keyUp(name)])
        }
    }

    private func type(_ harness: ScriptHarness, _ text: String) {
        for character in text { keys(harness, String(character)) }
        keys(harness, "return")
    }

    private func x(_ harness: ScriptHarness) -> Int { Int(harness.session.systemRAM()[3]) }

    private func results(_ harness: ScriptHarness) -> [(domain: String, address: Int)] {
        let emulator = harness.host.emulator
        return (emulator.ramSearch?.results(limit: 10_000, memory: emulator.memory) ?? []).map {
            ($0.domain, $0.address)
        }
    }

    /// Holds the right arrow (through the input default) for `frames` frames.
    private func walk(_ harness: ScriptHarness, _ key: String = "right", frames: Int) {
        harness.host.screen.devices.keys = [key]
        harness.run(frames)
        harness.host.screen.devices.keys = []
        harness.run(1)
    }

    func testRAMSearchModesFindThePlayerX() throws {
        let harness = try harness(["input", "ramtools"])
        harness.run(5)
        keys(harness, "f12")  // open: an 8-bit unsigned search of system_ram, hex
        XCTAssertEqual(harness.host.emulator.ramSearch?.bits, 8)
        // 16-bit, equal to (hex): x and y together, little-endian, at 0x03.
        keys(harness, "s")
        XCTAssertEqual(harness.host.emulator.ramSearch?.bits, 16)
        let pair = x(harness) + Int(harness.session.systemRAM()[4]) << 8
        keys(harness, "e")
        type(harness, String(pair, radix: 16))
        XCTAssertTrue(results(harness).contains { $0.address == 3 }, "\(results(harness).prefix(5))")
        // 8-bit signed, changed by -5 (left 5 frames), panel closed while playing.
        keys(harness, "s", "s", "n")  // 16 → 32 → 8 bits, then signed
        XCTAssertEqual(harness.host.emulator.ramSearch?.bits, 8)
        XCTAssertEqual(harness.host.emulator.ramSearch?.signed, true)
        keys(harness, "f12")
        walk(harness, "left", frames: 5)
        keys(harness, "f12", "c")
        type(harness, "-5")
        let afterChange = results(harness)
        XCTAssertTrue(afterChange.contains { $0.address == 3 }, "\(afterChange.prefix(5))")
        XCTAssertLessThan(afterChange.count, 10, "changed by -5 narrows to a few: \(afterChange.prefix(10))")
        // Decimal equal-to keeps it.
        keys(harness, "x", "e")
        type(harness, String(x(harness)))
        XCTAssertTrue(results(harness).contains { $0.address == 3 })
        // Another domain: the CPU bus, where system RAM appears at 0x0000 and its mirrors.
        let domains = harness.host.emulator.memory.domains.map(harness.host.emulator.memory.name)
        let bus = try XCTUnwrap(domains.firstIndex(of: "bus"))
        let start = domains.firstIndex(of: "system_ram") ?? 0
        for _ in 0..<((bus - start + domains.count) % domains.count) { keys(harness, "o") }
        XCTAssertEqual(harness.host.emulator.ramSearch?.domainNames, ["bus"])
        keys(harness, "e")
        type(harness, String(x(harness)))
        let onBus = results(harness)
        XCTAssertTrue(onBus.contains { $0.domain == "bus" && $0.address == 3 }, "\(onBus.prefix(5))")
        // The chosen result is frozen, not the first.
        XCTAssertGreaterThan(onBus.count, 1)
        keys(harness, "down", "f")
        let frozen = try XCTUnwrap(harness.host.emulator.cheats.cheats.last)
        XCTAssertTrue(frozen.description.contains(String(format: "0x%X", onBus[1].address)), frozen.description)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testTheOpenToolsTakeTheInputFromTheGameAndTheHotkeys() throws {
        let harness = try harness(["input", "hotkeys", "ramtools"])
        harness.run(3)
        keys(harness, "f12")
        let before = x(harness)
        walk(harness, frames: 5)
        XCTAssertEqual(x(harness), before, "the game gets no input while the panel is open")
        XCTAssertTrue(harness.host.emulator.paused, "the open panel pauses the game")
        keys(harness, "p")
        XCTAssertTrue(harness.host.emulator.paused, "the pause hotkey is not heard (it would resume)")
        keys(harness, "escape")  // closes the panel; the quit hotkey does not hear it
        XCTAssertNil(harness.host.emulator.exitCode)
        XCTAssertFalse(harness.host.emulator.paused, "closing the panel resumes the game it paused")
        walk(harness, frames: 5)
        XCTAssertEqual(x(harness), before + 5, "closed, the game moves again")
        try harness.load("print(input.capture(true)); print(input.capture())", name: "grab.lua")
        keys(harness, "f12")
        harness.run(1)
        XCTAssertEqual(harness.lines, ["true", "true"])
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty, "the panel did not open: another script holds the input")
        try harness.load("assert(scripts.unload('grab.lua'))", name: "unloader.lua")
        harness.run(1)
        keys(harness, "f12")
        harness.run(1)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "unloading the holder released the input")
    }

    func testReboundKeysWorkAndTheOldOnesDoNot() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: harness.folder + "/config", withIntermediateDirectories: true)
        try "return { panel_key = 'f10', keys = { freeze = 'z' } }".write(
            toFile: harness.folder + "/config/ramtools.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/ramtools.lua")
        harness.run(2)
        keys(harness, "f12")
        XCTAssertNil(harness.host.emulator.ramSearch, "f12 is no longer the panel's key")
        keys(harness, "f10", "f")
        XCTAssertTrue(harness.host.emulator.cheats.cheats.isEmpty, "f no longer freezes")
        keys(harness, "z")
        XCTAssertEqual(harness.host.emulator.cheats.cheats.count, 1, "z does")
        XCTAssertFalse(harness.errors.contains("warning"), "the settings file is valid: \(harness.errors)")
    }

    func testWatchListGraphAndPerGameFile() throws {
        let harness = try harness(["input", "ramtools"])
        harness.run(3)
        keys(harness, "f12", "tab", "a")  // the watch page; add an address
        type(harness, "3")
        keys(harness, "l")
        type(harness, "px")
        keys(harness, "t")  // hex → unsigned
        keys(harness, "f12")
        walk(harness, frames: 125)
        // The graph: green (#40ff40) pixels rising from left to right as x grew.
        let hud = harness.host.screen.hudCanvas
        var columns: [Int: Int] = [:]
        let pixels = hud.pixels
        for y in 0..<hud.height {
            for x in 0..<hud.width {
                let at = (y * hud.width + x) * 4
                if pixels[at] == 0x40 && pixels[at + 1] == 0xFF && pixels[at + 2] == 0x40 { columns[x] = y }
            }
        }
        XCTAssertGreaterThan(columns.count, 40, "the graph spans the history")
        let left = try XCTUnwrap(columns.keys.min()), right = try XCTUnwrap(columns.keys.max())
        XCTAssertGreaterThan(columns[left]!, columns[right]! + 8, "the line rises: left y \(columns[left]!)")
        let folder = harness.folder + "/data/ramwatch"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertEqual(files.count, 1)
        XCTAssertTrue(files[0].hasPrefix("demo-") && files[0].hasSuffix(".wch"), files[0])
        let saved = try String(contentsOfFile: folder + "/" + files[0], encoding: .utf8)
        XCTAssertTrue(saved.contains("0003\tb\tu\t0\tsystem_ram\tpx\tgraph"), saved)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
        harness.close()
        // The same game in a new run: the list comes back (removing its watch rewrites the file).
        let again = try ScriptHarness()
        try FileManager.default.createDirectory(
            atPath: again.folder + "/data/ramwatch", withIntermediateDirectories: true)
        try (saved + "zz\tb\tu\t0\tsystem_ram\tbad\n0800\tb\tu\t0\tsystem_ram\toutside\n").write(
            toFile: again.folder + "/data/ramwatch/" + files[0], atomically: true, encoding: .utf8)
        try again.load(file: Fixtures.root + "/lua/defaults/ramtools.lua")
        XCTAssertTrue(
            again.errors.contains("line 3: the address must be hex") && again.errors.contains("line 4: address 2048"),
            again.errors)
        again.run(2)
        XCTAssertFalse(again.host.screen.hudCanvas.isEmpty, "the watch overlay is drawn")
        keys(again, "f12", "tab", "delete")
        let rewritten = try String(contentsOfFile: again.folder + "/data/ramwatch/" + files[0], encoding: .utf8)
        XCTAssertFalse(rewritten.contains("system_ram"), rewritten)
        again.close()
    }

    func testMemoryEditorJumpsAndWritesBytes() throws {
        let harness = try harness(["ramtools"])
        harness.run(2)
        keys(harness, "f12", "tab", "tab", "j")
        type(harness, "10")
        keys(harness, "a", "b", "c", "d")
        XCTAssertEqual(harness.session.systemRAM()[0x10], 0xAB)
        XCTAssertEqual(harness.session.systemRAM()[0x11], 0xCD, "the cursor moves on after a byte")
        keys(harness, "left", "w")  // watch the byte under the cursor
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testMenuChangesACoreOptionLiveByKeysAndGamepad() throws {
        let harness = try harness(["input", "hotkeys", "menu"])
        try harness.load(
            """
            local option = emu.options()[1]
            print(option.key, option.value, #option.values)
            """, name: "probe.lua")
        let first = harness.lines[0].split(separator: "\t").map(String.init)
        XCTAssertGreaterThanOrEqual(Int(first[2]) ?? 0, 2, "nestopia's first option has values to choose")
        harness.run(2)
        keys(harness, "f1", "down", "down", "return")  // Resume, Hotkeys, Core options
        harness.run(1)
        keys(harness, "right")
        XCTAssertTrue(harness.host.emulator.paused, "the open menu pauses the game")
        keys(harness, "p")  // not the pause hotkey while the menu is open
        XCTAssertTrue(harness.host.emulator.paused, "p did not toggle the pause")
        try harness.load("print(emu.option('\(first[0])'))", name: "after.lua")
        let changed = harness.lines.last!
        XCTAssertNotEqual(changed, first[1], "the option changed live")
        var pad = HostDevices.Gamepad(name: "Pad")
        pad.buttons = ["dpleft"]
        harness.host.screen.devices.gamepads = [pad]
        harness.run(1)
        harness.host.screen.devices.gamepads = []
        harness.run(1)
        try harness.load("print(emu.option('\(first[0])'))", name: "back.lua")
        XCTAssertEqual(harness.lines.last!, first[1], "the gamepad's d-pad set it back")
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the menu is drawn")
        keys(harness, "escape")
        XCTAssertNil(harness.host.emulator.exitCode, "escape closed the menu, not the run")
        XCTAssertFalse(harness.host.emulator.paused, "closing the menu resumed the game")
        harness.run(1)
        XCTAssertTrue(harness.host.screen.hudCanvas.isEmpty, "closed")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testMenuSavesASlotWithAThumbnailAndTurnsADefaultOffAndOn() throws {
        let harness = try harness(["cheats", "menu"])
        let cheats = Fixtures.root + "/lua/defaults/cheats.lua"
        harness.host.defaultScripts = [("cheats", cheats), ("menu", Fixtures.root + "/lua/defaults/menu.lua")]
        harness.run(3)
        var pad = HostDevices.Gamepad(name: "Pad")
        pad.buttons = ["guide"]
        harness.host.screen.devices.gamepads = [pad]
        harness.run(1)
        harness.host.screen.devices.gamepads = []
        harness.run(1)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty, "the guide button opened the menu")
        keys(harness, "down", "down", "down", "return", "x")  // Save states; x saves slot 0
        let folder = harness.folder + "/data/thumbnails"
        let games = try FileManager.default.contentsOfDirectory(atPath: folder)
        let thumbnail = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(games[0])/slot0.rgba"))
        let frame = harness.session.core.currentFrame()!
        let header = "\(frame.width / 4) \(frame.height / 4)\n"
        XCTAssertEqual(thumbnail.count, header.utf8.count + frame.width * frame.height / 4, "a quarter of each side")
        XCTAssertEqual(String(decoding: thumbnail.prefix(header.utf8.count), as: UTF8.self), header)
        try harness.load(
            "local info = savestate.slot_info(0) print(info.size > 0, savestate.slot_info(1))", name: "slots.lua")
        XCTAssertEqual(harness.lines.last, "true\tnil", "slot 0 holds a state, slot 1 none")
        harness.run(1)
        keys(harness, "backspace", "down", "down", "down", "down", "return")  // Default scripts
        harness.run(1)
        let loaded = { harness.host.scriptStatuses.first { $0.name == "cheats.lua" }?.loaded }
        keys(harness, "return")
        harness.run(1)
        XCTAssertEqual(loaded(), false, "turned off")
        keys(harness, "return")
        harness.run(1)
        XCTAssertEqual(loaded(), true, "turned on again")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testMenuShowsAchievementsWithTheirProgress() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(
            atPath: harness.folder + "/config/achievements", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Fixtures.root + "/examples/achievements/demo.json",
            toPath: harness.folder + "/config/achievements/demo.json")
        for name in ["achievements", "menu"] { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        harness.run(3)
        for _ in 0..<2 {
            harness.playerInput(a: true)
            harness.run(2)
            harness.playerInput(a: false)
            harness.run(2)
        }
        let progress = try String(
            contentsOfFile: harness.folder + "/data/achievements/demo.progress", encoding: .utf8)
        XCTAssertEqual(progress, "4 2 5\n", "the measured achievement: 2 of 5 presses")
        keys(harness, "f1", "down", "down", "down", "down", "down", "return")  // Achievements
        harness.run(1)
        XCTAssertFalse(harness.host.screen.hudCanvas.isEmpty)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testAmountsWrapAtTheValuesSizeAndSignedSearchesTakeNegatives() throws {
        let harness = try ScriptHarness()
        try harness.load(
            """
            local function has(address)
              for _, r in ipairs(cheats.search_results(4096)) do if r.address == address then return true end end
              return false
            end
            memory.write_u8(0x10, 3)
            cheats.search_start()
            memory.write_u8(0x10, 254)
            cheats.search("decreased_by", 5)
            print(has(0x10))
            cheats.search_start({ signed = true })
            memory.write_u8(0x10, 250)
            cheats.search("equal", -6)
            print(has(0x10), cheats.search_results(1)[1].value)
            cheats.search_start({ size = 16, signed = true, big_endian = true })
            memory.write_u16_be(0x10, 0xFFFE)
            cheats.search("less", -1)
            print(has(0x10))
            """)
        XCTAssertEqual(harness.lines, ["true", "true\t250", "true"])
    }

    func testNewFunctionsRefuseBadArguments() throws {
        let harness = try ScriptHarness { $0.allowFiles = false }
        try harness.load(
            """
            local function check(...) local ok, message = pcall(...) print(ok, message) end
            check(input.capture, "yes")
            check(gui.text_size, "x", 0)
            local many = {}
            for i = 1, 2 * 65537 do many[i] = 1 end
            check(gui.polyline, many)
            check(gui.polyline, "points")
            check(cheats.search_start, { signed = "no" })
            print(scripts.load("/etc/hostname"))
            local last
            for _ = 1, 70 do last = { scripts.reload("test.lua") } end
            print(table.unpack(last))
            """)
        let lines = harness.lines
        XCTAssertEqual(lines.count, 7, "\(lines)")
        XCTAssertTrue(lines[0].contains("input.capture: bad argument #1 'on' (boolean expected"), lines[0])
        XCTAssertTrue(lines[1].contains("gui.text_size: bad argument #2 'scale' (must be 1…16, got 0)"), lines[1])
        XCTAssertTrue(lines[2].contains("at most 65536 points, got 65537"), lines[2])
        XCTAssertTrue(lines[3].contains("gui.polyline: bad argument #1 'points' (table expected"), lines[3])
        XCTAssertTrue(lines[4].contains("bad field 'signed'"), lines[4])
        XCTAssertTrue(lines[5].hasPrefix("nil\t/etc/hostname: outside the folders"), lines[5])
        XCTAssertEqual(lines[6], "nil\t64 script requests already wait for the next frame")
        harness.run(1)
        XCTAssertTrue(harness.failures.isEmpty, "64 reloads of itself, then it runs on: \(harness.failures)")
    }

    func testMenuTextGrowsWithTheWindow() throws {
        var heights: [Int] = []
        for size in [(256, 240), (1024, 960)] {
            let harness = try harness(["menu"])
            harness.host.screen.windowSize = size
            harness.run(1)
            keys(harness, "f1")
            harness.run(1)
            let hud = harness.host.screen.hudCanvas
            let pixels = hud.pixels
            // The panel's height: the lowest row with its opaque background.
            var lowest = 0
            for y in 0..<hud.height where pixels[(y * hud.width + 20) * 4 + 3] != 0 { lowest = y }
            heights.append(lowest)
            harness.close()
        }
        XCTAssertGreaterThan(heights[1], heights[0] * 2, "\(heights)")
    }

    func testScriptsAreListedUnloadedReloadedAndTheirErrorsKept() throws {
        let harness = try ScriptHarness()
        let broken = try harness.load("event.on('frame_end', function() error('boom') end)", name: "broken.lua")
        try harness.load(
            """
            event.on('frame_end', function()
              if emu.framecount() == 3 then
                for _, s in ipairs(scripts.list()) do print(s.name, s.loaded, (s.error or ''):match('[^\\n]*')) end
                print(scripts.unload('nothing.lua'))
                print(scripts.load('/nonexistent/x.lua'))
                assert(scripts.reload('broken.lua'))
              end
            end)
            """, name: "lister.lua")
        harness.run(4)
        let lines = harness.lines
        XCTAssertTrue(lines[0].hasPrefix("broken.lua\tfalse\t") && lines[0].contains("boom"), lines[0])
        XCTAssertEqual(lines[1], "lister.lua\ttrue\t")
        XCTAssertEqual(lines[2], "nil\tno loaded script 'nothing.lua'")
        XCTAssertTrue(lines[3].hasPrefix("nil\t/nonexistent/x.lua"), lines[3])
        XCTAssertEqual(harness.failures.count, 2, "reloaded, it failed again: \(harness.failures)")
        XCTAssertTrue(harness.host.scriptStatuses.contains { $0.path == broken && !$0.loaded })
        let polyline = try harness.load("print(pcall(gui.polyline, {1, 2, 3}))", name: "odd.lua")
        _ = polyline
        XCTAssertTrue(harness.lines.last!.contains("even number of coordinates"), harness.lines.last!)
        try harness.load("print(pcall(gui.text, 0, 0, 'x', { scale = 17 }))", name: "scale.lua")
        XCTAssertTrue(
            harness.lines.last!.contains("'scale'") && harness.lines.last!.contains("1…16"), harness.lines.last!)
        try harness.load("print(pcall(gui.polyline, {1, 2, 'a', 4}))", name: "nonint.lua")
        XCTAssertTrue(harness.lines.last!.contains("item 3 must be an integer"), harness.lines.last!)
    }
}

/// Issue 25's menu and RAM tools items, in-process: the pause, the frozen marker, BizHawk watch lists,
/// fresh search values, kept core options, the hotkeys page, typed cheats, the first-run hint, speech.
extension OnScreenToolsTests {
    /// What the tools speak (`emu.speak`), as --speak would hand it to espeak-ng.
    private func listen(_ harness: ScriptHarness) -> () -> [String] {
        final class Said: @unchecked Sendable { var lines: [String] = [] }
        let said = Said()
        harness.host.onSpeak = { said.lines.append($0) }
        return { said.lines }
    }

    private func hudPixels(_ harness: ScriptHarness) -> [UInt8] {
        harness.host.redrawPaused()  // the panel paused the game: redrawn without running a frame
        return harness.host.screen.hudCanvas.pixels
    }

    func testTheRAMToolsPauseTheGameWhileOpenAndResumeAsBefore() throws {
        let harness = try harness(["input", "hotkeys", "ramtools"])
        harness.run(2)
        keys(harness, "f12")
        XCTAssertTrue(harness.host.emulator.paused, "typing a value costs the game nothing")
        keys(harness, "e", "5")
        XCTAssertTrue(harness.host.emulator.paused)
        keys(harness, "return", "f12")
        XCTAssertFalse(harness.host.emulator.paused, "closed: running again")
        // Paused before opening: still paused after closing.
        keys(harness, "p")
        XCTAssertTrue(harness.host.emulator.paused)
        keys(harness, "f12", "tab", "escape")
        XCTAssertTrue(harness.host.emulator.paused, "the person's pause is kept")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testFrozenValuesAreMarkedInTheSearchTheWatchListAndTheMemoryView() throws {
        let harness = try harness(["ramtools"])
        let said = listen(harness)
        harness.run(2)
        keys(harness, "f12")  // the search page: the chosen result is system_ram 0x0000
        let search = hudPixels(harness)
        keys(harness, "f")
        XCTAssertEqual(harness.host.emulator.cheats.cheats.count, 1)
        XCTAssertTrue(hudPixels(harness) != search, "the frozen result is marked")
        keys(harness, "down", "up")
        XCTAssertTrue(
            said().last?.contains("address 0, value") == true && said().last?.hasSuffix(", frozen") == true,
            "\(said())")
        keys(harness, "tab", "a")
        type(harness, "0")  // watch the frozen byte
        keys(harness, "down", "up")
        XCTAssertTrue(said().last?.hasSuffix(", frozen") == true, "\(said())")
        let watched = hudPixels(harness)
        try harness.load("for _, c in ipairs(cheats.list()) do cheats.enable(c.id, false) end", name: "off.lua")
        XCTAssertTrue(hudPixels(harness) != watched, "the mark goes with the freeze")
        keys(harness, "tab")  // the memory page, the cursor on 0x0000; the mark on byte 2
        try harness.load("cheats.add_ram({ address = 2, value = 7 })", name: "on.lua")
        let marked = hudPixels(harness)
        try harness.load("cheats.clear()", name: "clear.lua")
        XCTAssertTrue(hudPixels(harness) != marked, "memory rows mark the frozen byte")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testSearchResultsAreReadAgainAfterAnEdit() throws {
        let harness = try harness(["ramtools"])
        try harness.load("memory.write_u8(0, 0x12)", name: "set.lua")
        keys(harness, "f12")  // results: system_ram 0x0000 first, value 12
        let before = hudPixels(harness)
        keys(harness, "tab", "tab", "f", "f", "tab")  // the memory page writes FF at 0x0000; back to the search
        XCTAssertEqual(harness.session.systemRAM()[0], 0xFF)
        keys(harness, "tab")
        let after = hudPixels(harness)
        XCTAssertTrue(after != before, "the result shows FF, not the 12 read before the edit")
        // And the same page read again without an edit draws the same (nothing else changed).
        XCTAssertTrue(hudPixels(harness) == after)
    }

    func testBizHawkWatchListsOpenFromATypedPathWithTheirDomainNames() throws {
        let harness = try harness(["ramtools"])
        let file = harness.folder + "/Lives.wch"
        try """
        SystemID NES
        0003\tb\tu\t0\tRAM\tPlayer X
        0000\tS\t_\t0\tRAM\t
        0000\tb\th\t0\tWRAM\tsave byte
        0010\tb\tb\t0\tSystem Bus\tbus byte
        0002\tw\tu\t0\tsystem_ram\tours
        0004\tb\tu\t0\tCHR VROM\tnot ours
        """.write(toFile: file, atomically: true, encoding: .utf8)
        harness.run(1)
        keys(harness, "f12", "tab", "p")
        type(harness, file)
        XCTAssertTrue(harness.errors.contains("line 7: no memory domain 'CHR VROM'"), harness.errors)
        let folder = harness.folder + "/data/ramwatch"
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        let saved = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
        XCTAssertTrue(saved.contains("0003\tb\tu\t0\tsystem_ram\tPlayer X"), saved)
        XCTAssertTrue(saved.contains("0000\tb\th\t0\tsave_ram\tsave byte"), saved)
        XCTAssertTrue(saved.contains("0010\tb\th\t0\tbus\tbus byte"), saved)
        XCTAssertTrue(saved.contains("0002\tw\tu\t0\tsystem_ram\tours"), saved)
        XCTAssertEqual(saved.split(separator: "\n").count, 5, "four watches and the header: \(saved)")
        // A file with nothing usable leaves the list as it was, and says so.
        let empty = harness.folder + "/none.wch"
        try "0003\tb\tu\t0\tPPU Bus\tx\n".write(toFile: empty, atomically: true, encoding: .utf8)
        keys(harness, "p")
        type(harness, empty)
        XCTAssertEqual(try String(contentsOfFile: folder + "/" + name, encoding: .utf8), saved)
        XCTAssertTrue(harness.errors.contains("nothing loaded; line 1: no memory domain 'PPU Bus'"), harness.errors)
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    func testACoreOptionChangedInTheMenuIsKeptForTheNextStart() throws {
        let harness = try harness(["menu"])
        harness.run(1)
        let first = try XCTUnwrap(harness.session.core.options.definitions.first)
        keys(harness, "f1", "down", "down", "return", "right")  // Core options, the first one, the next value
        let value = try XCTUnwrap(harness.session.core.options.value(first.key))
        XCTAssertNotEqual(value, first.defaultValue)
        let config = harness.session.paths.config
        let file = config + "/options/\(harness.session.coreName).opt"
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "\(first.key) = \"\(value)\"\n")
        // A per-game file that sets the option is the one changed (the core's file keeps its line).
        let game = config + "/options/\(harness.session.coreName)/demo.opt"
        try FileManager.default.createDirectory(
            atPath: config + "/options/\(harness.session.coreName)", withIntermediateDirectories: true)
        try "# mine\n\(first.key) = \"\(first.defaultValue)\"\nother = \"1\"\n".write(
            toFile: game, atomically: true, encoding: .utf8)
        keys(harness, "right")
        let next = try XCTUnwrap(harness.session.core.options.value(first.key))
        XCTAssertEqual(
            try String(contentsOfFile: game, encoding: .utf8), "# mine\n\(first.key) = \"\(next)\"\nother = \"1\"\n")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "\(first.key) = \"\(value)\"\n")
        harness.close()
        // The next start reads it.
        let session = try Fixtures.session(rom: Fixtures.nesROM, folder: harness.folder)
        XCTAssertEqual(session.core.options.value(first.key), next)
        try session.close()
    }

    func testTheHotkeysPageListsRewindAndTurbo() throws {
        let harness = try ScriptHarness()
        try FileManager.default.createDirectory(atPath: harness.folder + "/config", withIntermediateDirectories: true)
        try "return { key = 'r' }".write(
            toFile: harness.folder + "/config/rewind.lua", atomically: true, encoding: .utf8)
        try "return { turbo = { { key = 'v', button = 'b' } } }".write(
            toFile: harness.folder + "/config/input.lua", atomically: true, encoding: .utf8)
        try harness.load(file: Fixtures.root + "/lua/defaults/menu.lua")
        let said = listen(harness)
        keys(harness, "f1", "down", "return", "up")  // Hotkeys; up wraps to the last item
        XCTAssertEqual(said().last, "turbo b, v")
        keys(harness, "up")
        XCTAssertEqual(said().last, "rewind while held, r")
        XCTAssertFalse(harness.errors.contains("warning"), "the input settings are read quietly: \(harness.errors)")
    }

    func testACheatCodeTypedInTheMenuIsAdded() throws {
        let harness = try harness(["menu"])
        harness.run(1)
        keys(harness, "f1", "down", "down", "down", "down", "return", "return")  // Cheats, "add a cheat code..."
        type(harness, "0003=05")
        keys(harness, "return")
        type(harness, "sxiopo")
        let list = harness.host.emulator.cheats.cheats
        XCTAssertEqual(list.count, 2, "\(list)")
        XCTAssertEqual(list.first?.description, "0003=05")
        XCTAssertEqual(list.last?.description, "sxiopo")
        keys(harness, "escape")
        harness.run(2)
        XCTAssertEqual(harness.session.systemRAM()[3], 5, "the RAM cheat holds the value")
        XCTAssertTrue(harness.errors.contains("cheat added: sxiopo"), harness.errors)
    }

    func testTheFirstRunSaysWhichKeysOpenTheToolsOnce() throws {
        let harness = try harness(["menu"])
        harness.run(2)
        XCTAssertTrue(harness.errors.contains("[menu.lua] keys: f1 menu, f12 RAM tools, f3 TAS editor"), harness.errors)
        let remembered = harness.folder + "/data/remembered/menu.lua"
        let text = try String(contentsOfFile: remembered, encoding: .utf8)
        XCTAssertTrue(text.contains("first_run_hint = false"), text)
        harness.close()
        let again = try ScriptHarness()
        try FileManager.default.createDirectory(
            atPath: again.folder + "/data/remembered", withIntermediateDirectories: true)
        try text.write(toFile: again.folder + "/data/remembered/menu.lua", atomically: true, encoding: .utf8)
        try again.load(file: Fixtures.root + "/lua/defaults/menu.lua")
        again.run(3)
        XCTAssertFalse(again.errors.contains("keys:"), again.errors)
    }

    func testTheMenuAndTheRAMToolsSpeakWhatTheyFocus() throws {
        let harness = try harness(["menu", "ramtools"])
        let said = listen(harness)
        harness.run(2)
        keys(harness, "f1")
        XCTAssertEqual(said().last, "Retrolua. Resume")
        keys(harness, "down", "down", "down")
        XCTAssertEqual(said().last, "Save states")
        keys(harness, "return")
        XCTAssertEqual(said().last, "Save states (return loads, x saves). slot 0, empty")
        keys(harness, "backspace")
        XCTAssertEqual(said().last, "Retrolua. Save states")
        keys(harness, "escape")
        XCTAssertEqual(said().last, "menu closed")
        keys(harness, "f12")
        XCTAssertTrue(said().last?.hasPrefix("RAM search, ") == true, "\(said())")
        keys(harness, "e")
        XCTAssertEqual(said().last, "equal to, hex")
        keys(harness, "escape", "tab")
        XCTAssertTrue(said().last?.hasPrefix("RAM watch, 0 watches") == true, "\(said())")
        keys(harness, "tab", "right")
        let byte = String(format: "%02X", harness.session.systemRAM()[1])
        XCTAssertEqual(said().last, "memory, system_ram address 1, value \(byte)")
        // Without --speak, emu.speak says so and nothing is spoken.
        harness.host.onSpeak = nil
        try harness.load("print(emu.speak('x'))", name: "quiet.lua")
        XCTAssertEqual(harness.lines.last, "false")
    }
}

/// The same items as a person meets them: a real window under the test X server, keys typed by xdotool, the
/// default profile and every default loaded.
extension OnScreenToolsTests {
    private func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func testInAWindowTheRAMToolsPauseTheGameAndOpenABizHawkWatchList() throws {
        let home = Fixtures.temporaryFolder()
        let list = home + "/Lives.wch"
        try write("SystemID NES\n0003\tb\tu\t0\tRAM\tPlayer X\n0000\tS\t_\t0\tRAM\t\n0000\tb\th\t0\tWRAM\tsave\n", list)
        let observer = home + "/observe.lua"
        try write(
            """
            local last
            event.on("draw", function()
              local paused = emu.paused()
              if paused ~= last then print(string.format("paused %s at %d", tostring(paused), emu.framecount())) end
              last = paused
            end)
            """, observer)
        let session = try WindowSession(["--no-audio", "--script", observer], home: home)
        XCTAssertTrue(session.waitUntil { session.stdout.contains("paused false") }, session.stderr)
        try session.press("F12")
        XCTAssertTrue(session.waitUntil { session.stdout.contains("paused true") }, session.stdout + session.stderr)
        try session.press("e")
        try session.type("5")  // a search value typed while the game waits
        try session.press("Return", "Tab", "p")
        try session.type(list)
        try session.press("Return")
        XCTAssertTrue(
            session.waitUntil { session.stderr.contains("RAM watch: 2 watches from \(list)") }, session.stderr)
        try session.press("Escape")
        func frames(_ state: String) -> [Int] {
            session.stdout.split(separator: "\n").compactMap {
                $0.hasPrefix("paused \(state) at ") ? Int($0.split(separator: " ").last ?? "") : nil
            }
        }
        XCTAssertTrue(session.waitUntil { frames("false").count == 2 }, session.stdout)
        let opened = try XCTUnwrap(frames("true").first), closed = try XCTUnwrap(frames("false").last)
        XCTAssertLessThanOrEqual(closed - opened, 1, "no frame ran while the panel had the keyboard")
        XCTAssertEqual(session.stop(), 143, session.stderr)
        let folder = home + "/.local/share/retrolua/data/ramwatch"
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        let saved = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
        XCTAssertTrue(saved.contains("0003\tb\tu\t0\tsystem_ram\tPlayer X"), saved)
        XCTAssertTrue(saved.contains("0000\tb\th\t0\tsave_ram\tsave"), saved)
        XCTAssertFalse(session.stderr.contains("outside the folders"), session.stderr)
    }

    func testInAWindowTheMenuLoadsAScriptKeepsAnOptionTakesACheatAndSpeaks() throws {
        let home = Fixtures.temporaryFolder()
        let bin = home + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try write("#!/bin/sh\ncat >> \(home)/said.txt\necho >> \(home)/said.txt\n", bin + "/espeak-ng")
        chmod(bin + "/espeak-ng", 0o755)
        let picked = home + "/Picked-script.lua"
        try write(
            """
            print("picked script running")
            event.on("frame_end", function() if emu.framecount() % 20 == 0 then print("x " .. memory.read_u8(3)) end end)
            """, picked)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let session = try WindowSession(["--no-audio", "--speak"], home: home, environment: ["PATH": path])
        XCTAssertTrue(
            session.waitUntil { session.stderr.contains("[menu.lua] keys: f1 menu, f12 RAM tools, f3 TAS editor") },
            "the first run's hint: " + session.stderr)
        // Each step waits for what the menu says (as a blind player would): a busy machine delays keys.
        func spoken() -> String { (try? String(contentsOfFile: home + "/said.txt", encoding: .utf8)) ?? "" }
        func step(_ keys: String..., until part: String) throws {
            for key in keys { try session.press(key) }
            XCTAssertTrue(session.waitUntil { spoken().contains(part) }, "after \(keys): \(spoken()) \(session.stderr)")
        }
        try step("F1", until: "Retrolua. Resume")
        try step("Down", "Down", "Return", until: "Core options.")  // the first option, changed, then back
        try step("Right", "BackSpace", until: "Retrolua. Core options")
        try step("Down", "Down", "Return", "Return", until: "cheat code")  // Cheats, "add a cheat code..."
        try session.type("0003=05")
        try step("Return", until: "cheat added: 0003=05")
        try step("BackSpace", "Down", "Down", "Return", "Return", until: "script path")  // Scripts, "load a script..."
        try session.type(picked)
        try session.press("Return", "Escape")
        XCTAssertTrue(
            session.waitUntil { session.stdout.contains("picked script running") && session.stdout.contains("x 5") },
            session.stdout + session.stderr + spoken())
        let options = home + "/.config/retrolua/options/nestopia.opt"
        XCTAssertTrue(session.waitUntil { FileManager.default.fileExists(atPath: options) }, session.stderr)
        let kept = try String(contentsOfFile: options, encoding: .utf8)
        XCTAssertTrue(kept.hasPrefix("nestopia_favored_system = \""), kept)
        XCTAssertEqual(session.stop(), 143, session.stderr)
        let said = (try? String(contentsOfFile: home + "/said.txt", encoding: .utf8)) ?? ""
        for part in ["Retrolua. Resume", "Core options", "cheat code", "script path"] {
            XCTAssertTrue(said.contains(part), "spoken: \(part) in \(said)")
        }
        let cheats = try String(contentsOfFile: home + "/.config/retrolua/cheats/demo.cht", encoding: .utf8)
        XCTAssertTrue(cheats.contains("0003=05"), cheats)
        XCTAssertFalse(session.stderr.contains("outside the folders"), session.stderr)
        // The next start: the option as kept, and no hint again.
        let probe = home + "/probe.lua"
        try write("print(emu.option('nestopia_favored_system')); emu.exit(0)", probe)
        let next = try Fixtures.cli(["run", "--headless", "--with-defaults", "--script", probe], home: home)
        XCTAssertEqual(
            next.stdout.split(separator: "\n").first.map(String.init), kept.split(separator: "\"")[1].description)
        XCTAssertFalse(next.stderr.contains("keys: f1"), next.stderr)
    }
}
