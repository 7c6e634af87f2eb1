import CLibretro
import CRetroShim
import Glibc

/// Folders a core may ask for through the environment.
public struct CoreDirectories: Sendable {
    public var system: String
    public var save: String
    public var coreAssets: String

    public init(system: String, save: String, coreAssets: String) {
        self.system = system
        self.save = save
        self.coreAssets = coreAssets
    }
}

public enum LogLevel: Int, Sendable, Comparable {
    case debug = 0, info, warn, error
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// One loaded libretro core: its lifecycle, the frame it runs, its memory and its savestates.
///
/// libretro callbacks carry no context, so one `Core` at a time is the process's current core.
/// All calls happen on the emulation thread.
public final class Core {
    public let path: String
    public let systemInfo: SystemInfo
    public let directories: CoreDirectories
    public let options = CoreOptions()
    let symbols: CoreSymbols
    private var handle: UnsafeMutableRawPointer?
    /// Set once `retro_load_game` succeeded: only then may `retro_unload_game` be called (some cores
    /// crash unloading a game they refused).
    private var gameLoaded = false
    let strings = CStringStore()

    // What the core told us through the environment.
    public internal(set) var avInfo: AVInfo?
    public internal(set) var pixelFormat: PixelFormat = .xrgb1555
    public internal(set) var memoryDescriptors: [MemoryDescriptor] = []
    public internal(set) var inputDescriptors: [InputDescriptor] = []
    public internal(set) var controllerTypes: [[ControllerType]] = []
    public internal(set) var serializationQuirks: UInt64 = 0
    public internal(set) var supportsNoGame = false
    public internal(set) var supportsAchievements = false
    public internal(set) var rotation = 0
    public internal(set) var shutdownRequested = false
    var frameTimeCallback: retro_frame_time_callback?
    var keyboardCallback: retro_keyboard_event_t?
    /// SET_DISK_CONTROL(_EXT)_INTERFACE: the core's disc tray (see Core+DiskControl.swift).
    var diskControl: DiskControl?
    /// SET_HW_RENDER: offered when the run has GL (`hardwareRendererFactory`), set when accepted; a
    /// window that takes over the core's rendering replaces the factory (`replaceHardwareRenderer`).
    var hardwareRendererFactory: HardwareRendererFactory?
    var hardware: HardwareRenderState?

    // What the frontend tells the core.
    @exclusivity(unchecked) public var input = InputState()
    /// GET_AUDIO_VIDEO_ENABLE: a frontend running frames it will not show (run-ahead) clears these.
    public var videoEnabled = true
    public var audioEnabled = true
    /// GET_THROTTLE_STATE / GET_FASTFORWARDING.
    public var throttleMode = UInt32(RETRO_THROTTLE_NONE)
    public var throttleRate: Float = 0

    // Per frame.
    @exclusivity(unchecked) public private(set) var polledInput = false
    public internal(set) var frameWidth = 0
    public internal(set) var frameHeight = 0
    public internal(set) var framePitch = 0
    var lastFrameData: UnsafeRawPointer?
    /// The last frame is in the GL framebuffer; it is read back only when pixels are asked for.
    public internal(set) var hardwareFrame = false
    /// GL frames read back so far (each costs a glReadPixels): what a run paid for pixels.
    public internal(set) var hardwareReadbacks = 0
    public private(set) var dupedFrames = 0
    /// Called with interleaved stereo int16 samples and the number of stereo frames.
    public var onAudio: ((UnsafePointer<Int16>, Int) -> Void)?
    /// Called when the core polls input, before it reads any button.
    public var onInputPoll: (() -> Void)?
    public var onLog: ((LogLevel, String) -> Void)?
    private var singleSamples: [Int16] = []
    /// The state size measured this frame (see Core+Savestates.swift).
    var cachedSerializeSize: Int?
    /// Where `unserialize` keeps the state it may have to put back.
    var rollback = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Buffers already checked to be readable, so a core that reuses its buffers pays for one check.
    var checkedFrameBuffers: [(pointer: UnsafeRawPointer, span: Int)] = []
    var checkedAudioBuffer: (pointer: UnsafeRawPointer, span: Int)?
    var checkedRegions: [UInt32: (pointer: UnsafeMutableRawPointer, size: Int)] = [:]
    /// Misbehaviours already reported (each once per run).
    var reportedProblems = Set<String>()

