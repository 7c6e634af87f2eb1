@testable import Emulation
import Foundation
import Libretro
import Media
import XCTest

/// Hardware-rendered (OpenGL) cores, headless on Mesa through EGL: our GL test core
/// (Tests/cores/gl_core.c, built here) and parallel_n64 on a tiny N64 program of our own
/// (Tests/content/n64_boot.s, assembled here when Debian's MIPS binutils are installed).
final class HardwareRenderTests: XCTestCase {
    private static let folder = Fixtures.temporaryFolder()
    nonisolated(unsafe) private static var builtCore: String?

    private static let content: String = {
        let path = folder + "/pattern.glt"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("gl".utf8)))
        return path
    }()

    private func glCore() throws -> String {
        if let path = Self.builtCore { return path }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        let path = Self.folder + "/gl_core_libretro.so"
        try Fixtures.tool(
            "/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", path, Fixtures.root + "/Tests/cores/gl_core.c"])
        Self.builtCore = path
        return path
    }

    /// A session on the GL test core with `GL_CORE_CONTEXT`/`GL_CORE_ORIGIN` set while it loads.
    private func session(context: String = "gl", origin: String = "bottom") throws -> Session {
        let core = try glCore()
        setenv("GL_CORE_CONTEXT", context, 1)
        setenv("GL_CORE_ORIGIN", origin, 1)
        defer {
            unsetenv("GL_CORE_CONTEXT")
            unsetenv("GL_CORE_ORIGIN")
        }
        return try Fixtures.session(rom: Self.content, core: core)
    }

    private func run(_ session: Session, frames: Int, holding button: RetroPadButton? = nil) {
        session.core.input = InputState()
        if let button { session.core.input.set(button, true) }
        for _ in 0..<frames { session.core.run() }
    }

    private func json(_ result: Fixtures.Result) throws -> [String: Any] {
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").last, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testThePictureIsReadBackTopRowFirstFromEveryContextMesaOffers() throws {
        var pictures: [VideoFrame] = []
        for (context, origin) in [("gl", "bottom"), ("core33", "bottom"), ("gles2", "bottom"), ("gles3", "top")] {
            let session = try session(context: context, origin: origin)
            XCTAssertNotNil(session.core.hardwareRenderRequest, context)
            run(session, frames: 10)
            let frame = try XCTUnwrap(session.core.currentFrame(), context)
            XCTAssertEqual([frame.width, frame.height], [160, 120], context)
            XCTAssertEqual(frame.format, .xrgb8888)
            XCTAssertEqual(frame.rgb(x: 12, y: 12), 0xFF0000, "\(context): the red square is at the top left")
            XCTAssertEqual(frame.rgb(x: 156, y: 116), 0x00FF00, "\(context): the green one at the bottom right")
            XCTAssertEqual(frame.rgb(x: 80, y: 60), 0x50_4000, "\(context): background red = frame 10 × 8")
            pictures.append(frame)
            try session.close()
        }
        XCTAssertEqual(Set(pictures.map(\.pixels)).count, 1, "every context draws the same picture")
    }

    func testInputStatesAndDeterminism() throws {
        let first = try session()
        run(first, frames: 5)
        run(first, frames: 1, holding: .b)
        let held = try XCTUnwrap(first.core.currentFrame())
        XCTAssertEqual(held.rgb(x: 80, y: 60) & 0xFF, 0xFF, "B turns the background blue")
        let state = try first.core.serialize()
        run(first, frames: 4, holding: .right)
        let after = try XCTUnwrap(first.core.currentFrame())
        XCTAssertEqual(after.rgb(x: 24, y: 12), 0xFF0000, "Right moved the square one pixel (8…23 to 9…24)")
        XCTAssertNotEqual(after.rgb(x: 8, y: 12), 0xFF0000)
        try first.core.unserialize(state)
        run(first, frames: 4, holding: .right)
        XCTAssertEqual(first.core.currentFrame(), after, "a state replays to the same GL frame")
        try first.close()

        let second = try session()
        run(second, frames: 5)
        run(second, frames: 1, holding: .b)
        run(second, frames: 4, holding: .right)
        XCTAssertEqual(second.core.currentFrame(), after, "a second run gives the same frame")
        try second.close()
    }

    func testFramesAreReadBackOnlyWhenPixelsAreAskedFor() throws {
        let session = try session()
        run(session, frames: 30)
        XCTAssertEqual(session.core.hardwareReadbacks, 0, "running costs no readback")
        let first = session.core.currentFrame()
        _ = session.core.currentFrame()
        XCTAssertEqual(session.core.hardwareReadbacks, 1, "one readback serves a frame's every reader")
        run(session, frames: 1)
        XCTAssertNotEqual(session.core.currentFrame(), first)
        XCTAssertEqual(session.core.hardwareReadbacks, 2)
        try session.close()
    }

    func testTheCLIRunsAGLCoreHeadlessWithTheContextResetBeforeAndDestroyedBeforeUnload() throws {
        let core = try glCore()
        var hashes: [String] = []
        for _ in 0..<2 {
            let result = try Fixtures.cli(["run", Self.content, "--core", core, "--frames", "20", "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let frame = try XCTUnwrap(try json(result)["frame"] as? [String: Any])
            hashes.append(try XCTUnwrap(frame["hash"] as? String))
            XCTAssertEqual(frame["width"] as? Int, 160)
            XCTAssertTrue(result.stderr.contains("gl_core: context_reset 1"), result.stderr)
            XCTAssertTrue(result.stderr.contains("gl_core: context_destroy"), result.stderr)
            XCTAssertFalse(result.stderr.contains("without a live context"), result.stderr)
            XCTAssertFalse(result.stderr.contains("still live"), result.stderr)
        }
        XCTAssertEqual(hashes[0], hashes[1], "the same frame hash twice")
    }

    /// In a window the core draws in a context shared with SDL's renderer and its frame is copied on the
    /// GPU: what the window shows (with a script's overlay) equals the frame read back for --screenshot.
    func testTheWindowShowsTheGLFrameWithItsOverlay() throws {
        let core = try glCore()
        let folder = Fixtures.temporaryFolder()
        try "event.on('draw', function() gui.rect(40, 40, 20, 10, {fill = '#0000ff'}) end)".write(
            toFile: folder + "/overlay.lua", atomically: true, encoding: .utf8)
        for context in ["gl", "gles3"] {
            let result = try Fixtures.cli(
                [
                    "run", Self.content, "--core", core, "--frames", "20", "--scale", "1", "--square-pixels",
                    "--no-audio", "--script", folder + "/overlay.lua", "--window-capture", folder + "/window.png",
                    "--screenshot", folder + "/frame.png",
                ], environment: ["DISPLAY": try XDisplay.name(), "GL_CORE_CONTEXT": context])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stderr.contains("running headless"), result.stderr)
            XCTAssertFalse(result.stderr.contains("GL frames are read back"), result.stderr)
            let window = try PNGFile.read(folder + "/window.png")
            let frame = try PNGFile.read(folder + "/frame.png")
            XCTAssertEqual([window.width, window.height], [160, 120], context)
            XCTAssertEqual(window.rgba, frame.rgba, "\(context): the window equals the read-back frame")
            XCTAssertEqual(Array(frame.rgba[(12 * 160 + 12) * 4..<(12 * 160 + 12) * 4 + 3]), [255, 0, 0], context)
            XCTAssertEqual(Array(frame.rgba[(45 * 160 + 45) * 4..<(45 * 160 + 45) * 4 + 3]), [0, 0, 255], context)
        }
    }

    /// A core that asks for its context again in its first retro_run (melonDS does, for OpenGL 3.1
    /// core): in a window the offscreen EGL context used to be made anew, which glvnd refuses beside the
    /// window's GLX context (`eglMakeCurrent failed (EGL error 0x3002)`), and melonDS then crashed in its
    /// software fallback. The same context now serves again (context_destroy, context_reset); another
    /// kind comes from the window.
    func testACoreAskingAgainInItsFirstFrameKeepsDrawingInTheWindow() throws {
        let core = try glCore()
        let folder = Fixtures.temporaryFolder()
        for (context, again) in [("core31", "1"), ("core33", "1"), ("gl", "core33"), ("core31", "gles3")] {
            let result = try Fixtures.cli(
                [
                    "run", Self.content, "--core", core, "--frames", "10", "--scale", "1", "--square-pixels",
                    "--no-audio", "--window-capture", folder + "/window.png", "--screenshot", folder + "/frame.png",
                ],
                environment: [
                    "DISPLAY": try XDisplay.name(), "GL_CORE_CONTEXT": context, "GL_CORE_ASK_AGAIN": again,
                ])
            let name = "\(context) then \(again)"
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("refused"), "\(name): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("GL frames are read back"), "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("gl_core: context_reset 2"), "\(name): \(result.stderr)")
            let window = try PNGFile.read(folder + "/window.png")
            let frame = try PNGFile.read(folder + "/frame.png")
            XCTAssertEqual(window.rgba, frame.rgba, "\(name): the window equals the read-back frame")
            XCTAssertEqual(Array(frame.rgba[(12 * 160 + 12) * 4..<(12 * 160 + 12) * 4 + 3]), [255, 0, 0], name)
        }
        // Headless, the offscreen context is kept the same way.
        let headless = try Fixtures.cli(
            ["run", Self.content, "--core", core, "--frames", "10", "--headless", "--screenshot", folder + "/h.png"],
            environment: ["GL_CORE_CONTEXT": "core31", "GL_CORE_ASK_AGAIN": "1"])
        XCTAssertEqual(headless.status, 0, headless.stderr)
        XCTAssertTrue(headless.stderr.contains("gl_core: context_reset 2"), headless.stderr)
        let frame = try PNGFile.read(folder + "/h.png")
        XCTAssertEqual(Array(frame.rgba[(12 * 160 + 12) * 4..<(12 * 160 + 12) * 4 + 3]), [255, 0, 0])
    }

    /// melonDS with its OpenGL renderer, in a window, on our own NDS program (examples/roms/nds): it
    /// runs and its top screen shows the program's red.
    func testMelonDSDrawsWithOpenGLInAWindow() throws {
        let core = Fixtures.root + "/build/cores/melonds_libretro.so"
        let rom = Fixtures.root + "/build/roms/demo.nds"
        for path in [core, rom] where !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("\(path) is missing (scripts/setup, scripts/build-roms)")
        }
        let folder = Fixtures.temporaryFolder()
        let result = try Fixtures.cli(
            [
                "run", rom, "--core", core, "--frames", "12", "--no-audio", "--scale", "1", "--square-pixels",
                "--option", "melonds_opengl_renderer=enabled", "--option",
                "melonds_opengl_resolution=1x native (256x192)", "--system-dir", folder,
                "--window-capture", folder + "/window.png", "--screenshot", folder + "/frame.png",
            ], environment: ["DISPLAY": try XDisplay.name(), "SWIFT_BACKTRACE": ""], timeout: 60)
        XCTAssertEqual(result.status, 0, String(result.stderr.suffix(2000)))
        XCTAssertFalse(result.stderr.contains("hardware rendering refused"), String(result.stderr.suffix(2000)))
        XCTAssertFalse(result.stderr.contains("falling back to software"), String(result.stderr.suffix(2000)))
        let frame = try PNGFile.read(folder + "/frame.png")
        let window = try PNGFile.read(folder + "/window.png")
        XCTAssertEqual([window.width, window.height], [frame.width, frame.height])
        let pixel = Array(frame.rgba[(10 * frame.width + 10) * 4..<(10 * frame.width + 10) * 4 + 3])
        XCTAssertTrue(pixel[0] > 200 && pixel[1] < 40 && pixel[2] < 40, "the top screen is red: \(pixel)")
        XCTAssertEqual(Array(window.rgba[0..<4 * window.width]), Array(frame.rgba[0..<4 * frame.width]))
    }

    /// A core that crashes ends the run with one line and the signal's status, promptly: no Swift
    /// backtracer is left behind holding the run's output (it stayed blocked after melonDS's crash).
    func testACrashEndsTheRunWithOneLineAndNothingLeftHoldingItsOutput() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        let core = Self.folder + "/crash_libretro.so"
        try Fixtures.tool(
            "/usr/bin/cc",
            [
                "-shared", "-fPIC", "-O1", "-DMODE_CRASH_SYSINFO", "-o", core,
                Fixtures.root + "/Tests/cores/broken_core.c",
            ])
        let game = Self.folder + "/game.brk"
        try Data("game".utf8).write(to: URL(fileURLWithPath: game))
        let result = try Fixtures.cli(
            ["run", game, "--core", core, "--headless", "--frames", "2"], environment: ["SWIFT_BACKTRACE": ""],
            timeout: 30)
        XCTAssertEqual(result.status, SIGSEGV, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "retrolua: crashed: SIGSEGV (a bad memory access in the core or in Retrolua); run it again with "
                    + "SWIFT_BACKTRACE=enable=yes for a backtrace"), result.stderr)
        XCTAssertFalse(result.stderr.contains("Backtracing"), "Swift's backtracer did not run: \(result.stderr)")
    }

    func testAContextWeCannotMakeIsRefusedByName() throws {
        let core = try glCore()
        for (context, named) in [("vulkan", "a Vulkan context"), ("core99", "OpenGL 9.9 core profile")] {
            let result = try Fixtures.cli(
                ["run", Self.content, "--core", core, "--frames", "2"], environment: ["GL_CORE_CONTEXT": context])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(
                result.stderr.contains("hardware rendering refused: the core asked for \(named)"), result.stderr)
            XCTAssertTrue(result.stderr.contains("SET_HW_RENDER refused"), "the core saw false")
        }
    }

    func testAGLFrameLargerThanItsFramebufferIsNeverRead() throws {
        let core = try glCore()
        let result = try Fixtures.cli(
            ["run", Self.content, "--core", core, "--frames", "5", "--json"], environment: ["GL_CORE_LIE": "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("a GL frame of 100000x100000 outside its framebuffer"), result.stderr)
        XCTAssertNil(try json(result)["frame"] as? [String: Any], "no frame rather than a read past the framebuffer")
    }

    /// parallel_n64 with its default (GL) plugin on our own boot code: it runs, presents GL frames and
    /// gives the same hash twice. (glide64 draws only RDP output, so the picture itself is black.)
    func testParallelN64RunsWithItsGLPlugin() throws {
        let core = Fixtures.root + "/build/cores/parallel_n64_libretro.so"
        guard FileManager.default.fileExists(atPath: core) else { throw XCTSkip("parallel_n64 not installed") }
        let rom = try n64ROM()
        var hashes: [String] = []
        let script = Self.folder + "/n64.lua"
        try "emu.message('scripted')".write(toFile: script, atomically: true, encoding: .utf8)
        for run in 0..<2 {
            // The second run with a script and a WAV dump: parallel_n64 polls input while it unloads, which
            // once reached a freed Emulator (rc 134); hooks are cleared before the core unloads now.
            let extra = run == 0 ? [] : ["--script", script, "--wav", Self.folder + "/n64.wav"]
            let result = try Fixtures.cli(
                ["run", rom, "--core", core, "--frames", "8", "--headless", "--json"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            let frame = try XCTUnwrap(try json(result)["frame"] as? [String: Any], result.stderr)
            XCTAssertEqual(frame["width"] as? Int, 640)
            hashes.append(try XCTUnwrap(frame["hash"] as? String))
        }
        XCTAssertEqual(hashes[0], hashes[1])
    }

    private func n64ROM() throws -> String { try N64TestROM.make(in: Self.folder) }
}
