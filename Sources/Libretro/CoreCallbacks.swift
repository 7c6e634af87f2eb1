import CLibretro
import CRetroShim

// libretro callbacks carry no user pointer: they reach the one loaded core through this reference,
// which is only touched on the emulation thread (so exclusivity checks, hot in input_state, are skipped).
@exclusivity(unchecked) nonisolated(unsafe) private var currentCore: Core?

extension Core {
    static var current: Core? {
        get { currentCore }
        set { currentCore = newValue }
    }

    func installCallbacks() {
        rs_set_log_sink { level, message in
            guard let core = currentCore, let message else { return }
            var text = String(cString: message)
            while text.hasSuffix("\n") { text.removeLast() }
            core.log(LogLevel(rawValue: Int(level)) ?? .info, text)
        }
        // The environment must be set before retro_init, the rest before retro_run.
        symbols.setEnvironment { command, data in
            currentCore?.environment(command, data) ?? false
        }
        symbols.setVideoRefresh { data, width, height, pitch in
            currentCore?.videoRefresh(data, Int(width), Int(height), pitch)
        }
        symbols.setAudioSample { left, right in
            currentCore?.audioSample(left, right)
        }
        symbols.setAudioSampleBatch { samples, frames in
            guard let samples, let core = currentCore else { return frames }
            core.audioBatch(samples, frames)
            return frames
        }
        symbols.setInputPoll {
            currentCore?.inputPoll()
        }
        symbols.setInputState { port, device, index, id in
            currentCore?.input.value(port: port, device: device, index: index, id: id) ?? 0
        }
    }
}
