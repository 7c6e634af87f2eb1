import CZip
import Foundation

extension ZipArchive {
    // MARK: Writing

    /// Fixed member timestamps (1980-01-01, the earliest zip date) so equal movies export to equal files.
    private static let memberTime: time_t = 315_532_800

    /// A deflated zip archive of `members`, built in memory. `level` 0 is zlib's default; 1 is fastest.
    public static func write(_ members: [(name: String, bytes: [UInt8])], level: UInt32 = 0) throws(Failure) -> [UInt8]
    {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let target = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw Failure(.other, "cannot create a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        zip_source_keep(target)  // the archive releases its reference on close; the bytes are read after
        defer { zip_source_free(target) }
        guard let archive = zip_open_from_source(target, ZIP_TRUNCATE, &error) else {
            throw Failure(.other, "cannot create a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        func failure(_ what: String) -> Failure {
            let message = Failure(
                .other,
                "cannot write the zip archive (\(what)): \(String(cString: zip_strerror(archive)))")
            zip_discard(archive)
            return message
        }
        for member in members {
            guard let copy = malloc(max(1, member.bytes.count)) else {
                zip_discard(archive); throw Failure(.other, "out of memory")
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

        guard zip_source_open(target) == 0 else { throw Failure(.other, "cannot read back the zip archive") }
        defer { zip_source_close(target) }
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_source_stat(target, &stat) == 0, stat.valid & UInt64(ZIP_STAT_SIZE) != 0 else {
            throw Failure(.other, "cannot read back the zip archive")
        }
        var out = [UInt8](repeating: 0, count: Int(stat.size))
        var filled = 0
        while filled < out.count {
            let got = out.withUnsafeMutableBytes {
                zip_source_read(target, $0.baseAddress! + filled, UInt64($0.count - filled))
            }
            guard got > 0 else { throw Failure(.other, "cannot read back the zip archive") }
            filled += Int(got)
        }
        return out
    }
}
