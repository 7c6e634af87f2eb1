import Foundation
import Support

/// One firmware (BIOS) file a core's `.info` lists: `firmwareN_path`, `_desc`, `_opt`, and its md5
/// when the `notes` line gives one (`(!) scph5501.bin (md5): 490f…`).
public struct FirmwareFile: Equatable, Sendable {
    /// Relative to the system folder (some cores use subfolders: `dc/dc_boot.bin`).
    public let path: String
    public let description: String
    public let optional: Bool
    public let md5: String?
    /// Where the core looks for it: the system folder joined with `path`.
    public let fullPath: String
    /// The region the description names (`JP`, `US/EU`), when it names one; see `CoreFirmware.regionAlternatives`.
    public var region: String? { CoreFirmware.region(of: description).map(\.region) }

    public init(path: String, description: String, optional: Bool, md5: String?, fullPath: String) {
        (self.path, self.description, self.optional, self.md5, self.fullPath) = (
            path, description, optional, md5, fullPath
        )
    }

    /// `scph5501.bin (PS1 US BIOS)`: the description, which often starts with the name already.
    public var label: String { description.hasPrefix(path) ? description : "\(path) (\(description))" }
}

/// Checks a core's firmware before its content is loaded: a required file that is missing fails the
/// run with its name, md5 and where to put it (a core without its BIOS crashes or shows nothing);
/// a file whose md5 differs from the `.info`'s is a warning (other dumps and revisions often work).
///
/// Regional BIOS sets are alternatives, not a list of must-haves: beetle-psx's `.info` marks
/// `scph5500.bin (PS1 JP BIOS)`, `scph5501.bin (PS1 US BIOS)` and `scph5502.bin (PS1 EU BIOS)` all
/// required, yet the core boots a disc with the BIOS of the disc's region alone, and Saturn's
/// `sega_101.bin (Saturn JP BIOS)` / `mpr-17933.bin (Saturn US/EU BIOS)` likewise. Nothing is written
/// down per core: the groups come from the descriptions themselves (`regionAlternatives`). A
/// description names a region when one of its words (split on spaces, `/`, `,`, brackets) is a region
/// word (`JP`, `US`, `EU`, `USA`, `Japan`, `Europe`, `PAL`, …); taking those words and the file's own
/// name out of it leaves what the file is (`PS1 BIOS`, `Saturn BIOS`). Required files that name a
/// region and are the same thing are one group: any one present satisfies the group and each missing
/// one is a warning (content of that region may not boot); a group with none present fails the run
/// naming every file of it as "one of". A lone regional file (Hatari's `TOS 1.02 US`) stays required.
public enum CoreFirmware {
    /// Firmware files are read for their md5 up to this size (the largest BIOS sets are tens of MiB).
    static let hashLimit = 128 << 20
    /// `firmware_count` is untrusted text: more entries than any real core lists are not looked at.
    static let maximumEntries = 256

