import CLua
import CLuaShim
import Foundation
import Emulation
import Libretro
import LuaRuntime
import Support

extension Bindings {
    /// `emu` functions about the running core and content: info and core options.
    static let coreInfoFunctions: [LuaFunction] = [
        LuaFunction(
            "info", returns: "table",
            doc:
                """
                The running core and content: `{core=, core_version=, core_path=, system=, extensions=, fps=, \
                sample_rate=, width=, height=, max_width=, max_height=, aspect=, pixel_format=, crop=, window=, \
                rom={path=, name=, size=, sha1=, crc32=}}`. `width`/`height` are the last frame's; `crop = {top=, \
                bottom=, left=, right=}` is what that picture leaves out of the console's (NES cores hide the \
                overscan: nestopia shows lines 8–231 of 240, so a sprite at the game's y = 40 is at row 32; zeros \
                elsewhere); `window` says whether a window shows (and paces) the run — headless runs are unpaced \
                (known from the first frame on).
                """
        ) { run($0, $1, emuCoreInfo) },
        LuaFunction(
            "option", "key: string, value?: string, options?: table", returns: "string?, string?",
            doc:
                """
                Gets a core option's value, or sets it (the core sees the change at its next check). Returns \
                the value in effect, or `nil, message` for an unknown key or a value the core does not offer. \
                `{save = true}` also keeps the value for the next start in the option file the start reads: \
                `options/CORE/GAME.opt` in the config folder when that file sets the key, else \
                `options/CORE.opt` (written durably; the other lines are kept).
                """
        ) { run($0, $1, emuCoreOption) },
        LuaFunction(
            "options", returns: "table",
            doc:
                """
                Every core option: a list of `{key=, description=, values={…}, default=, value=, category=}` \
                (`category`: the key of the core's options v2 category, e.g. "video"; absent where it declares none).
                """
        ) { run($0, $1, emuCoreOptions) },
    ]

    // MARK: - The functions

    private static func emuCoreInfo(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let session = script.emulator.session
        let core = session.core
        call.newTable(fields: 16)
        call.set("core", session.coreName)
        call.set("core_name", core.systemInfo.libraryName)
        call.set("core_version", core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces))
        call.set("core_path", core.path)
        call.set("extensions", core.systemInfo.validExtensions.joined(separator: "|"))
        if let av = core.avInfo {
            call.set("fps", av.fps)
            call.set("sample_rate", av.sampleRate)
            call.set("max_width", av.maxWidth)
            call.set("max_height", av.maxHeight)
            call.set("aspect", av.aspectRatio)
            let width = core.frameWidth > 0 ? core.frameWidth : av.baseWidth
            let height = core.frameHeight > 0 ? core.frameHeight : av.baseHeight
            call.set("width", width)
            call.set("height", height)
            let system = script.emulator.memory.system
            let crop = system?.crop(width: width, height: height) ?? (top: 0, bottom: 0, left: 0, right: 0)
            call.newTable(fields: 4)
            call.set("top", crop.top)
            call.set("bottom", crop.bottom)
            call.set("left", crop.left)
            call.set("right", crop.right)
            lua_setfield(call.L, -2, "crop")
        }
        call.set("pixel_format", core.pixelFormat.description)
        call.set("window", script.host.screen.windowSize != nil)
        if let system = session.systemName { call.set("system", system) }
        if let content = session.content {
            call.newTable(fields: 5)
            call.set("path", content.path)
            call.set("name", content.baseName)
            call.set("size", content.size)
            call.set("sha1", content.sha1)
            call.set("crc32", content.crc32)
            lua_setfield(call.L, -2, "rom")
        }
        return 1
    }

    private static func emuCoreOption(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let session = script.emulator.session
        let options = session.core.options
        let key = try call.string(1, "key")
        let value = try call.optionalString(2, "value")
        let save =
            try call.optionalTable(3, "options")
            ? try call.booleanField(3, "save", argument: 3) ?? false : false
        guard options.definitions.contains(where: { $0.key == key }) else {
            return call.failure("the core has no option '\(key)'")
        }
        if let value, let problem = options.set(key, value) { return call.failure(problem) }
        let now = options.value(key) ?? ""
        if save {
            let files = session.paths.optionFiles(core: session.coreName, game: session.content?.baseName)
            let game = files.count > 1 ? (try? String(contentsOfFile: files[1], encoding: .utf8)) : nil
            let useGame = game.map { OptionFile.sets($0, key) } ?? false
            let path = useGame ? files[1] : files[0]
            try script.checkFileAccess(path, write: true)
            let old = useGame ? game ?? "" : (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            do {
                try DurableFile.write(Array(OptionFile.setting(old, key, now).utf8), to: path)
            } catch { return call.failure("emu.option: \(error)") }
        }
        return call.returning(now)
    }

    private static func emuCoreOptions(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let options = script.emulator.session.core.options
        call.pushList(options.definitions) { definition in
            call.newTable(fields: 6)
            call.set("key", definition.key)
            if !definition.category.isEmpty { call.set("category", definition.category) }
            call.set("description", definition.description)
            call.set("default", definition.defaultValue)
            call.set("value", options.value(definition.key) ?? definition.defaultValue)
            call.pushList(definition.values) { call.push($0) }
            lua_setfield(call.L, -2, "values")
        }
        return 1
    }
}

/// RetroArch's option files (`key = "value"` lines), as `emu.option(key, value, {save = true})` rewrites them.
enum OptionFile {
    /// The key of an option line, nil for comments and other lines.
    static func key(of line: Substring) -> Substring? {
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return nil }
        let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
        return key.isEmpty ? nil : Substring(key)
    }

    static func sets(_ text: String, _ key: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { Self.key(of: $0) == Substring(key) }
    }

    /// `text` with `key`'s line set to `value` (the first one; later ones dropped), or the line added.
    static func setting(_ text: String, _ key: String, _ value: String) -> String {
        let line = "\(key) = \"\(value)\""
        var lines: [String] = []
        var found = false
        for existing in text.split(whereSeparator: \.isNewline) {
            if Self.key(of: existing) == Substring(key) {
                if !found { lines.append(line) }
                found = true
            } else {
                lines.append(String(existing))
            }
        }
        if !found { lines.append(line) }
        return lines.joined(separator: "\n") + "\n"
    }
}
