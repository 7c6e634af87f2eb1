@testable import Emulation
import Foundation
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media
import XCTest

/// The default OSD (lua/defaults/osd.lua) in-process: text that grows with the window, PAUSED drawn
/// as soon as the pause starts, --stats' present time; and messages mirrored to stderr, --log and speech.
final class OSDTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private var osd: String { Fixtures.root + "/lua/defaults/osd.lua" }

    private let white: [UInt8] = [255, 255, 255, 255]
    private let yellow: [UInt8] = [255, 255, 0, 255]

    /// A message at 1×, 3× and 6× window scale: the text is drawn 1, 2 and 4 times as tall (`gui.text_scale`).
    func testTextGrowsWithTheWindow() throws {
        var heights: [Int] = []
        for scale in [1, 3, 6] {
            let harness = try ScriptHarness()
            defer { harness.close() }
            harness.host.screen.windowSize = (256 * scale, 224 * scale)
            try harness.load(file: osd)
            try harness.load("emu.message('HELLO')")
            harness.run(2)
            let hud = harness.host.screen.hudCanvas
            XCTAssertEqual(hud.width, 256 * scale)
            let text = try XCTUnwrap(hud.box(of: white), "the message is drawn at \(scale)×")
            heights.append(text.y.count)
            XCTAssertLessThan(text.x.lowerBound, hud.width / 2, "bottom left")
            XCTAssertGreaterThan(text.y.lowerBound, hud.height / 2, "bottom left")
            if scale == 6 {
                // The hud as a PNG, as a window would show it over the game.
                let path = harness.folder + "/hud.png"
                try PNGFile.write(rgba: hud.pixels, width: hud.width, height: hud.height, to: path)
                let image = try PNGFile.read(path)
                XCTAssertEqual(image.width, 1536)
                XCTAssertEqual(image.height, 1344)
            }
        }
        // "HELLO": capitals 7 font pixels tall.
        XCTAssertEqual(heights, [7, 14, 28])
    }

    /// The `scale` setting overrides the window's; `position` moves the messages.
    func testScaleAndPositionSettings() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let config = harness.session.paths.config
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "return { scale = 3, position = 'top-right' }".write(
            toFile: config + "/osd.lua", atomically: true, encoding: .utf8)
        harness.host.screen.windowSize = (256, 224)
        try harness.load(file: osd)
        try harness.load("emu.message('HELLO')")
        harness.run(2)
        let text = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: white))
        XCTAssertEqual(text.y.count, 21)
        XCTAssertGreaterThan(text.x.lowerBound, 128, "top right")
        XCTAssertLessThan(text.y.upperBound, 112, "top right")
    }

    /// What an attached agent is doing (the `agent` event): one line top right, kept until it changes or the agent
    /// leaves (not a message that expires); `agent = false` hides it.
    func testTheAgentsActivityStaysTopRightUntilItLeaves() throws {
        let agentColor: [UInt8] = [0xff, 0xd0, 0x80, 255]
        for shown in [true, false] {
            let harness = try ScriptHarness()
            defer { harness.close() }
            if !shown {
                let config = harness.session.paths.config
                try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
                try "return { agent = false }".write(toFile: config + "/osd.lua", atomically: true, encoding: .utf8)
            }
            harness.host.screen.windowSize = (512, 448)
            try harness.load(file: osd)
            harness.host.emulator.tell(agentActivity: "collecting the coin on the left")
            harness.run(400)  // longer than a message lasts
            let line = harness.host.screen.hudCanvas.box(of: agentColor)
            guard shown else {
                XCTAssertNil(line, "agent = false hides it")
                continue
            }
            let box = try XCTUnwrap(line, "the agent's line is drawn")
            XCTAssertGreaterThan(box.x.upperBound, 256, "top right")
            XCTAssertLessThan(box.y.upperBound, 224, "top right")
            harness.host.emulator.tell(agentActivity: nil)
            harness.run(1)
            XCTAssertNil(harness.host.screen.hudCanvas.box(of: agentColor), "gone with the agent")
        }
    }

    /// Paused, no frame ends: the host redraws the hud (PAUSED at once) and keeps the emu overlay as it was.
    func testPausedIsShownAsSoonAsThePauseStarts() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        harness.host.screen.windowSize = (768, 672)
        try harness.load(file: osd)
        try harness.load("event.on('draw', function() gui.rect(10, 10, 20, 20, { fill = '#ff000080' }) end)")
        harness.run(2)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: yellow), "not paused yet")
        let overlay = harness.host.screen.emuCanvas.pixels
        harness.host.emulator.paused = true
        harness.host.redrawPaused()
        let sign = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: yellow), "PAUSED, before any frame")
        XCTAssertLessThan(sign.y.upperBound, 100, "at the top")
        XCTAssertTrue(sign.x.contains(384), "centred")
        XCTAssertEqual(sign.y.count, 21, "one step larger than the text (2 + 1)")
        harness.host.redrawPaused()
        XCTAssertEqual(harness.host.screen.emuCanvas.pixels, overlay, "the emu overlay is not drawn twice while paused")
        XCTAssertNotNil(harness.host.screen.hudCanvas.box(of: yellow), "for as long as the pause lasts")
        harness.host.emulator.paused = false
        harness.run(1)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: yellow), "gone with the next frame")
    }

    /// REC and PLAY carry a symbol (● ▶), not only a colour: the font draws them, not as unknown boxes.
    func testMovieStatesHaveSymbolsInTheFont() {
        for symbol: Unicode.Scalar in ["\u{25CF}", "\u{25B6}", "\u{25A0}"] {
            XCTAssertNotEqual(BitmapFont.glyph(symbol), BitmapFont.unknown, "\(symbol)")
        }
        XCTAssertEqual(BitmapFont.glyph("\u{2603}"), BitmapFont.unknown)
    }

    /// --stats shows the last finished present (the OSD is drawn before this frame's own present).
    func testStatsShowTheLastPresentAndCallFastForwardFramesSkipped() {
        var stats = FrameStats()
        stats.beginFrame()
        stats.add(.present, seconds: 0.0025)
        stats.dropped = 3
        stats.beginFrame()
        stats.add(.core, seconds: 0.001)
        let lines = stats.osdLines
        XCTAssertTrue(lines[1].contains("present 2.50"), lines[1])
        XCTAssertTrue(lines[0].contains("core 1.00"), lines[0])
        XCTAssertTrue(lines[2].hasPrefix("skipped (not shown) 3"), lines[2])
        XCTAssertTrue(stats.summary.contains("3 skipped (not shown"), stats.summary)
    }

    /// Bad scales are refused with the function and argument named.
    func testBadTextScalesAreRefused() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(
            """
            for _, bad in ipairs({ 0, 17, -1, 2^40 }) do
              print(pcall(gui.text, 1, 1, "x", { scale = bad }))
              print(pcall(gui.text_size, "x", bad))
            end
            local w, h = gui.text_size("ab", 3)
            print(w, h, gui.text_scale(), gui.text_scale("emu"))
            """)
        harness.run(1)
        let lines = harness.lines
        XCTAssertEqual(lines.count, 9, harness.output + harness.errors)
        for line in lines.prefix(8) {
            XCTAssertTrue(line.hasPrefix("false\t"), line)
            XCTAssertTrue(line.contains("scale"), line)
        }
        XCTAssertTrue(lines[0].contains("gui.text: bad field 'scale' in argument #4"), lines[0])
        XCTAssertTrue(lines[1].contains("gui.text_size: bad argument #2 'scale'"), lines[1])
        XCTAssertEqual(lines.last, "36\t24\t1\t1")
    }

    // MARK: Messages beyond the screen

    private func messageScript(_ folder: String, _ text: String) throws -> String {
        let path = folder + "/say.lua"
        try """
        emu.message(\(String(reflecting: text)))
        for _ = 1, 3 do emu.frameadvance() end
        emu.exit(0)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// In a window the OSD shows a message; it also reaches stderr (not with --quiet) and --log.
    func testWindowMessagesReachStderrAndTheLog() throws {
        let folder = Fixtures.temporaryFolder()
        let script = try messageScript(folder, "checkpoint reached")
        let environment = ["DISPLAY": try XDisplay.name(), "SDL_AUDIODRIVER": "dummy"]
        for quiet in [false, true] {
            let log = folder + "/run\(quiet).log"
            let result = try Fixtures.cli(
                ["run", "--no-audio", "--script", script, "--log", log] + (quiet ? ["--quiet"] : []),
                environment: environment)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stderr.contains("[say.lua] checkpoint reached"), !quiet, result.stderr)
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            XCTAssertTrue(logged.contains("[say.lua] checkpoint reached"), logged)
        }
    }

    /// --speak hands each message to espeak-ng on its standard input: no shell, no arguments from the text.
    func testSpeakHandsMessagesToEspeakWithoutAShell() throws {
        let folder = Fixtures.temporaryFolder()
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // A stand-in espeak-ng that records its arguments and what it was told.
        try """
        #!/bin/sh
        printf '%s\\n' "$*" > \(folder)/args.txt
        cat > \(folder)/said.txt.part && mv \(folder)/said.txt.part \(folder)/said.txt
        """.write(toFile: bin + "/espeak-ng", atomically: true, encoding: .utf8)
        chmod(bin + "/espeak-ng", 0o755)
        let text = "--help $(touch \(folder)/pwned); `touch \(folder)/pwned` 'quoted' \"double\""
        let script = try messageScript(folder, text)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try Fixtures.cli(
            ["run", "--headless", "--script", script, "--speak", "--quiet"], environment: ["PATH": path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let said = folder + "/said.txt"
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: said) && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(try String(contentsOfFile: said, encoding: .utf8), text + "\n", "the text, verbatim")
        XCTAssertEqual(try String(contentsOfFile: folder + "/args.txt", encoding: .utf8), "--stdin\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/pwned"), "nothing ran the text")
        // Without espeak-ng the run goes on and says why it is silent.
        let missing = try Fixtures.cli(
            ["run", "--headless", "--frames", "1", "--speak"], environment: ["PATH": folder + "/none"])
        XCTAssertEqual(missing.status, 0, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--speak: espeak-ng not found"), missing.stderr)
    }

    /// With the real espeak-ng (Debian's), the speech is audible: its WAV is not silence (sox's RMS).
    func testSpeakProducesSpeechWithEspeak() throws {
        for tool in ["/usr/bin/espeak-ng", "/usr/bin/sox"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (scripts/setup installs espeak-ng and sox)")
        }
        let folder = Fixtures.temporaryFolder()
        let wav = folder + "/speech.wav"
        let script = try messageScript(folder, "movie desync at frame 120")
        let result = try Fixtures.cli(
            ["run", "--headless", "--script", script, "--speak", "--quiet"], environment: ["RETROLUA_SPEAK_WAV": wav])
        XCTAssertEqual(result.status, 0, result.stderr)
        var rms = 0.0
        let deadline = Date().addingTimeInterval(20)
        repeat {
            usleep(100_000)
            let sox = Process()
            sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            sox.arguments = [folder + "/speech-1.wav", "-n", "stat"]
            let err = Pipe()
            sox.standardError = err
            sox.standardOutput = FileHandle.nullDevice
            try sox.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            sox.waitUntilExit()
            let line = text.split(separator: "\n").first { $0.hasPrefix("RMS     amplitude") }
            rms = line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        } while rms == 0 && Date() < deadline
        XCTAssertGreaterThan(rms, 0.001, "espeak-ng spoke the message")
    }
}

/// The windowed loop on a pretended window (a visible null video): pausing redraws the hud at once, and
/// --stats keeps to its own corner at the OSD's scale.
final class OSDWindowLoopTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testThePausedLoopRedrawsTheHudAndStatsKeepTheirCorner() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        try harness.load(file: Fixtures.root + "/lua/defaults/osd.lua")
        var options = FrontendOptions()
        options.audio = false
        options.showStats = true
        let video = NullVideoOutput(window: (768, 672))
        let frontend = Frontend(
            emulator: harness.host.emulator, screen: harness.host.screen, scripts: RunFrontendScripts(harness.host),
            options: options, video: video, input: NullInputSource())
        try frontend.open()
        var turns = 0
        var seen: (paused: Bool, statsCorner: Bool, statsElsewhere: Bool) = (false, false, false)
        frontend.betweenFrames = {
            turns += 1
            if turns == 4 { harness.host.emulator.paused = true }
            if turns == 7 {
                let hud = harness.host.screen.hudCanvas, pixels = hud.pixels
                func color(_ x: Int, _ y: Int) -> [UInt8] {
                    let i = (y * hud.width + x) * 4
                    return Array(pixels[i..<i + 4])
                }
                for y in 0..<hud.height {
                    for x in 0..<hud.width where color(x, y) == [255, 255, 0, 255] {
                        // PAUSED (yellow, top centre) and the stats' yellow text (bottom right).
                        if y < 100 && abs(x - 384) < 100 { seen.paused = true }
                        if y > 560 && x > 200 {
                            seen.statsCorner = true
                        } else if y >= 100 {
                            seen.statsElsewhere = true
                        }
                    }
                }
                return false
            }
            return true
        }
        let report = frontend.run()
        XCTAssertEqual(report.frames, 3, "no frame ran while paused")
        XCTAssertTrue(seen.paused, "PAUSED drawn by the paused loop")
        XCTAssertTrue(seen.statsCorner, "--stats in the bottom-right corner")
        XCTAssertFalse(seen.statsElsewhere, "and nowhere else")
        XCTAssertGreaterThanOrEqual(video.framesPresented, 6, "paused presents too")
        XCTAssertEqual(frontend.close(), [])
    }
}

/// Issue 25's OSD and speech items: wrapping, the slot indicator's scale, the fast-forward and rewind signs,
/// --watch failures on screen, and every utterance kept.
extension OSDTests {
    private var hotkeys: String { Fixtures.root + "/lua/defaults/hotkeys.lua" }

    func testLongMessagesWrapAtTheWindowsWidth() throws {
        for scale in [1, 3] {
            let harness = try ScriptHarness()
            defer { harness.close() }
            harness.host.screen.windowSize = (256 * scale, 224 * scale)
            try harness.load(file: osd)
            let long = String(repeating: "the quick brown fox jumps ", count: 6)  // 156 characters
            try harness.load("emu.message(\(String(reflecting: long)))")
            harness.run(2)
            let text = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: white))
            let fontScale = gui(harness)
            XCTAssertLessThanOrEqual(
                text.x.upperBound, 256 * scale - 4 * fontScale, "inside the window's right margin at \(scale)×")
            let lines = (text.y.count + 3 * fontScale) / (10 * fontScale)
            // 156 characters in 41 (1×) or 61 (3×, text scale 2) columns: 4 or 3 lines, at the bottom.
            XCTAssertEqual(lines, scale == 1 ? 4 : 3, "\(text)")
            XCTAssertLessThan(text.y.upperBound, 224 * scale)
        }
    }

    /// The text scale the OSD uses in this harness's window.
    private func gui(_ harness: ScriptHarness) -> Int {
        let (width, height) = harness.host.screen.windowSize ?? (256, 224)
        return max(1, min(width / 320, height / 240, 16))
    }

    func testTheSlotIndicatorFollowsTheOSDsScale() throws {
        var heights: [Int] = []
        for (window, setting) in [(1, nil), (6, nil), (1, 3)] as [(Int, Int?)] {
            let harness = try ScriptHarness()
            defer { harness.close() }
            if let setting {
                let config = harness.session.paths.config
                try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
                try "return { scale = \(setting) }".write(
                    toFile: config + "/osd.lua", atomically: true, encoding: .utf8)
            }
            harness.host.screen.windowSize = (256 * window, 224 * window)
            try harness.load(file: hotkeys)
            harness.host.deliver([.keyDown("f7", repeat: false), .keyUp("f7")])
            harness.run(1)
            heights.append(try XCTUnwrap(harness.host.screen.hudCanvas.box(of: yellow), "slot 1 shown").y.count)
        }
        XCTAssertEqual(heights, [7, 28, 21], "1×, the 6× window's text scale 4, the OSD's scale = 3")
    }

    func testFastForwardSlowMotionAndRewindShowASign() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        harness.host.screen.windowSize = (768, 672)
        for name in ["osd", "hotkeys", "rewind"] { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        let blue: [UInt8] = [0x80, 0xC0, 0xFF, 255], orange: [UInt8] = [0xFF, 0xA0, 0x40, 255]
        harness.run(20)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: blue), "normal speed: no sign")
        harness.host.deliver([.keyDown("tab", repeat: false)])  // fast-forward while held
        harness.run(2)
        let fast = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: blue), ">> FAST")
        XCTAssertEqual(fast.y.count, 14, "at the OSD's scale (2 in this window)")
        XCTAssertTrue(fast.x.contains(384), "top middle")
        harness.host.deliver([.keyUp("tab")])
        harness.run(1)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: blue))
        harness.host.deliver([.keyDown("\\", repeat: false)])  // slow motion while held
        harness.run(1)
        XCTAssertNotNil(harness.host.screen.hudCanvas.box(of: blue), "> SLOW")
        harness.host.deliver([.keyUp("\\")])
        harness.run(1)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: orange), "not rewinding: no sign")
        harness.host.deliver([.keyDown("backspace", repeat: false)])
        harness.run(3)
        let rewind = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: orange), "<< REWIND")
        XCTAssertEqual(rewind.y.count, 14)
        harness.host.deliver([.keyUp("backspace")])
        harness.run(1)
        XCTAssertNil(harness.host.screen.hudCanvas.box(of: orange), "gone when the key is let go")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// In a narrow window the PAUSED sign and the recording line would share the top row: the line moves below
    /// the sign; the menu (which pauses) opens below it too, so neither hides the other's words.
    func testThePausedSignOverlapsNeitherTheRecordingLineNorTheMenuTitle() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        harness.host.screen.windowSize = (256, 224)
        let emulator = harness.host.emulator
        try emulator.movie.record(to: harness.folder + "/run.rlm", options: .init())
        for name in ["osd", "menu"] { try harness.load(file: Fixtures.root + "/lua/defaults/\(name).lua") }
        harness.run(2)
        let red: [UInt8] = [255, 0, 0, 255], cyan: [UInt8] = [0, 255, 255, 255]
        func apart(
            _ a: (x: ClosedRange<Int>, y: ClosedRange<Int>), _ b: (x: ClosedRange<Int>, y: ClosedRange<Int>)
        )
            -> Bool
        { !a.x.overlaps(b.x) || !a.y.overlaps(b.y) }
        let running = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: red), "● REC")
        XCTAssertLessThan(running.y.lowerBound, 10, "the recording line at the top while the game runs")
        emulator.paused = true
        harness.host.redrawPaused()
        let sign = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: yellow), "|| PAUSED")
        let recording = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: red), "● REC")
        XCTAssertTrue(apart(sign, recording), "sign \(sign), recording line \(recording)")
        harness.host.deliver([.keyDown("f1", repeat: false), .keyUp("f1")])
        harness.host.redrawPaused()
        let title = try XCTUnwrap(harness.host.screen.hudCanvas.box(of: cyan), "the menu's title")
        XCTAssertNotNil(harness.host.screen.hudCanvas.box(of: yellow), "the sign is still there")
        XCTAssertGreaterThan(title.y.lowerBound, sign.y.upperBound, "the menu opens below the sign")
        XCTAssertTrue(harness.failures.isEmpty, "\(harness.failures)")
    }

    /// A --watch reload that fails says so where the person is looking: a message (the OSD), not only stderr.
    func testAFailedWatchReloadIsShownOnScreen() throws {
        let harness = try ScriptHarness { $0.watch = true }
        defer { harness.close() }
        try harness.load("event.on('message', function(text) print('shown: ' .. text) end)", name: "screen.lua")
        let path = try harness.load("event.on('frame_end', function() end)", name: "live.lua")
        harness.run(16)
        try "event.on('frame_end', function(".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        harness.run(16)
        let shown = try XCTUnwrap(harness.lines.last { $0.hasPrefix("shown: ") })
        XCTAssertTrue(shown.hasPrefix("shown: reload failed, live.lua keeps running: "), shown)
        XCTAssertTrue(shown.contains("live.lua:1:"), "where it failed: \(shown)")
        XCTAssertFalse(shown.contains("\n"))
    }

    /// Each utterance has its own numbered WAV (none is overwritten), and a newer focus (emu.speak) replaces one
    /// not yet spoken while messages queue.
    func testEveryUtteranceIsKeptAndAFocusReplacesAnOlderOne() throws {
        let folder = Fixtures.temporaryFolder()
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // A stand-in espeak-ng: records its arguments and text, one line each, slowly enough to queue others.
        try """
        #!/bin/sh
        text=$(cat)
        sleep 0.3
        printf '%s|%s\\n' "$*" "$text" >> \(folder)/said.txt
        """.write(toFile: bin + "/espeak-ng", atomically: true, encoding: .utf8)
        chmod(bin + "/espeak-ng", 0o755)
        let speaker = try XCTUnwrap(Speaker(environment: ["PATH": bin, "RETROLUA_SPEAK_WAV": folder + "/speech.wav"]))
        speaker.say("first message")
        for item in ["Hotkeys", "Core options", "Save states"] { speaker.say(item, replacing: true) }
        speaker.say("second message")
        let said = folder + "/said.txt"
        let deadline = Date().addingTimeInterval(10)
        var lines: [String] = []
        repeat {
            usleep(50_000)
            lines = ((try? String(contentsOfFile: said, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        } while lines.count < 2 && Date() < deadline
        XCTAssertEqual(
            lines,
            [
                "--stdin -w \(folder)/speech-1.wav|first message",
                "--stdin -w \(folder)/speech-2.wav|second message. Save states",
            ])
        XCTAssertEqual(Speaker.numbered("/x/speech", 3), "/x/speech-3.wav")
    }
}
