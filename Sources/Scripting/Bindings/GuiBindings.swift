import Emulation
import CLua
import CLuaShim
import Foundation
import Libretro
import LuaRuntime
import Media

extension Bindings {
    private static let namedColors: [String: UInt32] = [
        "white": 0xFFFF_FFFF, "black": 0xFF00_0000, "red": 0xFFFF_0000, "green": 0xFF00_FF00, "blue": 0xFF00_00FF,
        "yellow": 0xFFFF_FF00, "cyan": 0xFF00_FFFF, "magenta": 0xFFFF_00FF, "gray": 0xFF80_8080, "grey": 0xFF80_8080,
        "orange": 0xFFFF_A500, "purple": 0xFF80_0080, "transparent": 0x0000_0000,
    ]

    /// A colour from `0xAARRGGBB`, `"#rrggbb"`, `"#rrggbbaa"` or a name; the problem when it is none.
    static func color(_ call: LuaCall, at index: Int32) -> Result<UInt32, ColorProblem> {
        if call.type(index) == LUA_TNUMBER {
            var isInteger: Int32 = 0
            let value = lua_tointegerx(call.L, index, &isInteger)
            guard isInteger != 0, (0...0xFFFF_FFFF).contains(value) else {
                return .failure(ColorProblem("a colour number must be an integer 0xAARRGGBB"))
            }
            return .success(UInt32(value))
        }
        guard call.type(index) == LUA_TSTRING, let raw = lua_tolstring(call.L, index, nil) else {
            return .failure(
                ColorProblem("colour expected (0xAARRGGBB, \"#rrggbb[aa]\" or a name), got \(call.typeName(index))"))
        }
        let text = String(cString: raw).lowercased()
        if let named = namedColors[text] { return .success(named) }
        if text.hasPrefix("#"), text.count == 7 || text.count == 9, let value = UInt32(text.dropFirst(), radix: 16) {
            return .success(text.count == 7 ? 0xFF00_0000 | value : (value >> 8) | (value & 0xFF) << 24)
        }
        return .failure(
            ColorProblem(
                """
                '\(text)' is not a colour (0xAARRGGBB, \"#rrggbb[aa]\" or one of \
                \(namedColors.keys.sorted().joined(separator: ", ")))
                """
            ))
    }

    struct ColorProblem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The drawing options in the trailing table at `index`: `color`, `fill`/`bg`, `surface`.
    private struct DrawOptions {
        var color: UInt32
        var fill: UInt32?
        var canvas: Canvas
        /// `gui.text`'s whole-number scale (1…Canvas.maximumTextScale).
        var scale = 1
    }

    private static func options(
        _ call: LuaCall, _ index: Int32, host: ScriptHost, defaultColor: UInt32 = 0xFFFF_FFFF,
        fillKey: String = "fill"
    ) throws(LuaCallError) -> DrawOptions {
        var options = DrawOptions(
            color: defaultColor, fill: nil, canvas: try canvas(call, "emu", argument: index, host: host))
        guard try call.optionalTable(index, "options") else { return options }
        for key in ["color", fillKey] {
            let type = call.pushField(index, key)
            defer { lh_pop(call.L, 1) }
            if type == LUA_TNIL { continue }
            let value: UInt32
            switch color(call, at: -1) {
            case .success(let parsed): value = parsed
            case .failure(let problem): throw call.badField(index, key, problem.text)
            }
            if key == "color" { options.color = value } else { options.fill = value }
        }
        if let surface = try call.stringField(index, "surface", argument: index) {
            options.canvas = try canvas(call, surface, argument: index, host: host)
        }
        if let scale = try call.integerField(index, "scale", argument: index) {
            guard (1...Canvas.maximumTextScale).contains(scale) else {
                throw call.badField(index, "scale", "must be 1…\(Canvas.maximumTextScale), got \(scale)")
            }
            options.scale = scale
        }
        return options
    }

