import Foundation
import Libretro
import Support

/// What to run: content, core and the user's settings.
public struct SessionConfig: Sendable {
    public var contentPath: String?
    /// A core name (`nestopia`) or path; chosen from the content's extension when nil.
    public var coreSpec: String?
    /// `--option key=value` pairs, applied over the per-core and per-game option files.
    public var options: [(key: String, value: String)] = []
    public var paths = HostPaths()
    public var locator = CoreLocator()

    public init(contentPath: String? = nil, coreSpec: String? = nil) {
        self.contentPath = contentPath
        self.coreSpec = coreSpec
    }
}

/// A core with its content loaded: the frame loop's counters, save RAM, and an orderly shutdown.
public final class Session {
    public let core: Core
    public let content: Content?
    /// The core's short name (`nestopia`), used for option files.
    public let coreName: String
    /// The system the core emulates, from its info file (`Nintendo Entertainment System`), when known.
    public let systemName: String?
    /// How the core was chosen from the content (nil when `--core` named it).
    public private(set) var coreChoice: CoreChoice?
    /// Where this session's user files live.
    public let paths: HostPaths
    public private(set) var frameCount = 0
    public private(set) var lagCount = 0
    /// True when the core did not poll input during the last frame.
    public private(set) var lastFrameLagged = false
    private let saveRAM: SaveRAMFile?
    /// Where this game's battery save lives (nil without content).
    public var saveRAMPath: String? { saveRAM?.path }
    private var closed = false
    private var saveRAMWriteFailed = false
    private let warn: (String) -> Void
    /// The core right after loading the game, before the player's battery save went in: power-on
    /// for `powerCycle` and movies (nil when the core cannot serialize before its first frame).
    private let powerOnState: [UInt8]?
    private let powerOnSaveRAM: [UInt8]?
    /// Frames until save RAM is next compared with the file (once a second of emulated time).
    private var framesUntilSaveRAMCheck = Int.max
    private let saveRAMCheckInterval: Int
    /// True from load until a frame runs or a state is restored: the core is at power-on now, so a movie
    /// from power-on can start without a power cycle (cores that cannot serialize before their first frame).
    public private(set) var atPowerOn = true
    /// For such cores: the first state they could give, and how many frames after power-on it was made.
    public private(set) var firstState: (state: [UInt8], frame: Int)?
    /// Why save RAM will not be written back at close (a movie replaced the player's save in the core).
    public private(set) var saveRAMDetachedReason: String?

