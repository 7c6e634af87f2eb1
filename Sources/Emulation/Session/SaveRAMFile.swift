import Foundation
import Libretro
import Support

/// Battery-backed save RAM on disk: loaded after the game, written durably once a second of emulated
/// time when the game changed it (`saveIfChanged`), and on close.
///
/// A file of the wrong size is never loaded and never overwritten: it is set aside under a new name
/// before the first write, so whatever it holds stays recoverable.
final class SaveRAMFile {
    let path: String
    private var rejected = false
    /// The bytes on disk as this session last wrote or loaded them: what `saveIfChanged` compares with.
    private var lastWritten: [UInt8]?
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

    /// Notes the save RAM as the game starts with it (loaded or not), so only the game's changes are written.
    func remember(_ core: Core) {
        guard let region = core.memoryRegion(.saveRAM) else { return }
        lastWritten = Array(UnsafeRawBufferPointer(start: region.pointer, count: region.size))
    }

    /// Writes the save RAM when it differs from what was last written (one memcmp when it does not).
    func saveIfChanged(from core: Core) throws(RetroError) {
        guard let region = core.memoryRegion(.saveRAM) else { return }
        if let lastWritten, lastWritten.count == region.size,
            lastWritten.withUnsafeBytes({ memcmp($0.baseAddress!, region.pointer, region.size) }) == 0
        {
            return
        }
        try save(from: core)
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
        lastWritten = Array(UnsafeRawBufferPointer(start: region.pointer, count: region.size))
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
