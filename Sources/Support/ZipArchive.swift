import CZip
import Foundation

/// A zip archive opened read-only through libzip: movies (`.bk2`) and zipped content come from
/// strangers, so every member read is bounded by its declared size and, since headers can lie, by the
/// bytes actually inflated.
public final class ZipArchive {
    /// More members than a movie or a romset holds; a larger count is garbage or an attack.
    public static let maxMembers = 1000

    /// Why an archive or a member cannot be read; `description` names the archive (and the member).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable { case missing, notZip, corrupt, unreadable, tooLarge, other }
        public let kind: Kind
        public let description: String
        public init(_ kind: Kind, _ description: String) {
            self.kind = kind
            self.description = description
        }
    }

    /// One entry of the central directory, as the archive declares it (sizes can lie).
    public struct Member: Sendable, Equatable {
        public let index: UInt64
        public let name: String
        /// The uncompressed size the archive declares.
        public let size: UInt64
        public var isFolder: Bool { name.hasSuffix("/") }
    }

    /// The file name used in error messages.
    public let name: String
    private let handle: OpaquePointer

    /// Opens an archive held in memory (libzip keeps, and finally frees, its own copy of the bytes).
    public init(bytes: [UInt8], name: String) throws(Failure) {
        self.name = name
        guard !bytes.isEmpty else { throw Failure(.notZip, "\(name): empty file, not a zip archive") }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let copy = malloc(max(1, bytes.count)) else { throw Failure(.other, "\(name): out of memory") }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: raw.count) }
        }
        guard let source = zip_source_buffer_create(copy, UInt64(bytes.count), 1, &error) else {
            free(copy)
            throw Failure(
                .other, "\(name): cannot open the zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            throw Self.openError(
                zip_error_code_zip(&error), detail: String(cString: zip_error_strerror(&error)), name: name)
        }
        handle = try Self.checked(archive, name: name)
    }

    /// Opens an archive file (libzip reads members from it on demand).
    public init(path: String) throws(Failure) {
        name = path
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            throw Self.openError(code, detail: String(cString: zip_error_strerror(&error)), name: path)
        }
        handle = try Self.checked(archive, name: path)
    }

    deinit { zip_discard(handle) }

    private static func checked(_ archive: OpaquePointer, name: String) throws(Failure) -> OpaquePointer {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0, count <= maxMembers else {
            zip_discard(archive)
            throw Failure(
                .tooLarge, "\(name): the zip archive has \(count) members (at most \(maxMembers) are accepted)")
        }
        return archive
    }

    private static func openError(_ code: Int32, detail: String, name: String) -> Failure {
        switch code {
        case ZIP_ER_NOENT: Failure(.missing, "\(name): no such file")
        case ZIP_ER_NOZIP: Failure(.notZip, "\(name): not a zip archive")
        case ZIP_ER_INCONS: Failure(.corrupt, "\(name): corrupt zip archive (\(detail))")
        case ZIP_ER_OPEN, ZIP_ER_READ: Failure(.unreadable, "\(name): cannot read the archive (\(detail))")
        default: Failure(.other, "\(name): cannot open the zip archive: \(detail)")
        }
    }

    /// Every member the central directory lists, in archive order.
    public func members() -> [Member] {
        let count = max(0, zip_get_num_entries(handle, 0))
        return (0..<UInt64(count)).compactMap { index in
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(handle, index, 0, &stat) == 0, let name = stat.name else { return nil }
            let size = stat.valid & UInt64(ZIP_STAT_SIZE) != 0 ? stat.size : 0
            return Member(index: index, name: String(cString: name), size: size)
        }
    }

    /// The member's bytes (names match case-insensitively), or nil when there is no such member.
    /// Throws when it holds more than `limit` bytes, reading at most `limit + 1` of them.
    public func read(_ member: String, limit: Int) throws(Failure) -> [UInt8]? {
        let index = zip_name_locate(handle, member, ZIP_FL_NOCASE)
        guard index >= 0 else { return nil }
        return try read(index: UInt64(index), limit: limit)
    }

    /// Like `read`, but a missing member is an error.
    public func require(_ member: String, limit: Int) throws(Failure) -> [UInt8] {
        guard let bytes = try read(member, limit: limit) else {
            throw Failure(.missing, "\(name): missing member '\(member)'")
        }
        return bytes
    }

    /// The bytes of the member at `index`, at most `limit` of them.
    public func read(index: UInt64, limit: Int) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        try stream(index: index, limit: limit, reserve: { out.reserveCapacity($0) }) { chunk in
            out.append(contentsOf: chunk)
        }
        return out
    }

    /// Writes the member at `index` to the open file `fd`, at most `limit` bytes; returns how many.
    @discardableResult
    public func extract(index: UInt64, to fd: Int32, limit: Int) throws(Failure) -> Int {
        var written = 0
        var failure: Int32 = 0
        try stream(index: index, limit: limit, reserve: { _ in }) { chunk in
            var offset = 0
            while offset < chunk.count, failure == 0 {
                let got = Glibc.write(fd, chunk.baseAddress! + offset, chunk.count - offset)
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { failure = got < 0 ? errno : EIO } else { offset += got }
            }
            written += offset
        }
        if failure != 0 {
            throw Failure(.other, "\(name): cannot extract member \(index): \(String(cString: strerror(failure)))")
        }
        return written
    }

    /// Inflates a member in 64 KiB chunks, refusing a declared or actual size above `limit`.
    private func stream(
        index: UInt64, limit: Int, reserve: (Int) -> Void, _ sink: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(Failure) {
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(handle, index, 0, &stat) == 0 else {
            throw Failure(.missing, "\(name): cannot read member \(index): \(String(cString: zip_strerror(handle)))")
        }
        let member = stat.name.map { String(cString: $0) } ?? "#\(index)"
        let tooLarge = Failure(.tooLarge, "\(name): member '\(member)' is larger than \(Self.describe(limit))")
        let declared = stat.valid & UInt64(ZIP_STAT_SIZE) != 0 ? stat.size : 0
        guard declared <= UInt64(max(limit, 0)) else { throw tooLarge }
        guard let file = zip_fopen_index(handle, index, 0) else {
            throw Failure(.corrupt, "\(name): cannot read member '\(member)': \(String(cString: zip_strerror(handle)))")
        }
        defer { zip_fclose(file) }
        reserve(Int(declared) + 1)
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let want = min(chunk.count, limit + 1 - total)
            let got = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, UInt64(want)) }
            if got < 0 {
                throw Failure(
                    .corrupt, "\(name): member '\(member)' is corrupt: \(String(cString: zip_file_strerror(file)))")
            }
            if got == 0 { break }
            total += Int(got)
            if total > limit { throw tooLarge }
            chunk.withUnsafeBufferPointer { sink(UnsafeBufferPointer(rebasing: $0[0..<Int(got)])) }
        }
    }

    public static func describe(_ size: Int) -> String { BoundedFile.describe(size) }
}
