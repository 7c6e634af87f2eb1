import Emulation
import Foundation
import Libretro
import Media

/// Opening the run's devices: the one place SDL's window and input or the null pair are chosen, sound
/// (a card, a WAV recording, both), the pacing that the devices allow, and GL cores drawing in the window.
extension Frontend {
    /// Opens what is available: a missing display or sound card becomes a notice; only a dump that
    /// cannot be written (or --video without ffmpeg) is an error.
    public func open() throws(RetroError) {
        let core = emulator.session.core
        let av = core.avInfo
        if !devicesGiven { (video, input) = openDevices() }
        let rate = av?.sampleRate ?? 48000
        var outputs: [AudioOutput] = []
        if options.audio && video.isVisible {
            do { outputs.append(try SDLAudioOutput()) } catch { onNotice("no audio device (\(error)): running silent") }
        }
        if let path = audioRecordingPath {
            do { wav = try WAVFileOutput(path: path, sampleRate: outputs.first?.sampleRate ?? 48000) } catch {
                throw .fileWrite(path: path, reason: "\(error)")
            }
            outputs.append(wav!)
        }
        if !outputs.isEmpty {
            let output: AudioOutput = outputs.count == 1 ? outputs[0] : TeeAudioOutput(outputs[0], outputs[1])
            let pipeline = AudioPipeline(
                inputRate: rate, output: output, quality: options.audioQuality,
                delta: options.rateControlDelta, latency: options.latency)
            audio = pipeline
            core.onAudio = { samples, frames in pipeline.push(samples, frames: frames) }
            // A state load or reset jumps in time: stale queued sound would play out of place.
            emulator.listen { event in if event == .timeJumped { pipeline.clear() } }
        }
        let refresh = video.refreshRate ?? 0
        if refresh > 0 { displayPeriod = UInt64(1e9 / refresh) }
        // Audio pacing needs a sound card; vsync pacing needs vsync at (within 1% of) the core's rate.
        let cardPaces = outputs.first?.isRealTime == true
        if options.sync == .audio && !cardPaces { options.sync = .clock }
        if options.sync == .vsync {
            let fps = av?.fps ?? 60
            if !video.vsyncActive || refresh <= 0 || abs(refresh - fps) / fps > 0.01 {
                onNotice(
                    String(
                        format: "--sync vsync: the display runs at %.2f Hz, the core at %.4f fps; pacing by %@ instead",
                        refresh, fps, cardPaces ? "audio" : "the clock"))
                options.sync = cardPaces ? .audio : .clock
            }
        }
        // Paced by anything but the sound card, the resampler must learn the card's clock drift itself.
        audio?.learnsClockDrift = options.sync != .audio
        if let path = options.videoPath, VideoDump.ffmpeg() == nil {
            throw .fileWrite(
                path: path, reason: "--video needs ffmpeg, which is not installed (apt-get install ffmpeg)")
        }
    }

    /// The one place a backend is chosen: SDL's window and input when a window is wanted and a display
    /// answers, otherwise the null pair (headless), with a notice saying why.
    private func openDevices() -> (VideoOutput, InputSource) {
        let headless: (VideoOutput, InputSource) = (NullVideoOutput(), NullInputSource())
        guard options.window else { return headless }
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else {
            onNotice("no display (DISPLAY is not set): running headless")
            return headless
        }
        let av = emulator.session.core.avInfo
        do {
            let window = try SDLVideo(
                title: "Retrolua — \(emulator.session.content?.fileName ?? emulator.session.coreName)",
                options: options.video, baseWidth: av?.baseWidth ?? 256, baseHeight: av?.baseHeight ?? 224,
                aspect: aspect)
            useWindowForHardwareRendering(window)
            return (window, SDLInput())
        } catch {
            onNotice("no display (\(error)): running headless")
            return headless
        }
    }

    /// A GL core draws in the window's context (its frames then cost no readback); where SDL's renderer
    /// is not OpenGL it keeps its offscreen context and its frames are read back for the window.
    private func useWindowForHardwareRendering(_ window: SDLVideo) {
        let core = emulator.session.core
        guard let request = core.hardwareRenderRequest else { return }
        guard let renderer = window.makeHardwareRenderer(for: request) else {
            onNotice("the window's renderer (\(window.rendererName)) cannot share GL: GL frames are read back")
            return
        }
        // A context the core asks for later is the window's too (an offscreen EGL one cannot be made
        // current beside it on this thread).
        core.replaceHardwareRenderer(renderer) { [weak window] request in
            guard let made = window?.makeHardwareRenderer(for: request) else {
                throw GLContextError(text: "the window cannot make \(request.contextName)")
            }
            return made
        }
        window.willClose = { [weak core] in core?.releaseHardwareRenderer() }
    }

    /// Where the resampled sound is recorded: `--wav`, or beside a `--video` dump for muxing.
    var audioRecordingPath: String? { options.wavPath ?? options.videoPath.map { $0 + ".audio.wav" } }
}