    /// Loads the core and content; warnings (bad option values, a rejected save file) go to `warn`, notices
    /// that are no problem (a save moved to its new name) to `notice`. `hardwareRenderers` makes the OpenGL
    /// context a GL core asks for (Media's EGL renderer in a run; without it such a core is refused).
    public init(
        _ config: SessionConfig, hardwareRenderers: HardwareRendererFactory? = nil,
        warn: @escaping (String) -> Void = Session.printWarning,
        notice: @escaping (String) -> Void = Session.printWarning
    ) throws(RetroError) {
        let content = try config.contentPath.map { path throws(RetroError) in try Content(path: path) }
        let corePath: String
        if let spec = config.coreSpec {
            corePath = try config.locator.resolve(spec)
        } else if let content {
            let choice = try config.locator.choose(for: content)
            corePath = choice.core.path
            coreChoice = choice
        } else {
            throw .contentRequired(core: "(none chosen)")
        }
        let fileName = (corePath as NSString).lastPathComponent
        coreName =
            fileName.hasSuffix("_libretro.so")
            ? String(fileName.dropLast("_libretro.so".count))
            : (fileName as NSString).deletingPathExtension
        systemName = CoreLocator.infoFile(for: corePath, name: coreName).systems.first
        let paths = config.paths
        self.paths = paths
        for folder in [paths.saves, paths.system] {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        // A write killed half-way leaves NAME.tmp<pid>; one to a file never written again would stay for good.
        for folder in [paths.config, paths.saves, paths.states, paths.screenshots, paths.data] {
            DurableFile.removeStaleTemporaries(under: folder)
        }
        let directories = CoreDirectories(
            system: paths.system, save: paths.saves,
            coreAssets: content.map { FilePath.folder(of: $0.path) } ?? paths.system)
        // Before the core is loaded: a core without its BIOS may crash or refuse the content silently.
        try CoreFirmware.check(corePath: corePath, name: coreName, systemFolder: paths.system, warn: warn)
        core = try Core(path: corePath, directories: directories, hardwareRenderers: hardwareRenderers)
        core.options.onWarning = warn
        for file in paths.optionFiles(core: coreName, game: content?.baseName) { core.options.load(file: file) }
        for (key, value) in config.options {
            if let problem = core.options.set(key, value) { warn(problem) }
        }
        self.content = content
        do {
            try core.load(content: content)
        } catch {
            core.close()
            throw error
        }
        let declared = Set(core.options.definitions.map(\.key))
        for (key, _) in config.options where !declared.contains(key) {
            warn("core '\(coreName)' has no option '\(key)' (see its options with --verbose)")
        }
        self.warn = warn
        powerOnState = try? core.serialize()
        powerOnSaveRAM = core.memoryRegion(.saveRAM).map {
            Array(UnsafeRawBufferPointer(start: $0.pointer, count: $0.size))
        }
        // Counted in frames at the core's rate, so when saves reach the disk does not depend on the machine.
        saveRAMCheckInterval = max(1, Int(exactly: (core.avInfo?.fps ?? 60).rounded()) ?? 60)
        saveRAM = content.map {
            SaveRAMFile(folder: paths.saves, game: $0.baseName, identity: $0.identity, warn: warn, note: notice)
        }
        saveRAM?.load(into: core)
        saveRAM?.remember(core)
        if saveRAM != nil && core.memoryRegion(.saveRAM) != nil { framesUntilSaveRAMCheck = saveRAMCheckInterval }
    }

    /// Turns the console off and on: the game restarts from power-on. Battery save RAM survives, as on
    /// the real console, unless `clearSaveRAM` (movies from power-on start without the player's save).
    public func powerCycle(clearSaveRAM: Bool = false) throws(RetroError) {
        guard let powerOnState else {
            throw .stateRejected(
                reason:
                    """
                    \(core.systemInfo.libraryName) could not save its power-on state, so it cannot be \
                    power-cycled (record from a savestate instead)
                    """
            )
        }
        let region = core.memoryRegion(.saveRAM)
        let kept =
            clearSaveRAM
            ? powerOnSaveRAM : region.map { Array(UnsafeRawBufferPointer(start: $0.pointer, count: $0.size)) }
        try core.unserialize(powerOnState, protecting: false)
        if let region, let kept, kept.count == region.size {
            kept.withUnsafeBytes { region.pointer.copyMemory(from: $0.baseAddress!, byteCount: kept.count) }
        }
    }

    /// Keeps the battery save on disk as it is at close (the core's save RAM now belongs to a movie).
    public func detachSaveRAM(because reason: String) {
        if saveRAMDetachedReason == nil && saveRAM != nil { saveRAMDetachedReason = reason }
    }

    /// Runs one frame and updates the frame and lag counters.
    @inline(__always)
    public func runFrame() {
        core.run()
        frameCount += 1
        atPowerOn = false
        if powerOnState == nil && firstState == nil && frameCount <= 60 { captureFirstState() }
        lastFrameLagged = !core.polledInput
        if lastFrameLagged { lagCount += 1 }
        framesUntilSaveRAMCheck &-= 1
        if framesUntilSaveRAMCheck == 0 { writeSaveRAMIfChanged() }
    }

    private func captureFirstState() {
        if let state = try? core.serialize() { firstState = (state, frameCount) }
    }

    /// Puts the game at power-on for a movie (with the save RAM the core made, not the player's): a power
    /// cycle, or for a core that could not save its power-on state, nothing but that when nothing has run
    /// yet. Throws when neither is possible.
    public func startAtPowerOn() throws(RetroError) {
        if powerOnState == nil && atPowerOn {
            if let region = core.memoryRegion(.saveRAM), let initial = powerOnSaveRAM, initial.count == region.size {
                initial.withUnsafeBytes { region.pointer.copyMemory(from: $0.baseAddress!, byteCount: initial.count) }
            }
        } else {
            try powerCycle(clearSaveRAM: true)
        }
        restoreCounters(frame: 0, lag: 0)
        atPowerOn = true
    }

    /// Once a second of emulated time: a changed battery save goes to disk now, so a crash or power
    /// loss costs at most a second of the game's saves. A failure is reported once; close still tries.
    private func writeSaveRAMIfChanged() {
        framesUntilSaveRAMCheck = saveRAMCheckInterval
        guard saveRAMDetachedReason == nil, let saveRAM else { return }
        do { try saveRAM.saveIfChanged(from: core) } catch {
            if !saveRAMWriteFailed { warn("\(error) (retried at exit)") }
            saveRAMWriteFailed = true
        }
    }

    /// Puts the counters back to where a loaded savestate was made.
    public func restoreCounters(frame: Int, lag: Int) {
        frameCount = frame
        lagCount = lag
        atPowerOn = false
    }

    /// Writes save RAM now and keeps the core: a run ending in an emergency (a script that never returns).
    public func writeSaveRAM() throws(RetroError) {
        guard !closed, saveRAMDetachedReason == nil else { return }
        try saveRAM?.save(from: core)
    }

    /// Writes save RAM and unloads the core. Safe to call twice.
    public func close() throws(RetroError) {
        guard !closed else { return }
        closed = true
        defer { core.close() }
        if let reason = saveRAMDetachedReason {
            if let path = saveRAM?.path, core.memoryRegion(.saveRAM) != nil { warn("\(path) not written: \(reason)") }
            return
        }
        try saveRAM?.save(from: core)
    }

    public static func printWarning(_ message: String) {
        FileHandle.standardError.write(Data("retrolua: warning: \(message)\n".utf8))
    }
}
