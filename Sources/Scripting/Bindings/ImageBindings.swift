import CLua
import Libretro
import LuaRuntime
import Media

extension Bindings {
    static let imageMetatable = LuaTypeName("retrolua.image")

    /// The image argument: a path (loaded once per script) or an image object.
    static func image(_ call: LuaCall, _ index: Int32, script: Script) throws(LuaCallError) -> RGBAImage {
        if let memory = luaL_testudata(call.L, index, imageMetatable.cString) {
            guard let image = script.images[memory.load(as: Int.self)] else { throw call.error("the image was freed") }
            return image
        }
        let path = try call.string(index, "image")
        if let cached = script.imageCache[path] { return cached }
        if let problem = script.fileAccessProblem(path, write: false) { throw call.error(problem) }
        let loaded: RGBAImage
        do { loaded = try PNGFile.read(path) } catch { throw call.error("\(error)") }
        let image = RGBAImage(rgba: loaded.rgba, width: loaded.width, height: loaded.height)
        try script.hold(loaded.rgba.count, as: "image " + path, for: "gui.image: the decoded image")
        script.imageCache[path] = image
        return image
    }

    /// The image object a method was called on.
    private static func selfImage(_ call: LuaCall, _ script: Script) throws(LuaCallError) -> RGBAImage {
        let memory = try call.userdata(1, imageMetatable, "self", expected: "image")
        guard let image = script.images[memory.load(as: Int.self)] else { throw call.error("the image was freed") }
        return image
    }

    /// Methods of image objects (the `retrolua.image` metatable).
    static let imageMethods: [LuaFunction] = [
        LuaFunction("width", returns: "integer", doc: "Width in pixels.") { run($0, $1, imageWidth) },
        LuaFunction("height", returns: "integer", doc: "Height in pixels.") { run($0, $1, imageHeight) },
        LuaFunction("__gc", doc: "Frees the pixels when the image object is collected.") {
            collectHandle($0, $1, imageMetatable) { script, id in
                if let image = script.images.removeValue(forKey: id) { script.lua.release(image.rgba.count) }
            }
        },
    ]

    private static func imageWidth(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try selfImage(call, script).width)
    }

    private static func imageHeight(_ call: LuaCall, _ script: Script) throws -> Int32 {
        return call.returning(try selfImage(call, script).height)
    }
}
