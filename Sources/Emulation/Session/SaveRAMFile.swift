import Foundation
import Libretro
import Support

/// Battery-backed save RAM on disk: loaded after the game, written durably once a second of emulated
/// time when the game changed it (`saveIfChanged`), and on close.
///
/// Named `GAME.KEY.srm`, KEY being the first 16 hex digits of the content's identity (its SHA-1 without
/// headers): a renamed ROM finds its save by the key, and two ROMs that share a name never share a save.
/// A save of the old name-only layout (`GAME.srm`) is moved to the key once, never over a keyed save.
///
/// A file of the wrong size is never loaded and never overwritten: it is set aside under a new name
/// before the first write, so whatever it holds stays recoverable.
final class SaveRAMFile {
    private(set) var path: String
    /// A save of the old layout to take over at the first load (when its size is the core's).
    private var legacy: String?
    private var rejected = false
    /// The bytes on disk as this session last wrote or loaded them: what `saveIfChanged` compares with.
    private var lastWritten: [UInt8]?
    private let warn: (String) -> Void
    /// What is worth saying but is no problem (the one-time move of an old-layout save); silent under --quiet.
    private let note: (String) -> Void

    init(
        folder: String, game: String, identity: String, warn: @escaping (String) -> Void,
        note: @escaping (String) -> Void
    ) {
        self.warn = warn
        self.note = note
        let legacyPath = folder + "/" + game + ".srm"
        guard identity.count >= 16 else {
            path = legacyPath  // Unreadable content: no key to go by.
            return
        }
        let key = String(identity.prefix(16))
        path = folder + "/" + Self.fileName(game: game, key: key)
        if FileManager.default.fileExists(atPath: path) { return }
        if let renamed = Self.existing(key: key, in: folder) {
            path = renamed  // The same game under another file name.
        } else if FileManager.default.fileExists(atPath: legacyPath) {
            legacy = legacyPath
        }
    }

    /// `GAME.KEY.srm`, the game's name shortened (at a character) so the whole fits NAME_MAX.
    static func fileName(game: String, key: String) -> String {
        let suffix = "." + key + ".srm"
        return FilePath.prefix(game, utf8Bytes: DurableFile.nameMax - suffix.utf8.count) + suffix
    }

    private static func existing(key: String, in folder: String) -> String? {
        let suffix = "." + key + ".srm"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().first.map { folder + "/" + $0 }
    }

    func load(into core: Core) {
        guard let region = core.memoryRegion(.saveRAM) else { return }
        if let legacy { migrate(legacy, size: region.size) }
        guard let data = FileManager.default.contents(atPath: path) else { return }
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

    /// Copies the old-layout save to the keyed name (durably), then renames the old file out of the way
    /// so another game of that name does not take it too. Nothing is deleted or overwritten.
    private func migrate(_ legacy: String, size: Int) {
        self.legacy = nil
        guard let data = FileManager.default.contents(atPath: legacy), data.count == size else { return }
        do { try DurableFile.write(data, to: path) } catch {
            warn("\(legacy): cannot copy it to \(path) (\(error)); left as it is")
            return
        }
        var moved = legacy + ".migrated"
        var n = 1
        while FileManager.default.fileExists(atPath: moved) {
            n += 1
            moved = legacy + ".migrated\(n)"
        }
        _ = rename(legacy, moved)
        note(
            "save RAM \(FilePath.fileName(of: legacy)) now lives in \(path), keyed by the game's content; the old file is kept as \(moved)"
        )
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
