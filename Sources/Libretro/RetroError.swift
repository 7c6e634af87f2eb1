import Support

/// Everything that can go wrong between the host and a core, worded for the user.
public enum RetroError: Error, CustomStringConvertible, Equatable {
    case coreNotFound(name: String, installed: [String])
    case notALibrary(path: String, reason: String)
    case notALibretroCore(path: String, missingSymbol: String)
    case wrongAPIVersion(path: String, version: UInt32)
    case contentUnreadable(path: String, reason: String)
    case contentEmpty(path: String)
    case wrongSystem(path: String, core: String, extensions: [String])
    case noCoreForContent(path: String, installed: [String])
    case loadGameFailed(path: String, core: String)
    case contentRequired(core: String)
    case stateUnsupported(core: String)
    case stateRejected(reason: String)
    case fileWrite(path: String, reason: String)
    /// A size the core reported that no real machine needs (a savestate of 2^62 bytes).
    case implausibleSize(core: String, what: String, size: UInt)
    /// Required BIOS files (per the core's `.info`) that are not in the system folder.
    /// `alternatives`: groups of `files` any one of which would do (regional BIOS sets).
    case firmwareMissing(core: String, systemFolder: String, files: [FirmwareFile], alternatives: [[FirmwareFile]])

    public var description: String {
        switch self {
        case let .coreNotFound(name, installed):
            let list =
                installed.isEmpty ? "none found (install e.g. libretro-nestopia)" : installed.joined(separator: ", ")
            return "no core named '\(name)'; installed cores: \(list)"
        case let .notALibrary(path, reason):
            return "\(path): cannot load as a shared library: \(reason)"
        case let .notALibretroCore(path, symbol):
            return "\(path): not a libretro core (it has no \(symbol))"
        case let .wrongAPIVersion(path, version):
            return "\(path): libretro API version \(version), but Retrolua speaks version 1"
        case let .contentUnreadable(path, reason):
            return "\(path): cannot read content: \(reason)"
        case let .contentEmpty(path):
            return "\(path): content file is empty"
        case let .wrongSystem(path, core, extensions):
            return
                """
                \(path): core '\(core)' does not take this kind of file (it takes \
                \(extensions.map { "." + $0 }.joined(separator: " ")))
                """
        case let .noCoreForContent(path, installed):
            return
                """
                \(path): no installed core takes this file's extension (installed: \
                \(installed.joined(separator: ", ")))
                """
        case let .loadGameFailed(path, core):
            return
                """
                \(path): core '\(core)' refused the content (retro_load_game returned false); is it a valid ROM \
                for this system?
                """
        case let .contentRequired(core):
            return "core '\(core)' needs content to run (give a ROM path)"
        case let .stateUnsupported(core):
            return "core '\(core)' does not support savestates"
        case let .stateRejected(reason):
            return "savestate rejected: \(reason)"
        case let .fileWrite(path, reason):
            return FileWriteError(path: path, reason: reason).description
        case let .implausibleSize(core, what, size):
            return "core '\(core)' reports a \(what) size of \(size) bytes, more than Retrolua accepts; refused"
        case let .firmwareMissing(core, systemFolder, files, alternatives):
            let grouped = Set(alternatives.joined().map(\.path))
            let line = { (file: FirmwareFile) in
                "\(file.label)\(file.md5.map { ", md5 \($0)" } ?? ""): put it at \(file.fullPath)"
            }
            let lines =
                files.filter { !grouped.contains($0.path) }.map { "  " + line($0) }
                + alternatives.map { group in
                    "  one of these (a region's file is enough for content of that region):\n"
                        + group.map { "    " + line($0) }.joined(separator: "\n")
                }
            return
                """
                core '\(core)' needs firmware (BIOS) that is not in the system folder \(systemFolder) \
                (--system-dir):
                \(lines.joined(separator: "\n"))
                """
        }
    }
}

extension RetroError {
    /// A durable write's failure among a core's: closing a session writes save RAM, for one.
    public init(_ error: FileWriteError) {
        self = .fileWrite(path: error.path, reason: error.reason)
    }
}
