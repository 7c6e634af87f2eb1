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
          --frames N            frames to run (default 600; with scripts: until they finish or call emu.exit)
          --headless            run without a window (the only mode until the SDL frontend lands)
          --screenshot FILE     write the last frame, with the scripts' emu overlay, as PNG
          --option KEY=VALUE    set a core option (repeatable; overrides the option files)
          --save-dir DIR        battery saves folder (default ~/.local/share/retrolua/saves)
          --system-dir DIR      BIOS/system folder (default ~/.local/share/retrolua/system)
          --quiet               print nothing but errors and script output
          --verbose             show the core's own log messages

        scripts (Lua 5.4; API reference: lua/API.md):
          --script FILE         run a script (repeatable; scripts run in this order every frame)
          --strict              a failing script ends the run with exit status 1 (default: it is unloaded)
          --watch               reload a script when its file is saved (emulator state is kept)
          --trust               allow os.execute, io.popen, native modules and bytecode
          --sandbox             confine file access to the script's folder and the data folder
          --data-dir DIR        the data folder (default ~/.local/share/retrolua/data)
          --script-memory MB    memory cap per script (default 256)
          --script-budget N     instructions (millions) a script may run before returning (default 200)
          --log FILE            also append script output and failures to FILE
        """

    static func main(_ raw: [String]) {
        let args: Arguments
        do {
            args = try Arguments(raw, valued: ["core", "frames", "screenshot", "option", "save-dir", "system-dir", "script",
                                               "data-dir", "script-memory", "script-budget", "log"],
                                 flags: ["headless", "quiet", "verbose", "help", "strict", "watch", "trust", "sandbox"])
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
        let frameLimit: Int?
        var scriptOptions = ScriptOptions(dataFolder: args.value("data-dir") ?? config.paths.data)
        do {
            frameLimit = try args.integer("frames")
            if let megabytes = try args.integer("script-memory") { scriptOptions.memoryLimit = megabytes << 20 }
            if let millions = try args.integer("script-budget") { scriptOptions.instructionBudget = millions * 1_000_000 }
        } catch {
            fail("run: \(error)", code: Exit.usage)
        }
        scriptOptions.strict = args.flag("strict")
        scriptOptions.watch = args.flag("watch")
        scriptOptions.trust = args.flag("trust")
        scriptOptions.sandbox = args.flag("sandbox")
        let scripts = args.all("script")
        for script in scripts where !FileManager.default.isReadableFile(atPath: script) {
            fail("run: \(script): no such script")
        }

        let session: Session
        do {
            session = try Session(config)
        } catch {
            fail(error.description)
        }
        if args.flag("verbose") {
            session.core.onLog = { _, message in
                FileHandle.standardError.write(Data("[\(session.coreName)] \(message)\n".utf8))
            }
        }

        var status: Int32 = 0
        let report: RunReport
        var overlayFrame: (rgba: [UInt8], width: Int, height: Int)?
        if scripts.isEmpty {
            report = session.runHeadless(frames: frameLimit ?? 600)
        } else {
            try? FileManager.default.createDirectory(atPath: scriptOptions.dataFolder, withIntermediateDirectories: true)
            let host = ScriptHost(session: session, options: scriptOptions)
            if let log = args.value("log") {
                if !FileManager.default.fileExists(atPath: log) { FileManager.default.createFile(atPath: log, contents: nil) }
                host.logFile = FileHandle(forWritingAtPath: log)
                _ = try? host.logFile?.seekToEnd()
                if host.logFile == nil { fail("run: --log \(log): cannot open for writing") }
            }
            for script in scripts {
                do { try host.load(scriptAt: script) } catch {
                    host.onFailure(error)
                    if scriptOptions.strict { status = Exit.failure }
                }
            }
            report = host.run(frameLimit: status == 0 ? frameLimit : 0)
            overlayFrame = host.frameWithOverlay()
            host.shutdown()
            if let code = host.exitCode { status = code }
        }

        if let path = args.value("screenshot") {
            let frame = overlayFrame ?? report.lastFrame.map { ($0.rgba(), $0.width, $0.height) }
            if let frame {
                do { try PNGFile.write(rgba: frame.rgba, width: frame.width, height: frame.height, to: path) } catch {
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
        if !args.flag("quiet") { printSummary(session: session, report: report) }
        exit(status)
    }

    static func printSummary(session: Session, report: RunReport) {
        let info = session.core.systemInfo
        let fps = session.core.avInfo?.fps ?? 60
        print("core     \(session.coreName) (\(info.libraryName) \(info.libraryVersion.trimmingCharacters(in: .whitespaces)))")
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
