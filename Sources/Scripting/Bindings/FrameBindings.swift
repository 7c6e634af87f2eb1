import CLua
import Emulation
import Libretro
import LuaRuntime

/// `gui` functions that read what is on screen: the core's last frame, for bots and test-ROM runners.
extension Bindings {
    static let frameFunctions: [LuaFunction] = [
        LuaFunction(
            "getpixel", "x: integer, y: integer", returns: "integer?, integer|string, integer?",
            doc:
                """
                The colour of the core's last frame at (x, y) as `r, g, b` (0…255; what the core drew, without \
                scripts' drawing); `nil, message` before the core has drawn a frame. Coordinates outside the \
                frame are an error.
                """
        ) { run($0, $1, emuFrameGetpixel) },
        LuaFunction(
            "frame", "format?: string, overlay?: boolean",
            returns: "string|image|nil, integer|string, integer?, string?",
            doc:
                """
                The core's last frame, rows top to bottom with no padding: `pixels, width, height`. `format`: \
                `"rgba"` (default; 4 bytes a pixel, alpha 255), `"rgb"` (3 bytes), `"native"` (the core's own \
                pixel format, also returned 4th: `XRGB8888` as little-endian 32-bit words, `RGB565` or `0RGB1555` \
                as little-endian 16-bit ones) or `"image"` (an image object for `gui.image`). `overlay`: include \
                what scripts drew on the `emu` surface (not with `"native"`). `nil, message` before the first frame.
                """
        ) { run($0, $1, emuFrameFrame) },
        LuaFunction(
            "new_image", "width: integer, height: integer, pixels: string", returns: "image?, string?",
            doc:
                """
                An image object from pixels: `width × height × 4` bytes of RGBA, rows top to bottom (as \
                `gui.frame("rgba")` returns them), for `gui.image` — a frame a script built or changed itself.
                """
        ) { run($0, $1, emuFrameNewImage) },
    ]

    /// Pushes a new image object holding `image`, counted against the script's memory cap; past the cap
    /// pushes nothing and returns why.
    static func pushImage(_ call: LuaCall, _ script: Script, _ image: RGBAImage) -> String? {
        do throws(LuaCallError) { try script.hold(image.rgba.count, for: "the image's pixels") } catch {
            return error.message
        }
        pushNewHandle(image, call, script, in: \.images, imageMetatable)
        return nil
    }

    // MARK: - The functions

    private static func emuFrameGetpixel(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let x = try call.integer(1, "x"), y = try call.integer(2, "y")
        guard let frame = script.emulator.currentFrame() else {
            return call.failure("the core has not drawn a frame yet")
        }
        guard (0..<frame.width).contains(x) else {
            throw call.badArgument(1, "x", "outside the frame (0…\(frame.width - 1))")
        }
        guard (0..<frame.height).contains(y) else {
            throw call.badArgument(2, "y", "outside the frame (0…\(frame.height - 1))")
        }
        let colour = frame.rgb(x: x, y: y)
        call.push(Int(colour >> 16))
        call.push(Int((colour >> 8) & 0xFF))
        call.push(Int(colour & 0xFF))
        return 3
    }

    private static func emuFrameFrame(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let format = try call.optionalString(1, "format") ?? "rgba"
        guard ["rgba", "rgb", "native", "image"].contains(format) else {
            throw call.badArgument(1, "format", "\"rgba\", \"rgb\", \"native\" or \"image\" expected")
        }
        let overlay = try call.optionalBoolean(2, "overlay") ?? false
        if format == "native" {
            guard !overlay else { throw call.badArgument(2, "overlay", "not with the \"native\" format") }
            guard let frame = script.emulator.currentFrame() else {
                return call.failure("the core has not drawn a frame yet")
            }
            frame.pixels.withUnsafeBytes { call.push(bytes: $0) }
            call.push(frame.width)
            call.push(frame.height)
            call.push(frame.format.description)
            return 4
        }
        let picture = script.emulator.picture(withOverlay: overlay)
        guard let picture else { return call.failure("the core has not drawn a frame yet") }
        switch format {
        case "image":
            if let refusal = pushImage(call, script, picture) {
                return call.failure(refusal)
            }
        case "rgb": VideoFrame.rgb(fromRGBA: picture.rgba).withUnsafeBytes { call.push(bytes: $0) }
        default: picture.rgba.withUnsafeBytes { call.push(bytes: $0) }
        }
        call.push(picture.width)
        call.push(picture.height)
        return 3
    }

    private static func emuFrameNewImage(_ call: LuaCall, _ script: Script) throws -> Int32 {
        let width = try call.integer(1, "width"), height = try call.integer(2, "height")
        guard (1...8192).contains(width) else { throw call.badArgument(1, "width", "1…8192 expected") }
        guard (1...8192).contains(height) else { throw call.badArgument(2, "height", "1…8192 expected") }
        let pixels = try call.bytes(3, "pixels")
        guard pixels.count == width * height * 4 else {
            throw call.badArgument(
                3, "pixels", "\(width * height * 4) bytes (width × height × 4) expected, got \(pixels.count)")
        }
        if let refusal = pushImage(call, script, RGBAImage(rgba: Array(pixels), width: width, height: height)) {
            return call.failure(refusal)
        }
        return 1
    }
}
