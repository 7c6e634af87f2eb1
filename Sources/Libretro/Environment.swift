import CLibretro
import CRetroShim

extension Core {
    /// Answers `retro_environment_t`. Unknown or unimplemented commands get `false`, never a crash.
    /// GET_VARIABLE_UPDATE arrives every frame, so the common path stays a couple of compares.
    func environment(_ command: UInt32, _ data: UnsafeMutableRawPointer?) -> Bool {
        let cmd = Int32(bitPattern: command)
        if cmd == RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE {
            guard let data else { return false }
            data.assumingMemoryBound(to: Bool.self).pointee = options.changed
            options.changed = false
            return true
        }
        // Each group answers nil for a command it does not know; the first to know it answers.
        return videoCommand(cmd, data) ?? folderAndMessageCommand(cmd, data) ?? optionCommand(cmd, data)
            ?? inputCommand(cmd, data) ?? coreFeatureCommand(cmd, data)
            // Vulkan/D3D contexts, VFS, camera, sensors, rumble, MIDI…: not implemented, refused cleanly.
            ?? false
    }

    /// Video, timing and throttling.
    private func videoCommand(_ cmd: Int32, _ data: UnsafeMutableRawPointer?) -> Bool? {
        switch cmd {
        case RETRO_ENVIRONMENT_SET_PIXEL_FORMAT:
            guard let raw = data?.load(as: UInt32.self), let format = PixelFormat(rawValue: raw) else { return false }
            if format != pixelFormat { forgetFrame() }
            pixelFormat = format
            return true
        case RETRO_ENVIRONMENT_SET_GEOMETRY:
            guard let data, avInfo != nil else { return false }
            avInfo!.apply(geometry: data.load(as: retro_game_geometry.self))
            forgetFrame()
            return true
        case RETRO_ENVIRONMENT_SET_SYSTEM_AV_INFO:
            guard let data else { return false }
            avInfo = AVInfo(data.load(as: retro_system_av_info.self))
            forgetFrame()
            return true
        case RETRO_ENVIRONMENT_SET_ROTATION:
            guard let data else { return false }
            rotation = Int(data.load(as: UInt32.self) % 4) * 90
            return true
        case RETRO_ENVIRONMENT_GET_CAN_DUPE:
            return answer(data, true)
        case RETRO_ENVIRONMENT_GET_OVERSCAN:
            return answer(data, false)
        // These four with NULL data ask whether the call is supported (libretro.h): it is.
        case RETRO_ENVIRONMENT_GET_AUDIO_VIDEO_ENABLE:
            data?.storeBytes(of: Int32((videoEnabled ? 1 : 0) | (audioEnabled ? 2 : 0)), as: Int32.self)
            return true
        case RETRO_ENVIRONMENT_GET_TARGET_REFRESH_RATE:
            guard let data, let fps = avInfo?.fps else { return false }
            data.storeBytes(of: Float(fps), as: Float.self)
            return true
        case RETRO_ENVIRONMENT_GET_FASTFORWARDING:
            data?.storeBytes(of: throttleMode == UInt32(RETRO_THROTTLE_FAST_FORWARD), as: Bool.self)
            return true
        case RETRO_ENVIRONMENT_GET_THROTTLE_STATE:
            data?.storeBytes(
                of: retro_throttle_state(mode: throttleMode, rate: throttleRate), as: retro_throttle_state.self)
            return true
        default:
            return nil
        }
    }

