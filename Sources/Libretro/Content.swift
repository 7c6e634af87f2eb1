import Foundation
import Support

/// A content file (ROM), with the hashes scripts and movies identify it by (computed once, on first
/// use). Its bytes are read only when a core takes content in memory (`need_fullpath` cores get the
/// path), at most `maxLoadedSize` of them, once.
///
/// A `.zip` is opened and the member a core takes stands for it (`prepare`): its name, size and hashes
/// are the content's, in memory for cores that take bytes, else copied to a private temporary file
/// (removed when the content goes, or at exit). An `.m3u` playlist stands for its first disc; the rest
/// are `extraDiscs`, added through the core's disk control. A core that takes `.zip` or `.m3u` itself
/// gets the file as it is.
public final class Content {
    /// Far above any cartridge ROM; disc images go to `need_fullpath` cores, which read them themselves.
    public static let maxLoadedSize = 512 << 20

    /// The file the user gave.
    public let path: String
    /// The size in bytes of what the core gets (the member, for a zip).
    public private(set) var size: Int
    /// The archive member in use, when the content is a zip a core does not take itself.
    public private(set) var member: String?
    /// The playlist, when the content is an `.m3u`.
    public let playlist: ContentPlaylist?
    /// Discs after the first of a playlist the core does not read itself, for its disk control.
    public private(set) var extraDiscs: [ContentPlaylist.Entry] = []
    /// The path handed to the core: the file, a playlist's first disc, an extracted member, or for
    /// cores that take bytes `archive.zip#member`.
    public private(set) var corePath: String
    private let archive: ContentArchive?
    /// The file whose bytes are the content's (the extracted member, the first disc), when not in memory.
    private var dataPath: String
    private var extractedFolder: String?
    private var loaded: [UInt8]?
    private var prepared = false
    private var hashes: [String: String] = [:]

    public var fileName: String {
        if let member { return FilePath.fileName(of: member) }
        if let first = playlist?.entries.first, !prepared { return FilePath.fileName(of: first.path) }
        return FilePath.fileName(of: corePath.hasPrefix(path + "#") ? path : corePath)
    }
    /// The name without folder or extension, used for save files (`game.srm`).
    public var baseName: String { (fileName as NSString).deletingPathExtension }
    public var fileExtension: String { ContentArchive.extensionOf(fileName) }
    /// True for a zip (whether or not a member was taken out of it).
    public var isArchive: Bool { archive != nil }

    public init(path: String) throws(RetroError) {
        let size: Int
        do { size = try BoundedFile.size(path) } catch {
            throw .contentUnreadable(path: path, reason: error.reason)
        }
        guard size > 0 else { throw .contentEmpty(path: path) }
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.path = path
        self.size = size
        corePath = path
        dataPath = path
        archive = ContentArchive.isArchive(path) ? try ContentArchive(path: path) : nil
        playlist = ContentPlaylist.isPlaylist(path) ? try ContentPlaylist(path: path) : nil
    }

    deinit {
        if let extractedFolder { ExtractedContent.remove(extractedFolder) }
    }

    /// The extensions a core must take for this content: a zip's members' (in archive order), a
    /// playlist's first disc's, else the file's own.
    public var candidateExtensions: [String] {
        if let archive { return archive.memberExtensions }
        if let first = playlist?.entries.first { return [ContentArchive.extensionOf(first.path)] }
        return [ContentArchive.extensionOf(path)]
    }

    /// A zip's file members with safe names, in archive order (empty for other content).
    public var archiveMembers: [String] {
        archive?.members.filter { ContentArchive.isSafe($0.name) }.map(\.name) ?? []
    }

    /// Up to `count` bytes from the start of the content's data, for recognising its header.
    func head(_ count: Int) -> [UInt8] {
        if let loaded { return Array(loaded.prefix(count)) }
        let fd = open(dataPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
        return Array(bytes.prefix(max(got, 0)))
    }

    /// The start of a zip member (members above 8 MB are not read for this) and its size.
    func head(_ count: Int, member name: String) -> ([UInt8], Int) {
        guard let archive, let member = archive.members.first(where: { $0.name == name }), member.size <= 8 << 20,
            let bytes = try? archive.bytes(of: member)
        else { return ([], 0) }
        return (Array(bytes.prefix(count)), bytes.count)
    }

    /// Readies the content for a core that takes `extensions`: picks a zip's member (extracting it for
    /// a `need_fullpath` core) or a playlist's first disc, unless the core takes the zip or playlist
    /// itself. Once per content; later calls do nothing.
    public func prepare(
        extensions: [String], needFullpath: Bool, blockExtract: Bool = false, core: String
    )
        throws(RetroError)
    {
        guard !prepared else { return }
        if let archive, !blockExtract, !extensions.contains(where: ContentArchive.archiveExtensions.contains) {
            let chosen = try archive.choose(for: extensions, core: core)
            if needFullpath {
                let folder = try ExtractedContent.makeFolder()
                extractedFolder = folder
                let target = folder + "/" + FilePath.fileName(of: chosen.name.replacingOccurrences(of: "\\", with: "/"))
                try archive.extract(chosen, to: target)
                dataPath = target
                corePath = target
                size = (try? BoundedFile.size(target)) ?? 0
            } else {
                let bytes = try archive.bytes(of: chosen)
                guard !bytes.isEmpty else { throw .contentEmpty(path: path + "#" + chosen.name) }
                loaded = bytes
                size = bytes.count
                corePath = path + "#" + chosen.name
            }
            member = chosen.name
        } else if let playlist, !extensions.contains("m3u"), let first = playlist.entries.first {
            corePath = first.path
            dataPath = first.path
            size = (try? BoundedFile.size(first.path)) ?? 0
            extraDiscs = Array(playlist.entries.dropFirst())
        }
        prepared = true
        hashes = [:]
    }

    /// The content's bytes, read on first use; refused above `maxLoadedSize`.
    public func bytes() throws(RetroError) -> [UInt8] {
        if let loaded { return loaded }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(dataPath, limit: Self.maxLoadedSize) } catch {
            let why = error.kind == .tooLarge ? " (too large for a core that takes its content in memory)" : ""
            throw .contentUnreadable(path: dataPath, reason: error.reason + why)
        }
        guard !bytes.isEmpty else { throw .contentEmpty(path: dataPath) }
        loaded = bytes
        return bytes
    }

    /// Of what the core gets: a zip's member, not the archive (a zip not yet prepared for a core is
    /// hashed as its largest usable member).
    public var crc32: String { hash("crc32") { Hashing.crc32($0) } }
    public var sha1: String { hash("sha1") { Hashing.sha1($0) } }

    /// Hashes the loaded bytes in place, or the file as a memory map (no copy, any size).
    func hash(_ name: String, _ function: (UnsafeRawBufferPointer) -> String) -> String {
        if let known = hashes[name] { return known }
        if archive != nil && !prepared,
            let largest = archive?.usable(for: archive?.memberExtensions ?? []).max(by: {
                $0.size < $1.size
            }), let bytes = try? archive?.bytes(of: largest)
        {
            return bytes.withUnsafeBytes(function)
        }
        let value = loaded.map { $0.withUnsafeBytes(function) } ?? mappedHash(function)
        hashes[name] = value
        return value
    }

    private func mappedHash(_ function: (UnsafeRawBufferPointer) -> String) -> String {
        let fd = open(dataPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0, let count = Int(exactly: info.st_size) else { return "" }
        guard let map = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else { return "" }
        defer { munmap(map, count) }
        return function(UnsafeRawBufferPointer(start: map, count: count))
    }
}
