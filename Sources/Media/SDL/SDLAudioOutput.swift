import CSDL2

/// An audio device that could not be opened, with SDL's reason. The frontend answers it by playing
/// silently (`NullAudioOutput`) and saying why.
public struct AudioDeviceError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The sound card through SDL2, fed by `SDL_QueueAudio` from the emulation thread.
///
/// Why the queue rather than an audio callback: everything stays on one thread (no lock-free
/// hand-off to get right), and `SDL_GetQueuedAudioSize` is the fill level that rate control needs.
/// The device buffer is kept small (`deviceFrames`), so the queue is where the latency lives and
/// what the pipeline steers.
///
/// The format is always S16 stereo (SDL converts if the hardware differs); only the frequency may
/// differ from the request, and `sampleRate` is the one granted.
public final class SDLAudioOutput: AudioOutput {
    public let sampleRate: Int
    /// The device's own buffer, in frames (on top of `queuedFrames`).
    public let deviceFrames: Int
    /// The name of the SDL audio driver in use (`pulseaudio`, `alsa`, `disk`…).
    public let driver: String
    /// The error text of the last failed `SDL_QueueAudio`, if any.
    public private(set) var lastError: String?
    private let device: SDL_AudioDeviceID
    private var playing = false

    /// Opens the default device at `preferredRate` (SDL may choose another). Initializes SDL's audio
    /// subsystem itself (reference-counted by SDL, released in `deinit`), so it works with or
    /// without a window.
    public init(preferredRate: Int = 48000, deviceFrames: Int = 512) throws(AudioDeviceError) {
        retrolua_quiet_alsa()  // the reason a device cannot open is said once, by the caller
        guard SDL_InitSubSystem(UInt32(SDL_INIT_AUDIO)) == 0 else {
            throw AudioDeviceError("cannot start SDL audio: \(Self.sdlError())")
        }
        var desired = SDL_AudioSpec()
        desired.freq = Int32(preferredRate)
        desired.format = SDL_AudioFormat(AUDIO_S16SYS)
        desired.channels = 2
        desired.samples = UInt16(clamping: deviceFrames)
        desired.callback = nil
        var obtained = SDL_AudioSpec()
        let device = SDL_OpenAudioDevice(nil, 0, &desired, &obtained, Int32(SDL_AUDIO_ALLOW_FREQUENCY_CHANGE))
        guard device != 0 else {
            let reason = Self.sdlError()
            SDL_QuitSubSystem(UInt32(SDL_INIT_AUDIO))
            throw AudioDeviceError("cannot open an audio device: \(reason)")
        }
        self.device = device
        sampleRate = Int(obtained.freq)
        self.deviceFrames = Int(obtained.samples)
        driver = SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "unknown"
        // Opened paused; the pipeline starts playback once its target latency is queued.
    }

    deinit {
        SDL_CloseAudioDevice(device)
        SDL_QuitSubSystem(UInt32(SDL_INIT_AUDIO))
    }

    public var queuedFrames: Int { Int(SDL_GetQueuedAudioSize(device)) / 4 }

    public func queue(_ samples: UnsafeBufferPointer<Int16>) {
        guard let base = samples.baseAddress, samples.count >= 2 else { return }
        let bytes = (samples.count & ~1) * MemoryLayout<Int16>.size
        if SDL_QueueAudio(device, base, UInt32(bytes)) != 0 {
            lastError = "SDL_QueueAudio: \(Self.sdlError())"
        }
    }

    public func setPlaying(_ playing: Bool) {
        guard playing != self.playing else { return }
        self.playing = playing
        SDL_PauseAudioDevice(device, playing ? 0 : 1)
    }

    public func clear() {
        SDL_ClearQueuedAudio(device)
    }

    private static func sdlError() -> String {
        guard let text = SDL_GetError() else { return "unknown SDL error" }
        let message = String(cString: text)
        return message.isEmpty ? "unknown SDL error" : message
    }
}