    /// Folders, identity, logging and on-screen messages.
    private func folderAndMessageCommand(_ cmd: Int32, _ data: UnsafeMutableRawPointer?) -> Bool? {
        switch cmd {
        case RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY:
            return answer(data, string: directories.system)
        case RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY:
            return answer(data, string: directories.save)
        case RETRO_ENVIRONMENT_GET_CORE_ASSETS_DIRECTORY:
            return answer(data, string: directories.coreAssets)
        case RETRO_ENVIRONMENT_GET_LIBRETRO_PATH:
            return answer(data, string: path)
        case RETRO_ENVIRONMENT_GET_USERNAME:
            return answer(data, string: "retrolua")
        case RETRO_ENVIRONMENT_GET_LANGUAGE:
            return answer(data, UInt32(RETRO_LANGUAGE_ENGLISH.rawValue))
        case RETRO_ENVIRONMENT_GET_LOG_INTERFACE:
            return answer(data, retro_log_callback(log: rs_log_printf_pointer()))
        case RETRO_ENVIRONMENT_SET_MESSAGE:
            guard let message = data?.load(as: retro_message.self).msg else { return false }
            log(.info, String(cString: message))  // The owner's onLog decides where it shows.
            return true
        case RETRO_ENVIRONMENT_GET_MESSAGE_INTERFACE_VERSION:
            return answer(data, UInt32(1))
        case RETRO_ENVIRONMENT_SET_MESSAGE_EXT:
            guard let message = data?.load(as: retro_message_ext.self), let text = message.msg else { return false }
            let toLog = message.target == RETRO_MESSAGE_TARGET_LOG
            log((toLog ? LogLevel(rawValue: Int(message.level.rawValue)) : nil) ?? .info, String(cString: text))
            return true
        default:
            return nil
        }
    }

    /// Core options.
    private func optionCommand(_ cmd: Int32, _ data: UnsafeMutableRawPointer?) -> Bool? {
        switch cmd {
        case RETRO_ENVIRONMENT_GET_VARIABLE:
            guard let variable = data?.assumingMemoryBound(to: retro_variable.self), let key = variable.pointee.key
            else { return false }
            variable.pointee.value = options.answer(String(cString: key))
            return variable.pointee.value != nil
        case RETRO_ENVIRONMENT_SET_VARIABLES:
            guard let data else { return false }
            options.declareVariables(data.assumingMemoryBound(to: retro_variable.self))
            return true
        case RETRO_ENVIRONMENT_GET_CORE_OPTIONS_VERSION:
            return answer(data, UInt32(2))
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS:
            guard let data else { return false }
            options.declareV1(data.assumingMemoryBound(to: retro_core_option_definition.self))
            return true
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_INTL:
            guard let us = data?.load(as: retro_core_options_intl.self).us else { return false }
            options.declareV1(us)
            return true
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2:
            guard let data else { return false }
            options.declareV2(data.assumingMemoryBound(to: retro_core_options_v2.self))
            return true
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2_INTL:
            guard let us = data?.load(as: retro_core_options_v2_intl.self).us else { return false }
            options.declareV2(us)
            return true
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_DISPLAY, RETRO_ENVIRONMENT_SET_CORE_OPTIONS_UPDATE_DISPLAY_CALLBACK:
            return true  // Visibility only matters to a menu; accepting keeps cores on their normal path.
        case RETRO_ENVIRONMENT_SET_VARIABLE:
            guard let variable = data?.load(as: retro_variable.self), let key = variable.key, let value = variable.value
            else {
                return data == nil  // A NULL query asks whether the call is supported.
            }
            return options.set(String(cString: key), String(cString: value)) == nil
        default:
            return nil
        }
    }