    /// Loads the core library, checks it speaks libretro v1, and initialises it.
    public init(
        path: String, directories: CoreDirectories, hardwareRenderers: HardwareRendererFactory? = nil
    ) throws(RetroError) {
        guard Core.current == nil else { fatalError("Core: only one core may be loaded at a time") }
        self.path = path
        hardwareRendererFactory = hardwareRenderers
        self.directories = directories
        try CoreFile.check(path: path)
        rs_line_buffer_stdout()  // a core's printf lines and a script's print lines reach stdout whole
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw .notALibrary(path: path, reason: dlerror().map { String(cString: $0) } ?? "unknown error")
        }
        do {
            symbols = try CoreSymbols(handle: handle)
        } catch {
            dlclose(handle)
            throw .notALibretroCore(path: path, missingSymbol: error.missing)
        }
        let version = symbols.apiVersion()
        guard version == UInt32(RETRO_API_VERSION) else {
            dlclose(handle)
            throw .wrongAPIVersion(path: path, version: version)
        }
        var info = retro_system_info()
        symbols.getSystemInfo(&info)
        systemInfo = SystemInfo(info)
        self.handle = handle
        options.onWarning = { [unowned self] in self.log(.warn, $0) }

        Core.current = self
        installCallbacks()
        Core.withStdoutOnStderr { symbols.initialize() }
    }

    /// Loads content (or none, for cores that support running without it).
    public func load(content: Content?) throws(RetroError) {
        if content == nil && !supportsNoGame { throw .contentRequired(core: systemInfo.libraryName) }
        var loaded = false
        if let content {
            try content.prepare(
                extensions: systemInfo.validExtensions, needFullpath: systemInfo.needFullpath,
                blockExtract: systemInfo.blockExtract, core: systemInfo.libraryName)
            if !systemInfo.validExtensions.isEmpty && !systemInfo.validExtensions.contains(content.fileExtension) {
                throw .wrongSystem(
                    path: content.path, core: systemInfo.libraryName, extensions: systemInfo.validExtensions)
            }
            let inMemory = systemInfo.needFullpath ? [] : try content.bytes()
            loaded = content.corePath.withCString { cPath in
                inMemory.withUnsafeBytes { bytes in
                    var game = retro_game_info(
                        path: cPath,
                        data: systemInfo.needFullpath ? nil : bytes.baseAddress,
                        size: systemInfo.needFullpath ? 0 : bytes.count,
                        meta: nil)
                    return Core.withStdoutOnStderr { symbols.loadGame(&game) }
                }
            }
            if !loaded { throw .loadGameFailed(path: content.path, core: systemInfo.libraryName) }
        } else {
            loaded = Core.withStdoutOnStderr { symbols.loadGame(nil) }
            if !loaded { throw .loadGameFailed(path: "(no content)", core: systemInfo.libraryName) }
        }
        gameLoaded = true
        // The core read its options while loading: values given before the load are no change to report
        // (mGBA re-applies its settings on an update, and the run would differ from one given none).
        options.changed = false
        if let content { insertExtraDiscs(content) }
        var av = retro_system_av_info()
        symbols.getSystemAVInfo(&av)
        avInfo = AVInfo(av)
        // Frontends plug a RetroPad into the first ports after loading; some cores wait for it.
        for port in 0..<2 { symbols.setControllerPortDevice(UInt32(port), UInt32(RETRO_DEVICE_JOYPAD)) }
    }

    /// Runs one frame of emulation.
    @inline(__always)
    public func run() {
        polledInput = false
        cachedSerializeSize = nil
        if let callback = frameTimeCallback?.callback, let fps = avInfo?.fps, fps > 0 {
            // A fixed frame time, not the wall clock, keeps runs deterministic.
            callback(retro_usec_t(1_000_000 / fps))
        }
        if hardware != nil { readyHardwareContext() }
        symbols.run()
        if !singleSamples.isEmpty { flushSingleSamples() }
    }

    /// Forgets every cheat code handed to the core (`retro_cheat_reset`).
    public func resetCheats() { symbols.cheatReset() }

    /// Hands one code to the core (`retro_cheat_set`); the core decides what it accepts.
    public func setCheat(index: UInt32, code: String) {
        code.withCString { symbols.cheatSet(index, true, $0) }
    }

    public func reset() {
        cachedSerializeSize = nil
        symbols.reset()
    }

