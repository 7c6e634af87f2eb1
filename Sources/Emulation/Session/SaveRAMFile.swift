import Foundation
import Libretro
import Support

/// Battery-backed save RAM on disk: loaded after the game, written durably on close.
///
/// A file of the wrong size is never loaded and never overwritten: it is set aside under a new name
/// before the first write, so whatever it holds stays recoverable.
final class SaveRAMFile {
    let path: String
    private var rejected = false
    private let warn: (String) -> Void

    init(folder: String, game: String, warn: @escaping (String) -> Void) {
        path = folder + "/" + game + ".srm"
        self.warn = warn
    }

    func load(into core: Core) {
        guard let region = core.memoryRegion(.saveRAM),
            let data = FileManager.default.contents(atPath: path)
        else { return }
        guard data.count == region.size else {
            rejected = true
            warn(
                """
                \(path): \(data.count) bytes, but the core's save RAM is \(region.size) bytes; not loaded, and \
                kept as \(asidePath()) when the game saves
                """
            )
            return
        }
        data.copyBytes(to: region.pointer.assumingMemoryBound(to: UInt8.self), count: region.size)
    }

    func save(from core: Core) throws(RetroError) {
        guard let region = core.memoryRegion(.saveRAM) else { return }
        if rejected {
            let aside = asidePath()
            if rename(path, aside) != 0 {
                throw .fileWrite(
                    path: path, reason: "cannot set the rejected save aside as \(aside); not overwriting it")
            }
            rejected = false
        }
        do { try DurableFile.write(UnsafeRawBufferPointer(start: region.pointer, count: region.size), to: path) } catch
        {
            throw RetroError(error)
        }
    }

    private func asidePath() -> String {
        var candidate = path + ".rejected"
        var n = 1
        while FileManager.default.fileExists(atPath: candidate) {
            n += 1
            candidate = path + ".rejected\(n)"
        }
        return candidate
    }
}
