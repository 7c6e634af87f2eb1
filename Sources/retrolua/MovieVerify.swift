import Emulation
import Foundation
import Host
import Libretro

/// Headless replays of a movie against its RAM verification log (`movie verify`), or to write one.
enum Verify {
    /// Replays and prints "in sync" or the first desync; the exit status (1 on desync).
    static func run(rom: String, moviePath: String, arguments: [String]) -> Int32 {
        let args: Arguments
        do { args = try Arguments(arguments, valued: ["core", "save-dir", "system-dir"], flags: ["force", "headless", "quiet"]) } catch {
            fail("movie verify: \(error)", code: Exit.usage)
        }
        let movie: Movie
        do { movie = try MovieText.read(path: moviePath) } catch { fail("\(error)") }
        var config = SessionConfig(contentPath: rom, coreSpec: args.value("core"))
        if let folder = args.value("save-dir") { config.paths.saves = folder }
        if let folder = args.value("system-dir") { config.paths.system = folder }
        let (host, session) = replay(movie, path: moviePath, config: config, force: args.flag("force"))
        let start = Date()
        var progress = ProgressLine()
        while host.emulator.movie.mode == .play && host.emulator.movie.firstDesync == nil {
            host.emulator.runFrame()
            progress.update(frames: host.emulator.movie.frame, of: movie.length)
        }
        progress.finish()
        let seconds = Date().timeIntervalSince(start)
        let status: Int32
        if let desync = host.emulator.movie.firstDesync {
            print("desync   frame \(desync.frame) of \(movie.length): \(desync.what) (RAM CRC-32 \(hex(desync.actual)), the movie logged \(hex(desync.expected)))")
            status = Exit.failure
        } else {
            print(String(format: "in sync  %d frames verified in %.2f s (%.0f fps)", movie.length, seconds, Double(movie.length) / max(seconds, 1e-9)))
            status = 0
        }
        host.shutdown()
        try? session.close()
        return status
    }

    /// The movie with a RAM hash logged after every frame of a replay.
    static func addLog(to movie: Movie, rom: String, core: String?) -> Movie {
        var config = SessionConfig(contentPath: rom, coreSpec: core)
        config.options = movie.options
        var stripped = movie
        stripped.ramHashes = []
        let (host, session) = replay(stripped, path: nil, config: config, force: false)
        var hashes: [UInt32] = []
        hashes.reserveCapacity(movie.length)
        while host.emulator.movie.mode == .play {
            host.emulator.runFrame()
            hashes.append(host.emulator.movie.ramHash())
        }
        host.shutdown()
        try? session.close()
        stripped.ramHashes = hashes
        return stripped
    }

    private static func replay(_ movie: Movie, path: String?, config: SessionConfig, force: Bool) -> (ScriptHost, Session) {
        var config = config
        config.options = movie.options
        let session: Session
        do { session = try Session(config) } catch { fail(error.description) }
        let host = ScriptHost(emulator: Emulator(session: session), options: ScriptOptions(dataFolder: config.paths.data))
        var options = MovieEngine.PlayOptions()
        options.force = force
        do {
            for warning in try host.emulator.playMovie(movie, path: path, options: options) {
                FileHandle.standardError.write(Data("retrolua: warning: movie: \(warning)\n".utf8))
            }
        } catch {
            fail("\(error)")
        }
        return (host, session)
    }

    private static func hex(_ value: UInt32) -> String { String(format: "%08x", value) }
}
