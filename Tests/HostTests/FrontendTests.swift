@testable import Emulation
import Foundation
import XCTest
import Media

/// The SDL frontend through the real CLI under an X server, with SDL's disk audio driver.
final class FrontendTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func windowed(
        _ arguments: [String], audio: String = "dummy", extra: [String: String] = [:],
        home: String = Fixtures.temporaryFolder()
    ) throws -> Fixtures.Result {
        var environment = ["DISPLAY": try XDisplay.name(), "SDL_AUDIODRIVER": audio]
        environment.merge(extra) { _, new in new }
        return try Fixtures.cli(["run"] + arguments, home: home, environment: environment)
    }

    func testTheWindowShowsTheSamePixelsAsTheHeadlessFrame() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        event.on("draw", function() gui.rect(10, 10, 30, 20, {color = "white", fill = "#ff000080"}) gui.text(2, 200, \
        "overlay") end)
        """.write(toFile: folder + "/overlay.lua", atomically: true, encoding: .utf8)
        let result = try windowed([
            "--frames", "60", "--scale", "1", "--square-pixels", "--no-audio", "--script", folder + "/overlay.lua",
            "--window-capture", folder + "/window.png", "--screenshot", folder + "/frame.png",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("running headless"), result.stderr)
        let window = try PNGFile.read(folder + "/window.png")
        let frame = try PNGFile.read(folder + "/frame.png")
        XCTAssertEqual(window.width, frame.width)
        XCTAssertEqual(window.height, frame.height)
        XCTAssertEqual(window.rgba, frame.rgba, "the window's game area, overlay included, equals the headless frame")
    }

    func testDiskAudioCarriesTheToneAtTheExpectedRate() throws {
        let folder = Fixtures.temporaryFolder()
        try "event.on('frame_start', function() joypad.set(1, {b = true}) end)".write(
            toFile: folder + "/b.lua", atomically: true, encoding: .utf8)
        let frames = 150
        let result = try windowed(
            ["--frames", "\(frames)", "--script", folder + "/b.lua", "--stats"], audio: "disk",
            extra: ["SDL_DISKAUDIOFILE": folder + "/out.raw"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let raw = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/out.raw"))
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        // A busy machine underruns the card: the disk driver then writes silence between stretches of tone.
        // Only the tone is judged, so the test checks the pipeline, not the machine's speed.
        let tone = Self.withoutSilence(left)
        // The tone: count rising zero crossings over the last second of sound (48000 Hz stereo S16).
        let rate = 48000
        let window = Array(tone.suffix(rate))
        let mean = window.reduce(0) { $0 + Int($1) } / max(window.count, 1)
        var crossings = 0
        for index in 1..<window.count where Int(window[index - 1]) < mean && Int(window[index]) >= mean {
            crossings += 1
        }
        XCTAssertEqual(
            Double(crossings) * Double(rate) / Double(max(window.count, 1)), 440, accuracy: 4,
            "tone frequency in Hz at 48000 Hz")
        // The sample rate: the sound covers the emulated time at 48000 frames/s (the core runs at 60 fps).
        let expected = Double(frames) / 60 * Double(rate)
        XCTAssertEqual(Double(tone.count), expected, accuracy: expected * 0.1, "frames of sound for \(frames) frames")
    }

    /// The samples with every run of silence longer than 2 ms taken out (underruns, the start's wait).
    private static func withoutSilence(_ samples: [Int16]) -> [Int16] {
        var out: [Int16] = [], run: [Int16] = []
        for sample in samples {
            if sample == 0 {
                run.append(sample)
                continue
            }
            if run.count <= 96 { out += run }
            run.removeAll(keepingCapacity: true)
            out.append(sample)
        }
        return out
    }

    func testGeometryChangeMidRun() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        for _ = 1, 30 do emu.frameadvance() end
        assert(emu.option("nestopia_overscan_v", "disabled"))
        for _ = 1, 30 do emu.frameadvance() end
        print(emu.info().width .. "x" .. emu.info().height)
        emu.exit(0)
        """.write(toFile: folder + "/grow.lua", atomically: true, encoding: .utf8)
        let result = try windowed([
            "--scale", "2", "--square-pixels", "--no-audio", "--script", folder + "/grow.lua",
            "--window-capture", folder + "/window.png", "--quiet",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "256x240\n")
        let window = try PNGFile.read(folder + "/window.png")
        // The window stayed 512x448; the taller frame is letterboxed into it at its own aspect.
        XCTAssertEqual(Double(window.width) / Double(window.height), 256.0 / 240.0, accuracy: 0.02)
        XCTAssertEqual(window.height, 448)
    }

    func testNoDisplayFallsBackToHeadless() throws {
        let result = try Fixtures.cli(["run", "--frames", "30"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("no display (DISPLAY is not set): running headless"), result.stderr)
        XCTAssertTrue(result.stdout.contains("frames   30 in"), result.stdout)
    }

    func testNoAudioDeviceRunsSilent() throws {
        let result = try windowed(["--frames", "20"], audio: "no-such-driver")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("no audio device"), result.stderr)
        XCTAssertTrue(result.stderr.contains("running silent"), result.stderr)
    }

    func testWAVDumpHoldsTheResampledTone() throws {
        let folder = Fixtures.temporaryFolder()
        try "event.on('frame_start', function() joypad.set(1, {b = true}) end)".write(
            toFile: folder + "/b.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli([
            "run", "--headless", "--frames", "120", "--script", folder + "/b.lua", "--wav", folder + "/out.wav",
            "--quiet",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let wav = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/out.wav"))
        XCTAssertEqual(String(decoding: wav.prefix(4), as: UTF8.self), "RIFF")
        let rate = wav.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }
        XCTAssertEqual(rate, 48000)
        let samples = wav.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        XCTAssertEqual(Double(samples.count / 2), 2 * 48000, accuracy: 48000 * 0.02, "two seconds of stereo frames")
        let left = stride(from: samples.count / 2, to: samples.count, by: 2).map { Int(samples[$0]) }
        let mean = left.reduce(0, +) / left.count
        var crossings = 0
        for index in 1..<left.count where left[index - 1] < mean && left[index] >= mean { crossings += 1 }
        XCTAssertEqual(Double(crossings) * 48000 / Double(left.count), 440, accuracy: 3)
    }

    func testVideoDumpNeedsFFmpegOrSaysSo() throws {
        let folder = Fixtures.temporaryFolder()
        let result = try Fixtures.cli([
            "run", "--headless", "--frames", "60", "--video", folder + "/out.mkv", "--quiet",
        ])
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") {
            XCTAssertEqual(result.status, 0, result.stderr)
            let size = (try FileManager.default.attributesOfItem(atPath: folder + "/out.mkv")[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 1000)
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: folder), ["out.mkv"], "intermediate files removed")
            let probe = Process()
            let output = Pipe()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            probe.arguments = [
                "-v", "error", "-show_entries", "stream=codec_name,width,height,sample_rate", "-of", "compact",
                folder + "/out.mkv",
            ]
            probe.standardOutput = output
            try probe.run()
            probe.waitUntilExit()
            let streams = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(
                streams, "stream|codec_name=h264|width=256|height=224\nstream|codec_name=flac|sample_rate=48000\n")
            // With --wav as well, the same recording feeds both and the WAV stays.
            let both = try Fixtures.cli([
                "run", "--headless", "--frames", "30", "--video", folder + "/two.mkv", "--wav", folder + "/two.wav",
                "--quiet",
            ])
            XCTAssertEqual(both.status, 0, both.stderr)
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder + "/two.mkv")
                    && FileManager.default.fileExists(atPath: folder + "/two.wav"))
        } else {
            XCTAssertEqual(result.status, 1)
            XCTAssertTrue(result.stderr.contains("--video needs ffmpeg, which is not installed"), result.stderr)
        }
    }

    func testStatsSummaryAndLuaFigures() throws {
        let folder = Fixtures.temporaryFolder()
        try """
        for _ = 1, 10 do emu.frameadvance() end
        local s = emu.stats()
        print(s.frames, s.core_ms > 0, s.last.core_ms >= 0, s.dropped, s.underruns)
        emu.exit(0)
        """.write(toFile: folder + "/stats.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli(["run", "--headless", "--script", folder + "/stats.lua", "--stats"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("10\ttrue\ttrue\t0\t0\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("stats    per frame (ms): core "), result.stdout)
    }

    func testClosingTheWindowShutsDownCleanlyAndSavesSRAM() throws {
        let folder = Fixtures.temporaryFolder()
        // A window manager's close: WM_DELETE_WINDOW sent to our window, found by its title.
        let closer = """
            #include <X11/Xlib.h>
            #include <stdio.h>
            #include <string.h>
            #include <unistd.h>
            static Window find(Display *d, Window w) {
              char *name = NULL;
              if (XFetchName(d, w, &name) && name) { int hit = strstr(name, "Retrolua") != NULL; XFree(name); if \
            (hit) return w; }
              Window root, parent, *kids = NULL; unsigned n = 0;
              if (!XQueryTree(d, w, &root, &parent, &kids, &n)) return 0;
              Window found = 0;
              for (unsigned i = 0; i < n && !found; i++) found = find(d, kids[i]);
              if (kids) XFree(kids);
              return found;
            }
            int main(void) {
              Display *d = XOpenDisplay(NULL);
              if (!d) return 2;
              Window w = 0;
              for (int tries = 0; tries < 200 && !w; tries++) { w = find(d, DefaultRootWindow(d)); if (!w) \
            usleep(50000); }
              if (!w) return 3;
              usleep(500000);
              XEvent e; memset(&e, 0, sizeof e);
              e.xclient.type = ClientMessage; e.xclient.window = w;
              e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False); e.xclient.format = 32;
              e.xclient.data.l[0] = XInternAtom(d, "WM_DELETE_WINDOW", False); e.xclient.data.l[1] = CurrentTime;
              XSendEvent(d, w, False, NoEventMask, &e); XFlush(d); XCloseDisplay(d);
              return 0;
            }
            """
        try closer.write(toFile: folder + "/close.c", atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-o", folder + "/close", folder + "/close.c", "-lX11"]
        try cc.run()
        cc.waitUntilExit()
        try XCTSkipUnless(cc.terminationStatus == 0, "cannot build the X11 closer")

        let display = try XDisplay.name()
        let closerProcess = Process()
        closerProcess.executableURL = URL(fileURLWithPath: folder + "/close")
        var closerEnvironment = ProcessInfo.processInfo.environment
        closerEnvironment["DISPLAY"] = display  // XAUTHORITY comes along (xvfb-run sets one).
        closerProcess.environment = closerEnvironment
        try closerProcess.run()
        // Only the close should end the run; the frame limit (50 s) just keeps a failure from hanging the suite.
        let result = try windowed(["--no-audio", "--save-dir", folder + "/saves", "--frames", "3000"])
        closerProcess.waitUntilExit()
        XCTAssertEqual(closerProcess.terminationStatus, 0)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("frames   "), result.stdout)
        XCTAssertFalse(result.stdout.contains("frames   3000 in"), "ended by the close, not the frame limit")
        let sram = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/saves/" + Fixtures.srm()))
        XCTAssertEqual(sram.first, 1, "save RAM written on the way out")
    }

    func testSIGTERMShutsDownCleanly() throws {
        let folder = Fixtures.temporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = ["run", "--save-dir", folder, "--no-audio", "--quiet"]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder
        environment["DISPLAY"] = try XDisplay.name()
        environment["SDL_AUDIODRIVER"] = "dummy"
        process.environment = environment
        try process.run()
        usleep(1_500_000)
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143, "a clean end, with SIGTERM's conventional status")
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/" + Fixtures.srm())?.first, 1)
    }
}