    /// Input descriptors, controllers and the keyboard.
    private func inputCommand(_ cmd: Int32, _ data: UnsafeMutableRawPointer?) -> Bool? {
        switch cmd {
        case RETRO_ENVIRONMENT_GET_INPUT_BITMASKS:
            return true
        case RETRO_ENVIRONMENT_GET_INPUT_DEVICE_CAPABILITIES:
            let devices = [RETRO_DEVICE_JOYPAD, RETRO_DEVICE_ANALOG]
            return answer(data, devices.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) })
        case RETRO_ENVIRONMENT_GET_INPUT_MAX_USERS:
            return answer(data, UInt32(InputState.maxPorts))
        case RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS:
            guard let data else { return false }
            var item = data.assumingMemoryBound(to: retro_input_descriptor.self)
            var list: [InputDescriptor] = []
            // A list without its NULL end is cut off where it stops being readable, or at a sane length.
            while list.count < 1024, rs_is_readable(item, MemoryLayout<retro_input_descriptor>.stride) != 0,
                let description = item.pointee.description
            {
                list.append(
                    InputDescriptor(
                        port: Int(item.pointee.port), device: Int(item.pointee.device),
                        index: Int(item.pointee.index), id: Int(item.pointee.id),
                        description: String(cString: description)))
                item += 1
            }
            inputDescriptors = list
            return true
        case RETRO_ENVIRONMENT_SET_CONTROLLER_INFO:
            guard let data else { return false }
            var item = data.assumingMemoryBound(to: retro_controller_info.self)
            var ports: [[ControllerType]] = []
            while ports.count < InputState.maxPorts,
                rs_is_readable(item, MemoryLayout<retro_controller_info>.stride) != 0, let types = item.pointee.types
            {
                let count = min(Int(item.pointee.num_types), 256)
                guard rs_is_readable(types, count * MemoryLayout<retro_controller_description>.stride) != 0 else {
                    break
                }
                ports.append(
                    (0..<count).map {
                        ControllerType(description: types[$0].desc.map { String(cString: $0) } ?? "", id: types[$0].id)
                    })
                item += 1
            }
            controllerTypes = ports
            return true
        case RETRO_ENVIRONMENT_SET_KEYBOARD_CALLBACK:
            guard let data else { return false }
            keyboardCallback = data.load(as: retro_keyboard_callback.self).callback
            return true
        default:
            return nil
        }
    }

    /// Memory, states, disks, hardware rendering and the rest of the core's self-description.
    private func coreFeatureCommand(_ cmd: Int32, _ data: UnsafeMutableRawPointer?) -> Bool? {
        switch cmd {
        case RETRO_ENVIRONMENT_SET_MEMORY_MAPS:
            guard let map = data?.load(as: retro_memory_map.self), let descriptors = map.descriptors else {
                return false
            }
            memoryDescriptors = acceptMemoryMap(descriptors, count: Int(map.num_descriptors))
            return true
        case RETRO_ENVIRONMENT_SET_SERIALIZATION_QUIRKS:
            guard let data else { return false }
            serializationQuirks = data.load(as: UInt64.self)
            return true
        case RETRO_ENVIRONMENT_GET_SAVESTATE_CONTEXT:
            data?.storeBytes(of: Int32(RETRO_SAVESTATE_CONTEXT_NORMAL.rawValue), as: Int32.self)
            return true
        case RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME:
            supportsNoGame = data?.load(as: Bool.self) ?? false
            return true
        case RETRO_ENVIRONMENT_SET_SUPPORT_ACHIEVEMENTS:
            supportsAchievements = data?.load(as: Bool.self) ?? false
            return true
        case RETRO_ENVIRONMENT_SET_FRAME_TIME_CALLBACK:
            guard let data else { return false }
            frameTimeCallback = data.load(as: retro_frame_time_callback.self)
            return true
        case RETRO_ENVIRONMENT_GET_DISK_CONTROL_INTERFACE_VERSION:
            return answer(data, UInt32(1))
        case RETRO_ENVIRONMENT_SET_DISK_CONTROL_INTERFACE, RETRO_ENVIRONMENT_SET_DISK_CONTROL_EXT_INTERFACE:
            return acceptDiskControl(data, extended: cmd == RETRO_ENVIRONMENT_SET_DISK_CONTROL_EXT_INTERFACE)
        case RETRO_ENVIRONMENT_SET_HW_RENDER:
            return setHardwareRender(data)
        case RETRO_ENVIRONMENT_GET_PREFERRED_HW_RENDER:
            guard let data, hardwareRendererFactory != nil else { return false }
            data.storeBytes(of: UInt32(RETRO_HW_CONTEXT_OPENGL.rawValue), as: UInt32.self)
            return true
        case RETRO_ENVIRONMENT_SHUTDOWN:
            shutdownRequested = true
            return true
        case RETRO_ENVIRONMENT_SET_PERFORMANCE_LEVEL, RETRO_ENVIRONMENT_SET_SUBSYSTEM_INFO,
            RETRO_ENVIRONMENT_SET_MINIMUM_AUDIO_LATENCY, RETRO_ENVIRONMENT_SET_CONTENT_INFO_OVERRIDE:
            return true  // Hints this frontend has no use for; accepting them is harmless.
        default:
            return nil
        }
    }

    /// Stores `value` where the core asked for it; false when the core gave no pointer.
    private func answer<Value>(_ data: UnsafeMutableRawPointer?, _ value: Value) -> Bool {
        guard let data else { return false }
        data.storeBytes(of: value, as: Value.self)
        return true
    }

    private func answer(_ data: UnsafeMutableRawPointer?, string: String) -> Bool {
        guard let data else { return false }
        data.storeBytes(of: strings.keep(string), as: UnsafePointer<CChar>.self)
        return true
    }
}