    /// A surface to draw on (`drawing`) or to measure. While paused, `draw` callbacks redraw the hud
    /// only: what they draw on `emu` goes to a scratch canvas, so the last frame's overlay stays as it was.
    static func canvas(
        _ call: LuaCall, _ name: String, argument: Int32, host: ScriptHost, drawing: Bool = true
    ) throws(LuaCallError) -> Canvas {
        switch name {
        case "emu": return drawing && host.isRedrawingPaused ? host.screen.pausedScratch : host.screen.emuCanvas
        case "hud": return host.screen.hudCanvas
        default: throw call.badArgument(argument, "surface", "\"emu\" or \"hud\" expected, got \"\(name)\"")
        }
    }

    static let maximumPolylinePoints = 65536

    /// The flat `{x1, y1, x2, y2, …}` list at `index` as points; odd lengths and non-integers are errors.
    private static func polylinePoints(_ call: LuaCall, _ index: Int32) throws(LuaCallError) -> [(x: Int, y: Int)] {
        try call.table(index, "points")
        let count = Int(lua_rawlen(call.L, index))
        guard count % 2 == 0 else {
            throw call.badArgument(index, "points", "needs an even number of coordinates (x, y pairs), got \(count)")
        }
        guard count / 2 <= maximumPolylinePoints else {
            throw call.badArgument(index, "points", "at most \(maximumPolylinePoints) points, got \(count / 2)")
        }
        var points: [(x: Int, y: Int)] = []
        points.reserveCapacity(count / 2)
        var pair = (0, 0)
        for item in 0..<count {
            lua_rawgeti(call.L, index, lua_Integer(item + 1))
            var isInteger: Int32 = 0
            let value = lua_tointegerx(call.L, -1, &isInteger)
            let isNumber = lua_type(call.L, -1) == LUA_TNUMBER
            lh_pop(call.L, 1)
            guard isInteger != 0, isNumber else {
                throw call.badArgument(index, "points", "item \(item + 1) must be an integer")
            }
            if item % 2 == 0 { pair.0 = Int(value) } else { pair.1 = Int(value); points.append(pair) }
        }
        return points
    }

    static let gui = LuaModule(
        "gui",
        doc: """
            Drawing over the game. Two surfaces: `emu`, at the core's resolution, composited into the picture (and \
            into screenshots, also headless), and `hud`, at window resolution, shown in a window but never in \
            screenshots. Surfaces are cleared at the start of every frame: draw from a `draw` callback or after \
            `emu.frameadvance()`. Options go in a trailing table: `color` (default white), `fill`/`bg`, `surface` \
            (`"emu"` by default). Colours: `0xAARRGGBB`, `"#rrggbb"`, `"#rrggbbaa"` or a name (`white`, `black`, \
            `red`, `green`, `blue`, `yellow`, `cyan`, `magenta`, `gray`, `orange`, `purple`, `transparent`).
            """,
        functions: guiDrawing + guiImages + frameFunctions + guiSurfaces)

    /// Text and shapes on a surface.
    private static let guiDrawing: [LuaFunction] = [
        LuaFunction(
            "text", "x: integer, y: integer, text: string, options?: table", returns: "integer, integer",
            doc:
                """
                Draws text in the built-in 6×8 bitmap font (`\\n` starts a line); options `color`, `bg`, \
                `surface`, `scale` (1…16: each font pixel drawn as a square of that side; `gui.text_scale()` \
                suits the window). Returns the text's width and height in pixels.
                """
        ) { run($0, $1, guiText) },
        LuaFunction(
            "text_size", "text: string, scale?: integer", returns: "integer, integer",
            doc: "The width and height `gui.text` would draw (at `scale`, default 1)."
        ) { run($0, $1, guiTextSize) },
        LuaFunction("pixel", "x: integer, y: integer, options?: table", doc: "Sets one pixel (option `color`).") {
            run($0, $1, guiPixel)
        },
        LuaFunction(
            "polyline", "points: table, options?: table",
            doc:
                """
                Draws lines joining consecutive points, given flat as `{x1, y1, x2, y2, …}` (integers, at most \
                \(maximumPolylinePoints) points) — a graph of a value over time in one call; option `color`.
                """
        ) { run($0, $1, guiPolyline) },
        LuaFunction(
            "line", "x1: integer, y1: integer, x2: integer, y2: integer, options?: table",
            doc: "Draws a line, both ends included."
        ) { run($0, $1, guiLine) },
        LuaFunction(
            "rect", "x: integer, y: integer, width: integer, height: integer, options?: table",
            doc: "Draws a rectangle: outline in `color`, inside filled with `fill` when given."
        ) { run($0, $1, guiRect) },
        LuaFunction(
            "circle", "x: integer, y: integer, radius: integer, options?: table",
            doc: "Draws a circle around (x, y): outline in `color`, filled with `fill` when given."
        ) { run($0, $1, guiCircle) },
    ]

