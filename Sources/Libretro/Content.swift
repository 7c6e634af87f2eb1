import Foundation
import Support

/// A content file (ROM), with the hashes scripts and movies identify it by (computed once, on first
/// use). Its bytes are read only when a core takes content in memory (`need_fullpath` cores get the
/// path), at most `maxLoadedSize` of them, once.
public final class Content {
    /// Far above any cartridge ROM; disc images go to `need_fullpath` cores, which read them themselves.
    public static let maxLoadedSize = 512 << 20

    public let path: String
    /// The file's size in bytes.
    public let size: Int
    private var loaded: [UInt8]?

    public var fileName: String { FilePath.fileName(of: path) }
    /// The name without folder or extension, used for save files (`game.srm`).
    public var baseName: String { (fileName as NSString).deletingPathExtension }
    public var fileExtension: String { (path as NSString).pathExtension.lowercased() }

    public init(path: String) throws(RetroError) {
        let size: Int
        do { size = try BoundedFile.size(path) } catch {
            throw .contentUnreadable(path: path, reason: error.reason)
        }
        guard size > 0 else { throw .contentEmpty(path: path) }
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.size = size
    }

    /// The file's bytes, read on first use; refused above `maxLoadedSize`.
    public func bytes() throws(RetroError) -> [UInt8] {
        if let loaded { return loaded }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: Self.maxLoadedSize) } catch {
            let why = error.kind == .tooLarge ? " (too large for a core that takes its content in memory)" : ""
            throw .contentUnreadable(path: path, reason: error.reason + why)
        }
        guard !bytes.isEmpty else { throw .contentEmpty(path: path) }
        loaded = bytes
        return bytes
    }

    public private(set) lazy var crc32: String = hash { Hashing.crc32($0) }
    public private(set) lazy var sha1: String = hash { Hashing.sha1($0) }

    /// Hashes the loaded bytes in place, or the file as a memory map (no copy, any size).
    func hash(_ function: (UnsafeRawBufferPointer) -> String) -> String {
        if let loaded { return loaded.withUnsafeBytes(function) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else { return "" }
        defer { munmap(map, size) }
        return function(UnsafeRawBufferPointer(start: map, count: size))
    }
}
