import Foundation
import Host
import Libretro
import Media

enum RunCommand {
    static let help = """
        usage: retrolua run [ROM] [options]

        Runs ROM on a libretro core. Without ROM, plays the built-in homebrew demo (build/roms/demo.nes)
        on nestopia. Headless runs are unpaced and print a summary with a hash of the last frame.

          --core NAME|PATH      core to use (default: chosen from the ROM's extension; see `retrolua cores`)
          --frames N            frames to run (default 600)
          --headless            run without a window (the only mode until the SDL frontend lands)
          --screenshot FILE     write the last frame as PNG
          --option KEY=VALUE    set a core option (repeatable; overrides the option files)
          --save-dir DIR        battery saves folder (default ~/.local/share/retrolua/saves)
          --system-dir DIR      BIOS/system folder (default ~/.local/share/retrolua/system)
          --quiet               print nothing but errors
          --verbose             show the core's own log messages
        """

    static func main(_ raw: [String]) {
        let args: Arguments
        do {
            args = try Arguments(raw, valued: ["core", "frames", "screenshot", "option", "save-dir", "system-dir"],
                                 flags: ["headless", "quiet", "verbose", "help"])
        } catch {
            fail("run: \(error)\n\n\(help)", code: Exit.usage)
        }
        if args.flag("help") { print(help); exit(0) }
        guard args.positionals.count <= 1 else { fail("run: expected at most one ROM, got \(args.positionals.count)", code: Exit.usage) }

        var config = SessionConfig(contentPath: args.positionals.first, coreSpec: args.value("core"))
        if config.contentPath == nil {
            guard let demo = HostPaths.defaultContent() else {
                fail("run: no ROM given and the built-in demo is not built; run scripts/setup first")
            }
            config.contentPath = demo
            config.coreSpec = config.coreSpec ?? "nestopia"
        }
        for pair in args.all("option") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                fail("run: --option expects KEY=VALUE, got '\(pair)'", code: Exit.usage)
            }
            config.options.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        if let folder = args.value("save-dir") { config.paths.saves = folder }
        if let folder = args.value("system-dir") { config.paths.system = folder }
        let frames: Int
        do { frames = try args.integer("frames") ?? 600 } catch { fail("run: \(error)", code: Exit.usage) }
        let quiet = args.flag("quiet")

        let session: Session
        do {
            session = try Session(config)
        } catch {
            fail(error.description)
        }
        if args.flag("verbose") {
            session.core.onLog = { level, message in
                FileHandle.standardError.write(Data("[\(session.coreName)] \(message)\n".utf8))
            }
        }

        let report = session.runHeadless(frames: frames)
        var status: Int32 = 0
        if let path = args.value("screenshot") {
            if let frame = report.lastFrame {
                do { try PNGFile.write(frame, to: path) } catch {
                    FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
                    status = Exit.failure
                }
            } else {
                FileHandle.standardError.write(Data("retrolua: no frame to write to \(path): the core produced none\n".utf8))
                status = Exit.failure
            }
        }
        do { try session.close() } catch {
            FileHandle.standardError.write(Data("retrolua: \(error)\n".utf8))
            status = Exit.failure
        }
        if !quiet { printSummary(session: session, report: report) }
        exit(status)
    }

    static func printSummary(session: Session, report: RunReport) {
        let info = session.core.systemInfo
        let fps = session.core.avInfo?.fps ?? 60
        print("core     \(session.coreName) (\(info.libraryName) \(info.libraryVersion))")
        if let content = session.content {
            print("content  \(content.fileName)  crc32 \(content.crc32)  sha1 \(content.sha1)")
        }
        print(String(format: "frames   %d in %.3f s: %.0f fps, %.1fx real time (core runs at %.4f fps); %d lag frames",
                     report.frames, report.seconds, report.framesPerSecond, report.framesPerSecond / fps, fps, report.lagFrames))
        if let frame = report.lastFrame, let hash = report.frameHash {
            print("frame    \(frame.width)x\(frame.height) \(frame.format)  hash \(hash)")
        } else {
            print("frame    none (the core presented no frame)")
        }
    }
}
