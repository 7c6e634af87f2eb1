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

    /// Fails with every required file that is missing; warns about present files with another md5.
    public static func check(
        _ files: [FirmwareFile], core: String, systemFolder: String, warn: (String) -> Void
    ) throws(RetroError) {
        var missing: [FirmwareFile] = []
        for file in files {
            let present: Bool
            do {
                _ = try BoundedFile.size(file.fullPath)
                present = true
            } catch {
                present = error.kind != .missing
            }
            if !present {
                if !file.optional { missing.append(file) }
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
        if !missing.isEmpty { throw .firmwareMissing(core: core, systemFolder: systemFolder, files: missing) }
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
