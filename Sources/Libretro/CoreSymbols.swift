import CLibretro
import Glibc

/// Every `retro_*` entry point of a core, resolved once with `dlsym` and typed.
struct CoreSymbols {

    let setEnvironment: @convention(c) (retro_environment_t?) -> Void
    let setVideoRefresh: @convention(c) (retro_video_refresh_t?) -> Void
    let setAudioSample: @convention(c) (retro_audio_sample_t?) -> Void
    let setAudioSampleBatch: @convention(c) (retro_audio_sample_batch_t?) -> Void
    let setInputPoll: @convention(c) (retro_input_poll_t?) -> Void
    let setInputState: @convention(c) (retro_input_state_t?) -> Void
    let initialize: @convention(c) () -> Void
    let deinitialize: @convention(c) () -> Void
    let apiVersion: @convention(c) () -> UInt32
    let getSystemInfo: @convention(c) (UnsafeMutablePointer<retro_system_info>?) -> Void
    let getSystemAVInfo: @convention(c) (UnsafeMutablePointer<retro_system_av_info>?) -> Void
    let setControllerPortDevice: @convention(c) (UInt32, UInt32) -> Void
    let reset: @convention(c) () -> Void
    let run: @convention(c) () -> Void
    let serializeSize: @convention(c) () -> Int
    let serialize: @convention(c) (UnsafeMutableRawPointer?, Int) -> Bool
    let unserialize: @convention(c) (UnsafeRawPointer?, Int) -> Bool
    let cheatReset: @convention(c) () -> Void
    let cheatSet: @convention(c) (UInt32, Bool, UnsafePointer<CChar>?) -> Void
    let loadGame: @convention(c) (UnsafePointer<retro_game_info>?) -> Bool
    let unloadGame: @convention(c) () -> Void
    let getRegion: @convention(c) () -> UInt32
    let getMemoryData: @convention(c) (UInt32) -> UnsafeMutableRawPointer?
    let getMemorySize: @convention(c) (UInt32) -> Int

    /// Resolves all symbols; `missing` names the first one the library lacks.
    init(handle: UnsafeMutableRawPointer) throws(CoreSymbolError) {
        func sym<T>(_ name: String, _: T.Type = T.self) throws(CoreSymbolError) -> T {
            guard let pointer = dlsym(handle, name) else { throw CoreSymbolError(missing: name) }
            return unsafeBitCast(pointer, to: T.self)
        }
        setEnvironment = try sym("retro_set_environment")
        setVideoRefresh = try sym("retro_set_video_refresh")
        setAudioSample = try sym("retro_set_audio_sample")
        setAudioSampleBatch = try sym("retro_set_audio_sample_batch")
        setInputPoll = try sym("retro_set_input_poll")
        setInputState = try sym("retro_set_input_state")
        initialize = try sym("retro_init")
        deinitialize = try sym("retro_deinit")
        apiVersion = try sym("retro_api_version")
        getSystemInfo = try sym("retro_get_system_info")
        getSystemAVInfo = try sym("retro_get_system_av_info")
        setControllerPortDevice = try sym("retro_set_controller_port_device")
        reset = try sym("retro_reset")
        run = try sym("retro_run")
        serializeSize = try sym("retro_serialize_size")
        serialize = try sym("retro_serialize")
        unserialize = try sym("retro_unserialize")
        cheatReset = try sym("retro_cheat_reset")
        cheatSet = try sym("retro_cheat_set")
        loadGame = try sym("retro_load_game")
        unloadGame = try sym("retro_unload_game")
        getRegion = try sym("retro_get_region")
        getMemoryData = try sym("retro_get_memory_data")
        getMemorySize = try sym("retro_get_memory_size")
    }
}

struct CoreSymbolError: Error {
    let missing: String
}
