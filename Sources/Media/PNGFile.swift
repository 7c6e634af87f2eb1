import CPNG
import Foundation
import Libretro
import Support

/// PNG files through Debian's libpng (its simplified API, which reports errors without longjmp).
public enum PNGFile {
    /// PNG_FORMAT_RGBA (colour + alpha flags), a macro expression Swift does not import.
    private static let formatRGBA = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    /// Writes 8-bit RGBA pixels durably (temporary file, fsync, rename).
    public static func write(rgba: [UInt8], width: Int, height: Int, to path: String) throws(RetroError) {
        let encoded: [UInt8]
        do {
            encoded = try encode(RGBAImage(rgba: rgba, width: width, height: height))
        } catch {
            throw .fileWrite(path: path, reason: error.reason)
        }
        do { try DurableFile.write(encoded, to: path) } catch { throw RetroError(error) }
    }

    /// A picture as the bytes of a PNG file. `fast`: libpng's fast compression (a larger file, made several times
    /// sooner), for pictures sent rather than kept (the control socket's frames, an agent's screenshots).
    public static func encode(_ picture: RGBAImage, fast: Bool = false) throws(PNGEncodingError) -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(picture.width)
        image.height = UInt32(picture.height)
        image.format = formatRGBA
        if fast { image.flags |= UInt32(PNG_IMAGE_FLAG_FAST) }
        let stride = Int32(picture.width * 4)
        // Encoded once into a buffer of libpng's upper bound (PNG_IMAGE_PNG_SIZE_MAX, a macro Swift does not
        // import): asking for the size first would compress the picture twice.
        let raw = picture.height &* (picture.width &* 4 &+ 1)
        var size = png_alloc_size_t(raw &+ raw / 8 &+ raw / 64 &+ 12 &* (raw / 8192 &+ 1) &+ 256)
        for _ in 0..<2 {
            var encoded = [UInt8](repeating: 0, count: Int(size))
            let capacity = size
            if png_image_write_to_memory(&image, &encoded, &size, 0, picture.rgba, stride, nil) != 0 {
                return Array(encoded.prefix(Int(size)))
            }
            guard size > capacity else { break }  // not a buffer too small: an error
            image.warning_or_error = 0
        }
        throw PNGEncodingError(reason: "PNG encoding failed: \(message(image))")
    }

    public static func write(_ image: RGBAImage, to path: String) throws(RetroError) {
        try write(rgba: image.rgba, width: image.width, height: image.height, to: path)
    }

    /// Reads any PNG as 8-bit RGBA.
    public static func read(_ path: String) throws(RetroError) -> RGBAImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            throw .contentUnreadable(path: path, reason: "not a readable PNG: \(message(image))")
        }
        image.format = formatRGBA
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, width * height <= 64 << 20 else {
            png_image_free(&image)
            throw .contentUnreadable(path: path, reason: "PNG size \(width)x\(height) out of range")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        guard png_image_finish_read(&image, nil, &pixels, Int32(width * 4), nil) != 0 else {
            throw .contentUnreadable(path: path, reason: "corrupt PNG: \(message(image))")
        }
        return RGBAImage(rgba: pixels, width: width, height: height)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Why libpng could not encode a picture.
public struct PNGEncodingError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
