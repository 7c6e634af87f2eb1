import Foundation
import XCTest

/// What a run says and returns at its edges: the exit status of a job whose script failed, the summary's
/// frames and seconds, the option a message names, what --quiet keeps to itself.
final class RunEdgeTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func script(_ source: String, in folder: String) throws -> String {
        let path = folder + "/script.lua"
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A write killed half-way leaves `NAME.tmp<pid>` beside its target; a run's start removes those whose
    /// process is gone from the folders it writes, and nothing else.
    func testARunRemovesStaleTemporaryFilesFromItsFolders() throws {
        let home = Fixtures.temporaryFolder()
        let data = home + "/.local/share/retrolua"
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier, alive = getpid()
        let stale = [
            "states/dodge.state3.tmp\(dead)", "screenshots/shot.png.tmp\(dead)", "data/a/b/notes.txt.tmp\(dead)",
        ]
        let kept = ["states/dodge.state4.tmp\(alive)", "data/report.tmp", "data/log.tmp12x", "saves/dodge.srm"]
        for file in stale + kept {
            try FileManager.default.createDirectory(
                atPath: data + "/" + (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: data + "/" + file, contents: Data([1])))
        }
        try FileManager.default.createDirectory(
            atPath: data + "/data/dir.tmp\(dead)", withIntermediateDirectories: true)
        let run = try Fixtures.cli(["run", Fixtures.nesROM, "--headless", "--frames", "1"], home: home)
        XCTAssertEqual(run.status, 0, run.stderr)
        for file in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: data + "/" + file), file) }
        for file in kept + ["data/dir.tmp\(dead)"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: data + "/" + file), file)
        }
    }

    /// A window on a machine without a sound card: one clear notice, not libasound's configuration errors.
    func testNoSoundCardIsOneNoticeNotALSAsLines() throws {
        let run = try Fixtures.cli(
            ["run", Fixtures.nesROM, "--frames", "5"],
            environment: ["DISPLAY": try XDisplay.name(), "SDL_AUDIODRIVER": "alsa", "ALSA_CONFIG_PATH": "/dev/null"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("no audio device"), run.stderr)
        XCTAssertFalse(run.stderr.contains("ALSA lib"), run.stderr)
    }

    func testAHeadlessRunWhoseScriptFailedExitsNonZero() throws {
        let home = Fixtures.temporaryFolder()
        let failing = try script(
            "event.on('frame_end', function() if emu.framecount() == 3 then error('boom') end end)", in: home)
        let result = try Fixtures.cli(["run", "--headless", "--frames", "10", "--script", failing], home: home)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("boom"), result.stderr)
        XCTAssertTrue(result.stderr.contains("exit status 1: script script.lua failed"), result.stderr)
        XCTAssertTrue(result.stdout.contains("frames   10 in"), "the run went on without it: \(result.stdout)")

        let fine = try script("event.on('frame_end', function() end)", in: home)
        let ok = try Fixtures.cli(["run", "--headless", "--frames", "10", "--script", fine], home: home)
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    func testRecordingOverAMovieNamesEachDoorsOwnOption() throws {
        let home = Fixtures.temporaryFolder()
        let movie = home + "/taken.rlm"
        try "not a movie".write(toFile: movie, atomically: true, encoding: .utf8)
        let cli = try Fixtures.cli(["run", "--headless", "--frames", "2", "--record-movie", movie], home: home)
        XCTAssertEqual(cli.status, 1)
        XCTAssertTrue(cli.stderr.contains("pass --overwrite"), cli.stderr)
        XCTAssertFalse(cli.stderr.contains("pass overwrite"), cli.stderr)

        let lua = try script(
            """
            local ok, problem = movie.record(emu.paths().data .. "/taken.rlm")
            print(problem)
            emu.exit(0)
            """, in: home)
        try FileManager.default.createDirectory(
            atPath: home + "/.local/share/retrolua/data", withIntermediateDirectories: true)
        try "x".write(toFile: home + "/.local/share/retrolua/data/taken.rlm", atomically: true, encoding: .utf8)
        let fromLua = try Fixtures.cli(["run", "--headless", "--frames", "2", "--script", lua], home: home)
        XCTAssertTrue(fromLua.stdout.contains("pass overwrite = true"), fromLua.stdout + fromLua.stderr)
        XCTAssertEqual(try String(contentsOfFile: movie, encoding: .utf8), "not a movie", "the file is untouched")
    }

    func testQuietKeepsTheSaveMoveNoticeToItself() throws {
        let home = Fixtures.temporaryFolder()
        let saves = home + "/.local/share/retrolua/saves"
        // A first run makes the keyed save; renamed to the old layout, the next run moves it back.
        _ = try Fixtures.cli(["run", "--headless", "--frames", "120", "--quiet"], home: home)
        let keyed = saves + "/" + Fixtures.srm()
        XCTAssertTrue(FileManager.default.fileExists(atPath: keyed))
        try FileManager.default.moveItem(atPath: keyed, toPath: saves + "/demo.srm")
        let quiet = try Fixtures.cli(["run", "--headless", "--frames", "2", "--quiet"], home: home)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "--quiet prints no notice")
        XCTAssertTrue(FileManager.default.fileExists(atPath: keyed), "the save was moved all the same")

        try FileManager.default.moveItem(atPath: keyed, toPath: saves + "/demo.srm")
        try? FileManager.default.removeItem(atPath: saves + "/demo.srm.migrated")
        let told = try Fixtures.cli(["run", "--headless", "--frames", "2"], home: home)
        XCTAssertTrue(told.stderr.contains("now lives in"), "without --quiet it is said: \(told.stderr)")
    }

    /// A window paused by its script, stepped 30 frames over the socket, held paused a while, then quit: the
    /// summary counts the socket's frames and leaves the paused time out.
    func testTheWindowSummaryCountsSocketFramesAndNotPausedTime() throws {
        let home = Fixtures.temporaryFolder()
        let pause = try script("emu.pause()", in: home)
        let socketPath = home + "/control.sock"
        let child = try ChildProcess(
            ["run", Fixtures.nesROM, "--no-audio", "--json", "--script", pause, "--control", "unix:" + socketPath],
            home: home, environment: ["DISPLAY": try XDisplay.name(), "SDL_AUDIODRIVER": "dummy"])
        XCTAssertTrue(child.waitUntil { FileManager.default.fileExists(atPath: socketPath) })
        let client = try UnixLineClient(path: socketPath)
        let stepped = try client.request(#"{"cmd": "step", "frames": 30}"#)
        XCTAssertTrue(stepped.contains("\"ok\":true"), stepped)
        usleep(2_500_000)  // paused: this time is not the emulator's
        _ = try client.request(#"{"cmd": "quit"}"#)
        let result = child.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(json["frames"] as? Int, 30, "the socket's frames are the run's frames")
        let seconds = try XCTUnwrap(json["seconds"] as? Double)
        XCTAssertLessThan(seconds, 2.5, "the 2.5 s held paused are not counted as running")
    }
}

/// One line out, one line back, over a Unix socket (the control socket's JSON door).
final class UnixLineClient {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(descriptor) }

    func request(_ line: String) throws -> String {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var reply: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { break }
            reply.append(byte)
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
