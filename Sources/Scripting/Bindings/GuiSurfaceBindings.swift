import CLuaShim
import Emulation
import Libretro
import LuaRuntime
import Media

/// `gui`'s surfaces, the window around them and screenshots (the drawing is in GuiBindings).
extension Bindings {
    /// Surfaces, the window and screenshots.
    static let guiSurfaces: [LuaFunction] = [
        LuaFunction("clear", "surface?: string", doc: "Erases a surface (`\"emu\"` by default) now.") {
            run($0, $1, guiClear)
        },
        LuaFunction(
            "surface_size", "surface?: string", returns: "integer, integer",
            doc: """
                The width and height of a surface. The `hud`'s width stops at a tool's side panel \
                (`gui.side_panel`), so what is aligned to its right stays beside the game; the panel's room \
                lies right of it.
                """
        ) { run($0, $1, guiSurfaceSize) },
        LuaFunction(
            "text_scale", "surface?: string", returns: "integer",
            doc: """
                The text scale that reads well on a surface (`"hud"` by default): its width over 320 or its \
                height over 240, whichever is smaller, rounded down, 1 to 8 (a 256×224 game in a 3× window: 2; \
                6×: 4; headless: 1).
                """
        ) { run($0, $1, guiTextScale) },
        LuaFunction(
            "side_panel", "width?: integer", returns: "integer",
            doc:
                """
                Gets, or sets, the width in hud pixels kept at the window's right for a tool's panel (the TAS \
                editor's piano roll): the window widens by that much where the desktop has room and the game \
                is drawn in the rest (fullscreen: the game makes room); 0 gives it back. Headless, the hud is \
                that much wider than the frame. `gui.surface_size("hud")` then gives the width left of the \
                panel, where the panel begins. The room goes with the script that asked for it: when that script \
                fails or is unloaded, it is given back. Returns the width in effect (0…4096).
                """
        ) { run($0, $1, guiSidePanel) },
        LuaFunction(
            "fullscreen", "on?: boolean", returns: "boolean",
            doc:
                """
                Gets, or asks the window to switch, fullscreen (applied before the next frame is shown; no \
                effect headless). Returns the state in effect.
                """
        ) { run($0, $1, guiFullscreen) },
        LuaFunction(
            "padding", "left?: integer, top?: integer, right?: integer, bottom?: integer",
            returns: "integer, integer, integer, integer",
            doc:
                """
                Gets, or sets, room around the game picture in frame pixels (0…4096 a side; BizHawk's game \
                extra padding): a window grows by it at the game's scale, the `emu` surface covers it with its \
                origin at the padded top-left (the game's top-left pixel is then at `left, top`), and \
                `gui.screenshot(path, {padding = true})` keeps it; other pictures are the game alone. The \
                padding is the script's: it goes when the script fails or unloads. Returns the padding in effect.
                """
        ) { run($0, $1, guiPadding) },
        LuaFunction(
            "screenshot", "path: string, options?: table", returns: "boolean?, string?",
            doc:
                """
                Writes the current frame with the `emu` surface drawn so far as a PNG (not the `hud`); with \
                option `padding = true`, the padded picture (`gui.padding`) as the window shows it. Returns \
                `true`, or `nil, message`.
                """
        ) { run($0, $1, guiScreenshot) },
    ]

    private static func guiClear(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        try canvas(call, try call.optionalString(1, "surface") ?? "emu", argument: 1, host: host).clear()
        return 0
    }

    private static func guiSurfaceSize(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        let name = try call.optionalString(1, "surface") ?? "emu"
        let canvas = try canvas(call, name, argument: 1, host: host, drawing: false)
        call.push(name == "hud" ? host.hudWidthBesidePanel : canvas.width)
        call.push(canvas.height)
        return 2
    }

    private static func guiTextScale(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        let name = try call.optionalString(1, "surface") ?? "hud"
        let canvas = try canvas(call, name, argument: 1, host: host, drawing: false)
        let width = name == "hud" ? host.hudWidthBesidePanel : canvas.width
        return call.returning(Canvas.readableTextScale(width: width, height: canvas.height))
    }

    private static func guiSidePanel(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        if let width = try call.optionalInteger(1, "width") {
            guard (0...4096).contains(width) else { throw call.badArgument(1, "width", "must be 0…4096") }
            host.sidePanelWidth = width
            host.sidePanelOwner = script
            host.resizeCanvases()
        }
        return call.returning(host.sidePanel)
    }

    private static func guiFullscreen(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        if let on = try call.optionalBoolean(1, "on") { host.screen.fullscreenRequest = on }
        return call.returning(host.screen.fullscreenRequest ?? host.screen.isFullscreen)
    }

    private static func guiPadding(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let host = script.host
        if !call.isNoneOrNil(1) {
            var sides: [Int] = []
            for (index, name) in ["left", "top", "right", "bottom"].enumerated() {
                let value = try call.optionalInteger(Int32(index + 1), name) ?? 0
                guard (0...ScreenPadding.maximum).contains(value) else {
                    throw call.badArgument(Int32(index + 1), name, "must be 0…\(ScreenPadding.maximum), got \(value)")
                }
                sides.append(value)
            }
            host.screen.padding = ScreenPadding(left: sides[0], top: sides[1], right: sides[2], bottom: sides[3])
            host.paddingOwner = script
            host.resizeCanvases()
        }
        let p = host.screen.padding
        for side in [p.left, p.top, p.right, p.bottom] { call.push(side) }
        return 4
    }

    private static func guiScreenshot(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        var padded = false
        if try call.optionalTable(2, "options") {
            padded = try call.booleanField(2, "padding", argument: 2) ?? false
        }
        try script.checkFileAccess(path, write: true)
        let picture = padded ? script.host.emulator.picture(withOverlay: false).map(script.host.screen.padded) : nil
        guard let frame = padded ? picture : script.host.frameWithOverlay() else {
            return call.failure("no frame yet: run a frame first")
        }
        do { try PNGFile.write(rgba: frame.rgba, width: frame.width, height: frame.height, to: path) } catch {
            return call.failure("\(error)")
        }
        return call.returning(true)
    }
}
