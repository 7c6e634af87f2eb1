import Foundation
import Support

/// A content file (ROM) read into memory, with the hashes scripts and movies identify it by
/// (computed once, on first use).
public final class Content {
    public let path: String
    public let bytes: [UInt8]

    public var fileName: String { (path as NSString).lastPathComponent }
    /// The name without folder or extension, used for save files (`game.srm`).
    public var baseName: String { (fileName as NSString).deletingPathExtension }
    public var fileExtension: String { (path as NSString).pathExtension.lowercased() }

    public init(path: String) throws(RetroError) {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .contentUnreadable(path: path, reason: "no such file")
        }
        if isDirectory.boolValue { throw .contentUnreadable(path: path, reason: "is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .contentUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard !data.isEmpty else { throw .contentEmpty(path: path) }
        self.path = url.standardizedFileURL.path
        self.bytes = [UInt8](data)
    }

    public private(set) lazy var crc32: String = Hashing.crc32(bytes)
    public private(set) lazy var sha1: String = Hashing.sha1(bytes)
}