    /// The firmware that `infoText` (a `.info` file's contents) lists, resolved against `systemFolder`.
    public static func list(infoText: String, systemFolder: String) -> [FirmwareFile] {
        let fields = Dictionary(CoreOptions.parse(infoText), uniquingKeysWith: { first, _ in first })
        guard let count = fields["firmware_count"].flatMap({ Int($0) }), count > 0 else { return [] }
        let sums = md5Sums(notes: fields["notes"] ?? "")
        var files: [FirmwareFile] = []
        for index in 0..<min(count, maximumEntries) {
            guard let path = fields["firmware\(index)_path"], !path.isEmpty else { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            files.append(
                FirmwareFile(
                    path: path, description: fields["firmware\(index)_desc"] ?? path,
                    optional: fields["firmware\(index)_opt"]?.lowercased() == "true",
                    md5: sums[path] ?? sums[name], fullPath: systemFolder + "/" + path))
        }
        return files
    }

    /// `notes` is a `|`-separated list; md5 lines read `(!) NAME (md5): 32 hex digits`.
    static func md5Sums(notes: String) -> [String: String] {
        var sums: [String: String] = [:]
        for note in notes.split(separator: "|") {
            let text = note.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("(!)"), let marker = text.range(of: "(md5):") else { continue }
            let name = text[text.index(text.startIndex, offsetBy: 3)..<marker.lowerBound]
                .trimmingCharacters(in: .whitespaces)
            let sum = text[marker.upperBound...].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty, sum.count == 32, sum.allSatisfy(\.isHexDigit) else { continue }
            sums[name] = sum
        }
        return sums
    }

    /// Words that name a region in a firmware description (compared without case).
    static let regionWords: Set<String> = [
        "jp", "jpn", "japan", "japanese", "us", "usa", "eu", "eur", "europe", "european", "pal", "ntsc", "world",
        "asia", "kr", "korea", "korean", "brazil", "china",
    ]

    /// The region a description names and what the file is without it: `scph5501.bin (PS1 US BIOS)`
    /// is region `US` of `ps1 bios`; `Saturn US/EU BIOS` is `US/EU` of `saturn bios`. nil when no word
    /// of it is a region word.
    static func region(of description: String) -> (region: String, thing: String)? {
        var text = Substring(description)
        // The file name the description usually starts with is not part of what the file is.
        if let first = text.split(separator: " ", maxSplits: 1).first, first.contains(".") {
            text = text.dropFirst(first.count)
        }
        let separators = Set<Character>(" /,()[]-_")
        var region: [String] = []
        var thing: [String] = []
        for word in text.split(whereSeparator: { separators.contains($0) }) {
            if regionWords.contains(word.lowercased()) {
                region.append(String(word))
            } else {
                thing.append(word.lowercased())
            }
        }
        guard !region.isEmpty, !thing.isEmpty else { return nil }
        return (region.joined(separator: "/"), thing.joined(separator: " "))
    }

    /// The required files grouped as region alternatives of one another (see the type's comment), in
    /// the `.info`'s order; each group has two files or more.
    public static func regionAlternatives(_ files: [FirmwareFile]) -> [[FirmwareFile]] {
        var groups: [String: [FirmwareFile]] = [:]
        var order: [String] = []
        for file in files where !file.optional {
            guard let thing = region(of: file.description)?.thing else { continue }
            if groups[thing] == nil { order.append(thing) }
            groups[thing, default: []].append(file)
        }
        return order.compactMap { groups[$0] }.filter { $0.count > 1 }
    }

    static func isPresent(_ file: FirmwareFile) -> Bool {
        do {
            _ = try BoundedFile.size(file.fullPath)
            return true
        } catch {
            return error.kind != .missing
        }
    }

    /// Fails with every required file that is missing (a region group with none of its files, as
    /// "one of"); warns about the missing files of a region group that has one, and about present files
    /// with another md5.
    public static func check(
        _ files: [FirmwareFile], core: String, systemFolder: String, warn: (String) -> Void
    ) throws(RetroError) {
        var missing: [FirmwareFile] = []
        var alternativeOf: [String: [FirmwareFile]] = [:]
        for group in regionAlternatives(files) {
            for file in group { alternativeOf[file.path] = group }
        }
        for file in files {
            if !isPresent(file) {
                if file.optional { continue }
                guard let group = alternativeOf[file.path] else {
                    missing.append(file)
                    continue
                }
                let present = group.filter(isPresent)
                if present.isEmpty {
                    missing.append(file)
                } else {
                    warn(
                        """
                        core '\(core)': \(file.label) is not in \(systemFolder) (--system-dir); \
                        \(present.map(\.path).joined(separator: ", ")) serves in its place, but content \
                        of its region (\(file.region ?? "")) may not boot without it
                        """)
                }
                continue
            }
            guard let expected = file.md5 else { continue }
            guard let bytes = try? BoundedFile.read(file.fullPath, limit: hashLimit) else {
                warn("\(file.fullPath): cannot read it to check its md5 (core '\(core)' expects \(expected))")
                continue
            }
            let actual = Hashing.md5(bytes)
            if actual != expected {
                warn(
                    """
                    \(file.fullPath): md5 \(actual), but core '\(core)' expects \(expected) \
                    (\(file.label)); it may not work
                    """)
            }
        }
        if !missing.isEmpty {
            let alternatives = regionAlternatives(missing)
            throw .firmwareMissing(core: core, systemFolder: systemFolder, files: missing, alternatives: alternatives)
        }
    }

    /// The firmware check for a core about to be loaded, from its `.info` file when there is one.
    public static func check(
        corePath: String, name: String, systemFolder: String, warn: (String) -> Void
    )
        throws(RetroError)
    {
        guard let info = CoreLocator.infoFilePath(for: corePath, name: name),
            let bytes = try? BoundedFile.read(info, limit: 1 << 20)
        else { return }
        let files = list(infoText: String(decoding: bytes, as: UTF8.self), systemFolder: systemFolder)
        try check(files, core: name, systemFolder: systemFolder, warn: warn)
    }
}