    /// Images drawn and loaded.
    private static let guiImages: [LuaFunction] = [
        LuaFunction(
            "image", "x: integer, y: integer, image: string|image, options?: table",
            doc:
                """
                Draws a PNG (by path, read once and cached) or an image from `gui.load_image`, blending its \
                alpha; option `surface`.
                """
        ) { run($0, $1, guiImage) },
        LuaFunction(
            "load_image", "path: string", returns: "image?, string?",
            doc:
                """
                Reads a PNG into an image object (`image:width()`, `image:height()`); `nil, message` if it \
                cannot be read.
                """
        ) { run($0, $1, guiLoadImage) },
    ]

    // MARK: - The functions

    private static func guiText(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        let text = try call.string(3, "text")
        let options = try options(call, 4, host: script.host, fillKey: "bg")
        let size = options.canvas.text(
            x: x, y: y, text, color: options.color, background: options.fill, scale: options.scale)
        call.push(size.width)
        call.push(size.height)
        return 2
    }

    private static func guiTextSize(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let text = try call.string(1, "text")
        let scale = try call.optionalInteger(2, "scale") ?? 1
        guard (1...Canvas.maximumTextScale).contains(scale) else {
            throw call.badArgument(2, "scale", "must be 1…\(Canvas.maximumTextScale), got \(scale)")
        }
        let size = Canvas.textSize(text, scale: scale)
        call.push(size.width)
        call.push(size.height)
        return 2
    }

    private static func guiPixel(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        let options = try options(call, 3, host: script.host)
        options.canvas.pixel(x: x, y: y, color: options.color)
        return 0
    }

    private static func guiPolyline(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let points = try polylinePoints(call, 1)
        let options = try options(call, 2, host: script.host)
        options.canvas.polyline(points, color: options.color)
        return 0
    }

    private static func guiLine(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x1 = try call.integer(1, "x1"), y1 = try call.integer(2, "y1")
        let x2 = try call.integer(3, "x2"), y2 = try call.integer(4, "y2")
        let options = try options(call, 5, host: script.host)
        options.canvas.line(x1: x1, y1: y1, x2: x2, y2: y2, color: options.color)
        return 0
    }

    private static func guiRect(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        let width = try call.integer(3, "width"), height = try call.integer(4, "height")
        let options = try options(call, 5, host: script.host)
        options.canvas.rect(
            x: x, y: y, width: width, height: height, color: options.color, fill: options.fill)
        return 0
    }

    private static func guiCircle(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        let radius = try call.integer(3, "radius")
        guard radius >= 0 else { throw call.badArgument(3, "radius", "must be 0 or more") }
        let options = try options(call, 4, host: script.host)
        options.canvas.circle(cx: x, cy: y, radius: radius, color: options.color, fill: options.fill)
        return 0
    }

    private static func guiImage(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        let image = try image(call, 3, script: script)
        let options = try options(call, 4, host: script.host)
        options.canvas.image(x: x, y: y, rgba: image.rgba, width: image.width, height: image.height)
        return 0
    }

    private static func guiLoadImage(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let path = try call.string(1, "path")
        try script.checkFileAccess(path, write: false)
        let loaded: RGBAImage
        do { loaded = try PNGFile.read(path) } catch { return call.failure("\(error)") }
        if let refusal = pushImage(call, script, loaded) {
            return call.failure("\(path): \(refusal)")
        }
        return 1
    }
}
