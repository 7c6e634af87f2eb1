import Foundation
import Libretro
import Support

/// Named branches of a movie (as in BizHawk's TAStudio): a savestate carrying the movie's input up
/// to its frame, plus a thumbnail, kept in `MOVIE.branches/` next to the movie file.
extension MovieEngine {
    public struct Branch: Sendable {
        public let name: String
        public let frame: Int
        public let statePath: String
        public let thumbnailPath: String?
    }

    private func branchFolder() throws(MovieError) -> String {
        guard let path else {
            throw MovieError("the movie has no file yet (save it first): branches are kept beside it")
        }
        return path + ".branches"
    }

    private func branchPaths(_ name: String) throws(MovieError) -> (state: String, thumbnail: String) {
        guard !name.isEmpty, name.count <= 100,
            name.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) || "-_. ".unicodeScalars.contains($0)
            }),
            !name.hasPrefix(".")
        else {
            throw MovieError("bad branch name '\(name)' (letters, digits, space, '-', '_' and '.', at most 100)")
        }
        let folder = try branchFolder()
        return (folder + "/" + name + ".state", folder + "/" + name + ".png")
    }

    /// Saves the current state and input as branch `name` (replacing a branch of that name).
    public func saveBranch(_ name: String) throws(MovieError) {
        guard isActive else { throw MovieError("no movie is active") }
        let paths = try branchPaths(name)
        let bytes: [UInt8]
        do { bytes = try emulator.encodeState() } catch { throw MovieError("\(error)") }
        do { try DurableFile.write(bytes, to: paths.state) } catch { throw MovieError("\(error)") }
        if let write = emulator.writeImage, let picture = emulator.picture() { try? write(picture, paths.thumbnail) }
    }

    /// Loads branch `name`: its state, and its input replaces the movie's (in either mode).
    public func loadBranch(_ name: String) throws(MovieError) {
        guard let movie, isActive else { throw MovieError("no movie is active") }
        let paths = try branchPaths(name)
        guard let data = FileManager.default.contents(atPath: paths.state) else {
            throw MovieError("no branch named '\(name)'")
        }
        let bytes = [UInt8](data)
        let block: MovieStateBlock? = bytes.withUnsafeBytes { raw in
            guard let container = try? StateContainer.decode(raw), let range = container.movieBlock else { return nil }
            return MovieStateBlock.decode(UnsafeRawBufferPointer(rebasing: raw[range]))
        }
        guard let block else { throw MovieError("branch '\(name)' is corrupt (no movie input in its state)") }
        guard block.guid == movie.guid else { throw MovieError("branch '\(name)' belongs to another movie") }
        do {
            try emulator.restore(bytes, trusted: false, checkMovie: false)
        } catch {
            throw MovieError("branch '\(name)': \(error)")
        }
        adopt(block)
    }

    public func deleteBranch(_ name: String) throws(MovieError) {
        let paths = try branchPaths(name)
        guard FileManager.default.fileExists(atPath: paths.state) else { throw MovieError("no branch named '\(name)'") }
        try? FileManager.default.removeItem(atPath: paths.thumbnail)
        do { try FileManager.default.removeItem(atPath: paths.state) } catch {
            throw MovieError("cannot delete branch '\(name)': \(error.localizedDescription)")
        }
    }

    /// The movie's branches, by name.
    public func branches() throws(MovieError) -> [Branch] {
        let folder = try branchFolder()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".state") }.sorted().compactMap { file in
            let name = String(file.dropLast(".state".count))
            let statePath = folder + "/" + file
            guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
            let frame: Int? = data.withUnsafeBytes { raw in
                guard let container = try? StateContainer.decode(raw), let range = container.movieBlock else {
                    return nil
                }
                return MovieStateBlock.decode(UnsafeRawBufferPointer(rebasing: raw[range]))?.frame
            }
            let thumbnail = folder + "/" + name + ".png"
            return Branch(
                name: name, frame: frame ?? -1, statePath: statePath,
                thumbnailPath: FileManager.default.fileExists(atPath: thumbnail) ? thumbnail : nil)
        }
    }
}
