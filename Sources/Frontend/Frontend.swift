import Emulation
import Foundation
import Libretro
import Media
import Support

/// How a windowed (or headless-with-dumps) run presents, sounds and paces.
public struct FrontendOptions: Sendable {
    public enum Sync: String, Sendable {
        /// Wait for the audio queue to drain to its target (the default with a sound device).
        case audio
        /// Let vsync pace presentation (only when the display's refresh is within 1% of the core's fps).
        case vsync
        /// A clock at the core's fps × speed (the default without audio).
        case clock
    }

    public var window = true
    public var video = VideoOptions()
    public var audio = true
    public var audioQuality = ResamplerQuality.sincFastest
    public var rateControlDelta = 0.005
    public var latency = 0.064
    public var sync = Sync.audio
    public var wavPath: String?
    public var videoPath: String?
    public var showStats = false
    /// `--speak`: messages read aloud by espeak-ng.
    public var speak = false
    /// Show the core's pixels square instead of at its display aspect ratio.
    public var squarePixels = false
    public var frameLimit: Int?
    /// The starting speed (1 = real time, 0 = unthrottled); scripts change it with `emu.speed`.
    public var speed = 1.0
    /// Writes the window's game area (as drawn, with the emu overlay) as PNG at the end: tests compare
    /// it with the headless frame.
    public var windowCapturePath: String?
    /// A progress line on stderr in headless runs (when it is a terminal).
    public var progress = false

    public init() {}
}

/// The frame loop around the `Emulator`: a video output and an input source (SDL's window and devices,
/// or the null ones when headless), audio through libsamplerate, pacing, dumps and stats. Every device
/// degrades: no display → headless, no sound card → silent, each with a message.
public final class Frontend {
    let emulator: Emulator
    /// The overlay surfaces it presents, the window facts and devices it keeps current.
    let screen: Screen
    let scripts: any FrontendScripts
    var options: FrontendOptions
    var video: VideoOutput
    var input: InputSource
    /// Whether `video` and `input` were handed in (tests); otherwise `open()` picks them.
    let devicesGiven: Bool
    var audio: AudioPipeline?
    var wav: WAVFileOutput?
    private var dump: VideoDump?
    private var pacer: Pacer
    private var advanceOneFrame = false
    private var quitRequested = false
    private var lastPresent: UInt64 = 0
    private var wasPaused = false
    /// The display's refresh period in nanoseconds (60 Hz when the display cannot tell).
    var displayPeriod: UInt64 = 16_666_667
    /// What the run falls back to (no display, no sound, a gamepad came or went): silent with `--quiet`.
    public var onNotice: (String) -> Void = { FileHandle.standardError.write(Data("retrolua: \($0)\n".utf8)) }
    /// A problem (a dump that cannot be written): always reported.
    public var onProblem: (String) -> Void = { FileHandle.standardError.write(Data("retrolua: \($0)\n".utf8)) }

    /// Given `video` or `input` are used as they are instead of what `open()` would pick (tests run the
    /// frontend on the null backends and read back what reached them).
    public init(
        emulator: Emulator, screen: Screen, scripts: any FrontendScripts, options: FrontendOptions,
        video: VideoOutput? = nil, input: InputSource? = nil
    ) {
        self.emulator = emulator
        self.screen = screen
        self.scripts = scripts
        self.options = options
        self.video = video ?? NullVideoOutput()
        self.input = input ?? NullInputSource()
        devicesGiven = video != nil || input != nil
        pacer = Pacer(fps: emulator.session.core.avInfo?.fps ?? 60)
    }

    public var isWindowed: Bool { video.isVisible }

    /// The display aspect ratio to draw at; 0 means square pixels.
    var aspect: Double { options.squarePixels ? 0 : emulator.session.core.avInfo?.aspectRatio ?? 0 }

    /// Frames to run; nil runs until the window closes, `emu.exit`, or (headless) scripts finish.
    public var frameLimit: Int? {
        get { options.frameLimit }
        set { options.frameLimit = newValue }
    }

    /// Runs until the frame limit, `emu.exit`, or the window closes.
    /// Called once per loop turn before the frame (the control socket); returning false ends the run.
    public var betweenFrames: (() -> Bool)?

    public func run() -> RunReport {
        // The summary counts every frame the emulator ran (socket steps and frame advances too) over the time
        // it was not paused.
        let meter = RunMeter(emulator.session, frames: emulator.stats.frames)
        var pausedSeconds = 0.0
        var frames = 0
        var progress = ProgressLine(enabled: options.progress && !video.isVisible && isatty(2) != 0)
        defer { progress.finish() }
        // RETRO_ENVIRONMENT_SHUTDOWN ends the run after the frame that asked (the emulator's exit request).
        while emulator.exitCode == nil && !quitRequested && !StopSignals.isRequested {
            if let limit = options.frameLimit, frames >= limit { break }
            // Headless with no limit: done once no script has anything left to do.
            if options.frameLimit == nil && !video.isVisible && !scripts.hasActiveScripts { break }
            handleEvents()
            if let betweenFrames, !betweenFrames() { break }
            if quitRequested { break }
            // Headless runs are never paused (emu.pause there would wait forever for a frame advance).
            if emulator.paused && video.isVisible && !advanceOneFrame {
                let idleStart = now()
                if !wasPaused { audio?.clear() }
                wasPaused = true
                scripts.redrawPaused()  // The hud says PAUSED at once, and follows messages, menus and editors.
                present(force: true)
                pacer.idle()
                pausedSeconds += seconds(since: idleStart)
                continue
            }
            advanceOneFrame = false
            wasPaused = false
            emulator.runFrame()
            frames += 1
            progress.update(frames: frames, of: options.frameLimit)
            mixAudio()
            present(force: false)
            pace()
        }
        return meter.report(frames: emulator.stats.frames, excludingSeconds: pausedSeconds)
    }