    /// Unloads the game and the core. The `Core` is unusable afterwards.
    public func close() {
        guard let handle else { return }
        // A core may still call back while it unloads (parallel_n64 finishes a frame): those calls reach
        // no owner, since the objects that set the hooks may be gone by now.
        onAudio = nil
        onInputPoll = nil
        destroyHardwareContext()  // libretro.h: context_destroy comes before retro_unload_game.
        if gameLoaded { symbols.unloadGame() }
        gameLoaded = false
        symbols.deinitialize()
        hardware?.renderer.destroy()
        hardware = nil
        Core.current = nil
        dlclose(handle)
        self.handle = nil
    }

    deinit {
        close()
        rollback.deallocate()
    }

    func log(_ level: LogLevel, _ message: String) {
        if let onLog {
            onLog(level, message)
        } else if level >= .warn {
            FileHandleStderr.write("[\(systemInfo.libraryName)] \(message)\n")
        }
    }

    // MARK: Callbacks from the core

    @inline(__always)
    func videoRefresh(_ data: UnsafeRawPointer?, _ width: Int, _ height: Int, _ pitch: Int) {
        if data == UnsafeRawPointer(bitPattern: -1) {  // RETRO_HW_FRAME_BUFFER_VALID
            hardwareVideoRefresh(width, height)
            return
        }
        if data != nil && hardwareFrame { hardwareFrame = false }
        if let data, !frameIsSafe(data, width, height, pitch) {
            forgetFrame()  // Nothing of a frame that lies about its size is read; the picture goes blank.
            return
        }
        if let data {
            lastFrameData = data
            frameWidth = width
            frameHeight = height
            framePitch = pitch
        } else {
            dupedFrames += 1
        }
    }

    /// Drops the last frame: after a format or geometry change its size no longer vouches for it.
    func forgetFrame() {
        lastFrameData = nil
        hardwareFrame = false
        frameWidth = 0
        frameHeight = 0
        checkedFrameBuffers.removeAll()
    }

    /// The core's last frame, in place (valid until its next frame): for presenting without a copy.
    public var lastFrameBuffer: (data: UnsafeRawPointer, width: Int, height: Int, pitch: Int)? {
        guard let data = hardwareFrame ? readBackHardwareFrame() : lastFrameData, frameWidth > 0, frameHeight > 0
        else { return nil }
        return (data, frameWidth, frameHeight, framePitch)
    }

    /// A copy of the last frame the core presented. The core's buffer stays valid until its next
    /// frame (frontends rely on this to redraw while paused), so nothing is copied per frame.
    public func currentFrame() -> VideoFrame? {
        guard let data = hardwareFrame ? readBackHardwareFrame() : lastFrameData, frameWidth > 0, frameHeight > 0
        else { return nil }
        return VideoFrame(
            copying: data, width: frameWidth, height: frameHeight, pitch: framePitch, format: framePixelFormat)
    }

    @inline(__always)
    func audioBatch(_ samples: UnsafePointer<Int16>, _ frames: Int) {
        guard audioBatchIsSafe(samples, frames) else { return }
        if audioEnabled { onAudio?(samples, frames) }
    }

    func audioSample(_ left: Int16, _ right: Int16) {
        singleSamples.append(left)
        singleSamples.append(right)
    }

    private func flushSingleSamples() {
        singleSamples.withUnsafeBufferPointer { audioBatch($0.baseAddress!, $0.count / 2) }
        singleSamples.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    func inputPoll() {
        polledInput = true
        onInputPoll?()
    }
}

/// One entry of SET_INPUT_DESCRIPTORS: what a button does in this game.
public struct InputDescriptor: Sendable, Equatable {
    public let port: Int
    public let device: Int
    public let index: Int
    public let id: Int
    public let description: String
}

/// One entry of SET_CONTROLLER_INFO: a device a port accepts.
public struct ControllerType: Sendable, Equatable {
    public let description: String
    public let id: UInt32
}

extension Core {
    /// Some cores printf their chatter; sending it to stderr keeps our stdout machine-readable.
    static func withStdoutOnStderr<T>(_ body: () -> T) -> T {
        fflush(nil)
        let saved = dup(1)
        guard saved >= 0 else { return body() }
        dup2(2, 1)
        defer {
            fflush(nil)
            dup2(saved, 1)
            Glibc.close(saved)
        }
        return body()
    }
}

enum FileHandleStderr {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
