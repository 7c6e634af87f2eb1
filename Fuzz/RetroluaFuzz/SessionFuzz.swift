import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro
import Media

/// Where the project's files are (the ROMs scripts/setup builds) and a scratch folder for this process.
enum FuzzPaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let nesROM = root + "/build/roms/demo.nes"
    static let scratch: String = {
        let path = NSTemporaryDirectory() + "retrolua-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func config(content: String) -> SessionConfig {
        var config = SessionConfig(contentPath: content, coreSpec: "nestopia")
        config.paths.saves = scratch + "/saves"
        config.paths.system = scratch + "/system"
        config.paths.states = scratch + "/states"
        config.paths.data = scratch + "/data"
        config.paths.screenshots = scratch + "/screenshots"
        return config
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fuzz: \(message)\n".utf8))
        exit(2)
    }
}

/// Control requests against the NES demo in nestopia, loaded once per process as `retrolua control` does.
enum ControlFuzz {
    nonisolated(unsafe) static var control: ControlSession?

    static func prepare() {
        do {
            let session = try Session(FuzzPaths.config(content: FuzzPaths.nesROM), warn: { _ in })
            let emulator = Emulator(session: session)
            let host = ScriptHost(
                emulator: emulator, screen: Screen.shown(by: emulator),
                options: ScriptOptions(dataFolder: FuzzPaths.scratch + "/data"), api: Bindings.api)
            host.output = { _, _ in }
            host.onFailure = { _ in }
            for _ in 0..<5 { host.emulator.runFrame() }
            control = ControlSession(emulator: host.emulator, scripts: RunControlScripts(host), allowEval: false)
        } catch {
            FuzzPaths.fail("cannot load nestopia with \(FuzzPaths.nesROM) (run scripts/setup): \(error)")
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        // The protocol allows a million frames per step on purpose; a fuzzer only needs a few to cover it.
        if let request = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let frames = request["frames"] as? Int, frames > 30
        {
            return
        }
        _ = control?.handle(line)
    }
}

/// Content as a run reads it before any core sees it: a zip (members, sizes, names), a playlist (entries,
/// nesting, loops) or a plain file (its header for the identity), hashed and prepared as a core would
/// take it. The first byte picks the kind; the core's own parsing of a ROM is not ours to fuzz.
enum ContentFuzz {
    static let kinds = ["zip", "m3u", "nes", "sfc"]

    static func prepare() { _ = FuzzPaths.scratch }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let path = FuzzPaths.scratch + "/fuzz." + kinds[Int(first) % kinds.count]
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes.dropFirst())) else {
            FuzzPaths.fail("cannot write \(path)")
        }
        defer { ExtractedContent.removeAll() }
        guard let content = try? Content(path: path) else { return }
        _ = content.sha1
        _ = content.identity
        let needFullpath = first & 0x80 != 0
        guard (try? content.prepare(extensions: ["nes", "sfc", "gb"], needFullpath: needFullpath, core: "fuzz")) != nil
        else { return }
        _ = content.crc32
        if !needFullpath { _ = try? content.bytes() }
    }
}
