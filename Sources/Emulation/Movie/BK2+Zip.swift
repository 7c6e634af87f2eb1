import Support

/// The zip reader (Support's, shared with zipped content) in movie words: its failures become `MovieError`s.
extension MovieError {
    init(_ failure: ZipArchive.Failure, path: String? = nil) {
        if failure.kind == .missing, let path {
            self.init("\(path): no such movie")
        } else {
            self.init(failure.description)
        }
    }
}

extension BK2 {
    static func archive(path: String) throws(MovieError) -> ZipArchive {
        do { return try ZipArchive(path: path) } catch { throw MovieError(error, path: path) }
    }

    static func archive(bytes: [UInt8], name: String) throws(MovieError) -> ZipArchive {
        do { return try ZipArchive(bytes: bytes, name: name) } catch { throw MovieError(error) }
    }

    static func zip(_ members: [(name: String, bytes: [UInt8])]) throws(MovieError) -> [UInt8] {
        do { return try ZipArchive.write(members) } catch { throw MovieError(error) }
    }
}

extension ZipArchive {
    func movieMember(_ member: String, limit: Int) throws(MovieError) -> [UInt8]? {
        do { return try read(member, limit: limit) } catch { throw MovieError(error) }
    }

    func requiredMovieMember(_ member: String, limit: Int) throws(MovieError) -> [UInt8] {
        do { return try require(member, limit: limit) } catch { throw MovieError(error) }
    }
}
