import CZip
import Foundation

/// A zip archive opened read-only through libzip. Movie files come from strangers, so every member
/// read is bounded: by its declared size and, since headers can lie, by the bytes actually inflated.
final class ZipArchive {
    /// More members than any movie format writes; a larger count is garbage or an attack.
    static let maxMembers = 1000

    /// The file name used in error messages.
    let name: String
    private let handle: OpaquePointer

    /// Opens an archive held in memory (libzip keeps, and finally frees, its own copy of the bytes).
    init(bytes: [UInt8], name: String) throws(MovieError) {
        self.name = name
        guard !bytes.isEmpty else { throw MovieError("\(name): empty file, not a zip archive") }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let copy = malloc(max(1, bytes.count)) else { throw MovieError("\(name): out of memory") }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: raw.count) }
        }
        guard let source = zip_source_buffer_create(copy, UInt64(bytes.count), 1, &error) else {
            free(copy)
            throw MovieError("\(name): cannot open the zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            throw Self.openError(
                zip_error_code_zip(&error), detail: String(cString: zip_error_strerror(&error)), name: name)
        }
        handle = try Self.checked(archive, name: name)
    }

    /// Opens an archive file (libzip reads members from it on demand).
    init(path: String) throws(MovieError) {
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

    private static func checked(_ archive: OpaquePointer, name: String) throws(MovieError) -> OpaquePointer {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0, count <= maxMembers else {
            zip_discard(archive)
            throw MovieError("\(name): the zip archive has \(count) members (at most \(maxMembers) are accepted)")
        }
        return archive
    }

    private static func openError(_ code: Int32, detail: String, name: String) -> MovieError {
        switch code {
        case ZIP_ER_NOENT: MovieError("\(name): no such movie")
        case ZIP_ER_NOZIP: MovieError("\(name): not a zip archive")
        case ZIP_ER_INCONS: MovieError("\(name): corrupt zip archive (\(detail))")
        case ZIP_ER_OPEN, ZIP_ER_READ: MovieError("\(name): cannot read the movie (\(detail))")
        default: MovieError("\(name): cannot open the zip archive: \(detail)")
        }
    }

    /// The member's bytes (names match case-insensitively), or nil when there is no such member.
    /// Throws when it holds more than `limit` bytes, reading at most `limit + 1` of them.
    func read(_ member: String, limit: Int) throws(MovieError) -> [UInt8]? {
        let index = zip_name_locate(handle, member, ZIP_FL_NOCASE)
        guard index >= 0 else { return nil }
        let tooLarge = MovieError("\(name): member '\(member)' is larger than \(Self.describe(limit))")
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(handle, UInt64(index), 0, &stat) == 0 else {
            throw MovieError("\(name): cannot read member '\(member)': \(String(cString: zip_strerror(handle)))")
        }
        let declared = stat.valid & UInt64(ZIP_STAT_SIZE) != 0 ? stat.size : 0
        guard declared <= UInt64(limit) else { throw tooLarge }
        guard let file = zip_fopen_index(handle, UInt64(index), 0) else {
            throw MovieError("\(name): cannot read member '\(member)': \(String(cString: zip_strerror(handle)))")
        }
        defer { zip_fclose(file) }
        var out: [UInt8] = []
        out.reserveCapacity(Int(declared) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let want = min(chunk.count, limit + 1 - out.count)
            let got = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, UInt64(want)) }
            if got < 0 {
                throw MovieError("\(name): member '\(member)' is corrupt: \(String(cString: zip_file_strerror(file)))")
            }
            if got == 0 { break }
            out.append(contentsOf: chunk[0..<Int(got)])
            if out.count > limit { throw tooLarge }
        }
        return out
    }

    /// Like `read`, but a missing member is an error.
    func require(_ member: String, limit: Int) throws(MovieError) -> [UInt8] {
        guard let bytes = try read(member, limit: limit) else {
            throw MovieError("\(name): missing member '\(member)'")
        }
        return bytes
    }

    static func describe(_ size: Int) -> String {
        if size >= 1 << 20, size % (1 << 20) == 0 { return "\(size >> 20) MB" }
        if size >= 1 << 10, size % (1 << 10) == 0 { return "\(size >> 10) KB" }
        return "\(size) bytes"
    }

    // MARK: Writing

    /// Fixed member timestamps (1980-01-01, the earliest zip date) so equal movies export to equal files.
    private static let memberTime: time_t = 315_532_800

    /// A deflated zip archive of `members`, built in memory. `level` 0 is zlib's default; 1 is fastest.
    static func write(_ members: [(name: String, bytes: [UInt8])], level: UInt32 = 0) throws(MovieError) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let target = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw MovieError("cannot create a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        zip_source_keep(target)  // the archive releases its reference on close; the bytes are read after
        defer { zip_source_free(target) }
        guard let archive = zip_open_from_source(target, ZIP_TRUNCATE, &error) else {
            throw MovieError("cannot create a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        func failure(_ what: String) -> MovieError {
            let message = MovieError(
                "cannot write the zip archive (\(what)): \(String(cString: zip_strerror(archive)))")
            zip_discard(archive)
            return message
        }
        for member in members {
            guard let copy = malloc(max(1, member.bytes.count)) else {
                zip_discard(archive); throw MovieError("out of memory")
            }
            member.bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: raw.count) }
            }
            guard let source = zip_source_buffer(archive, copy, UInt64(member.bytes.count), 1) else {
                free(copy)
                throw failure(member.name)
            }
            let index = zip_file_add(archive, member.name, source, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE)
            guard index >= 0 else {
                zip_source_free(source)
                throw failure(member.name)
            }
            guard zip_set_file_compression(archive, UInt64(index), ZIP_CM_DEFLATE, level) == 0,
                zip_file_set_mtime(archive, UInt64(index), memberTime, 0) == 0
            else { throw failure(member.name) }
        }
        guard zip_close(archive) == 0 else { throw failure("closing") }

        guard zip_source_open(target) == 0 else { throw MovieError("cannot read back the zip archive") }
        defer { zip_source_close(target) }
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_source_stat(target, &stat) == 0, stat.valid & UInt64(ZIP_STAT_SIZE) != 0 else {
            throw MovieError("cannot read back the zip archive")
        }
        var out = [UInt8](repeating: 0, count: Int(stat.size))
        var filled = 0
        while filled < out.count {
            let got = out.withUnsafeMutableBytes {
                zip_source_read(target, $0.baseAddress! + filled, UInt64($0.count - filled))
            }
            guard got > 0 else { throw MovieError("cannot read back the zip archive") }
            filled += Int(got)
        }
        return out
    }
}