    /// Writes the window capture, closes dumps; returns problems to report.
    public func close() -> [String] {
        var problems: [String] = []
        if let path = options.windowCapturePath {
            if let capture = video.capture() {
                do {
                    try PNGFile.write(rgba: capture.rgba, width: capture.width, height: capture.height, to: path)
                } catch {
                    problems.append("\(error)")
                }
            } else {
                problems.append("\(path): no window to capture")
            }
        }
        do { try wav?.close() } catch { problems.append("\(error)") }
        if let failure = dump?.finish() { problems.append(failure) }
        // Dropping SDL's objects closes the window and its devices.
        video = NullVideoOutput()
        input = NullInputSource()
        return problems
    }

    // MARK: Frame parts

    private func handleEvents() {
        let events = input.poll(into: &screen.devices)
        for event in events {
            switch event {
            case .quit: quitRequested = true
            case .gamepadAdded(let name): onNotice("gamepad connected: \(name)")
            case .gamepadRemoved(let name): onNotice("gamepad disconnected: \(name)")
            default: break
            }
        }
        video.setSidePanel(width: scripts.sidePanel)
        video.setPadding(screen.padding)
        // Headless, the hud takes the frame's size (and a tool's side panel).
        screen.windowSize = video.isVisible ? video.windowSize : nil
        // Hotkeys are Lua (lua/defaults/hotkeys.lua): it answers these events with emu/gui calls.
        scripts.deliver(events)
        if let on = screen.fullscreenRequest {
            video.setFullscreen(on)
            screen.fullscreenRequest = nil
        }
        screen.isFullscreen = video.isFullscreen
        if emulator.stepRequested {
            advanceOneFrame = true
            emulator.stepRequested = false
        }
    }

    private var speed: Double { emulator.speed }

    private func mixAudio() {
        guard let audio else { return }
        let start = now()
        // Fast-forward and slow motion drop the sound cleanly rather than pitch it; file dumps keep it.
        audio.muted = speed != 1 && wav == nil
        audio.endFrame()
        emulator.stats.underruns = audio.stats.underruns
        emulator.stats.add(.audio, seconds: seconds(since: start))
    }

    private func present(force: Bool) {
        let core = emulator.session.core
        // Paused redraws (force) are not new frames: the encode gets each emulated frame once.
        if !force, let path = options.videoPath, let frame = emulator.picture() {
            // The first frame fixes the encode's size (later geometry changes are letterboxed into it).
            if dump == nil, let fps = core.avInfo?.fps {
                do {
                    dump = try VideoDump(
                        path: path, audioPath: audioRecordingPath!, keepAudio: options.wavPath != nil,
                        width: frame.width, height: frame.height, fps: fps)
                } catch {
                    options.videoPath = nil
                    onProblem("\(error)")
                }
            }
            dump?.write(rgba: frame.rgba, width: frame.width, height: frame.height)
        }
        // Off real time, a window shows at most one frame per display refresh: the rest are dropped, not drawn.
        if !force && speed != 1 && video.isVisible && now() - lastPresent < displayPeriod {
            emulator.stats.dropped += 1
            return
        }
        let start = now()
        if options.showStats && video.isVisible { drawStats() }
        // A GL frame goes to the window on the GPU when it can, is read back for it when not, and is not
        // read at all for a headless present, which nobody sees.
        let gpuFrame =
            core.hardwareFrame
            && (!video.isVisible || video.presentHardwareFrame(width: core.frameWidth, height: core.frameHeight))
        let buffer = gpuFrame ? nil : core.lastFrameBuffer
        video.present(
            frame: buffer?.data, width: buffer?.width ?? 0, height: buffer?.height ?? 0, pitch: buffer?.pitch ?? 0,
            format: core.framePixelFormat, aspect: aspect,
            emu: screen.emuCanvas, hud: screen.hudCanvas)
        lastPresent = now()
        emulator.stats.add(.present, seconds: seconds(since: start))
    }

    /// `--stats` in its own corner (bottom right, clear of the OSD's lines), at the OSD's text scale.
    private func drawStats() {
        let hud = screen.hudCanvas
        let scale = Canvas.readableTextScale(width: hud.width, height: hud.height)
        let lines = emulator.stats.osdLines
        let lineHeight = (BitmapFont.cellHeight + 1) * scale
        for (index, line) in lines.enumerated() {
            let size = Canvas.textSize(line, scale: scale)
            let y = hud.height - 4 * scale - (lines.count - index) * lineHeight
            hud.text(
                x: hud.width - size.width - 4 * scale, y: y, line, color: 0xFFFF_FF00, background: 0xA000_0000,
                scale: scale)
        }
    }

    private func pace() {
        guard video.isVisible else { return }  // Headless runs are never paced.
        pacer.fps = emulator.session.core.avInfo?.fps ?? pacer.fps
        switch options.sync {
        case .audio where speed == 1:
            // Wait until the audio queue is back at its target: the sound card's clock paces the game.
            guard let audio else { return }
            var waited = 0
            while audio.framesAboveTarget() > 0 && waited < 200 {
                usleep(500)
                waited += 1
            }
            pacer.reset()
        case .vsync where speed == 1:
            pacer.reset()  // present() blocked on vsync already.
        default:
            pacer.wait(speed: speed)
        }
    }
}
