import Foundation

/// The files Retrolua ships — the example ROMs and the examples (scripts, bots, scenarios, movies) — found by
/// name from any folder. The one rule every door uses for a file it is given to read (content, `--script`,
/// `--scenario`, movies): a path that exists, relative to the working folder, is used as it is; otherwise a
/// bare name (`dodge.nes`) is one of the bundled ROMs and `examples/…` one of the examples (`roms/…` and
/// `build/roms/…` name the ROMs too), looked for in an installed copy's `share/retrolua/` beside the binary
/// (scripts/install, the .deb, the wheel's `_bundle/`), then in the source tree the binary was built from.
/// A file found this way is an ordinary file: a script keeps the profile every script the person names has.
public enum BundledFiles {
    /// The kinds of shipped file a name can reach, each under its folder of a place.
    public enum Kind: String, CaseIterable, Sendable {
        case roms, examples
    }

    /// Where bundled files live: an installed copy, then the source tree.
    public struct Place: Sendable, Equatable {
        /// `installed` (share/retrolua beside the binary) or `source tree`.
        public let name: String
        /// The ROMs folder (`share/retrolua/roms`, `build/roms`), when there is one.
        public let roms: String?
        /// The examples folder (`share/retrolua/examples`, `examples`), when there is one.
        public let examples: String?

        public init(name: String, roms: String?, examples: String?) {
            self.name = name
            self.roms = roms
            self.examples = examples
        }

        public func folder(_ kind: Kind) -> String? { kind == .roms ? roms : examples }
    }

    /// The places looked in, in order; a place with neither folder is left out.
    public static func places(executable: String = HostPaths.executablePath()) -> [Place] {
        let installed = Place(
            name: "installed", roms: HostPaths.installedFile("roms", executable: executable),
            examples: HostPaths.installedFile("examples", executable: executable))
        let tree = Place(
            name: "source tree", roms: HostPaths.projectFile("build/roms", executable: executable),
            examples: HostPaths.projectFile("examples", executable: executable))
        return [installed, tree].filter { $0.roms != nil || $0.examples != nil }
    }

    /// The first folder of `kind` among `places`, for `retrolua paths`.
    public static func folder(_ kind: Kind, places: [Place] = places()) -> String? {
        places.lazy.compactMap { $0.folder(kind) }.first
    }

    /// A name no place holds: the name and every path looked at, in order.
    public struct NotFound: Error, CustomStringConvertible, Sendable {
        public let name: String
        public let looked: [String]
        public var description: String { message("file") }

        /// `dodge2.nes: no such content (looked at: …)` for `what` = "content".
        public func message(_ what: String) -> String {
            "\(name): no such \(what) (looked at: \(looked.joined(separator: ", ")))"
        }
    }

    /// What `name` means among the bundled files: its kind and its path inside that kind's folder; nil for a
    /// name that can only be a path of the person's own (absolute, `./…`, `~…`, with `..`, another folder).
    public static func bundledPart(of name: String) -> (kind: Kind, relative: String)? {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasPrefix("~"), !name.utf8.contains(0) else { return nil }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        // Every part a plain name: no `.`, `..` or empty part, so the file stays inside its folder.
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        if parts.count == 1 { return (.roms, name) }
        for (prefix, kind) in [("build/roms/", Kind.roms), ("roms/", .roms), ("examples/", .examples)]
        where name.hasPrefix(prefix) {
            return (kind, String(name.dropFirst(prefix.count)))
        }
        return nil
    }

    /// `name` as a file to read: `name` itself when it exists (or can only be the person's own path),
    /// else the bundled file it names. Throws `NotFound`, listing every place looked at, for a bundled name
    /// found nowhere.
    public static func resolve(
        _ name: String, workingFolder: String = FileManager.default.currentDirectoryPath,
        places: [Place] = places()
    ) throws(NotFound) -> String {
        if FileManager.default.fileExists(atPath: name) { return name }
        guard let (kind, relative) = bundledPart(of: name) else { return name }
        var looked = [workingFolder.hasSuffix("/") ? workingFolder + name : workingFolder + "/" + name]
        for place in places {
            guard let folder = place.folder(kind) else { continue }
            let candidate = folder + "/" + relative
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            looked.append(candidate)
        }
        if places.allSatisfy({ $0.folder(kind) == nil }) {
            looked.append("no bundled \(kind.rawValue) folder: share/retrolua/\(kind.rawValue) beside the binary")
        }
        throw NotFound(name: name, looked: looked)
    }
}
