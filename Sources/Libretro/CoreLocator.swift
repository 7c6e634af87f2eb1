import CLibretro
import Foundation
import Glibc
import Support

/// An installed core as found on disk, described without initialising it.
public struct InstalledCore: Sendable, Equatable {
    /// The short name users type: `nestopia` for `nestopia_libretro.so`.
    public let name: String
    public let path: String
    public let displayName: String
    public let systems: [String]
    public let extensions: [String]
    /// Why the core cannot be used (not a library, truncated, crashed or hung when probed), if so.
    public var problem: String? = nil
}

/// Finds cores by name, by path, or by the content they take.
///
/// Search order: `$RETROLUA_CORE_PATH` (colon-separated folders), RetroArch's user core folder,
/// Debian's libretro folder, then `$RETROLUA_EXTRA_CORE_PATH` (the Python package puts an installed
/// stable-retro's cores there, so they fill in without shadowing a same-named core of Debian's). Extensions come from the core itself (`retro_get_system_info`);
/// display names and systems from `.info` (RetroArch) or `.libretro` (Debian) files beside it.
public struct CoreLocator: Sendable {
    public let searchFolders: [String]
    public let prober: CoreProbe
    /// `cores.cfg`: the core to pick per extension (`nes = fceumm`), ranked first when choosing.
    public var preferences: [String: String]
    public let preferencesPath: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        var folders: [String] = []
        if let custom = environment["RETROLUA_CORE_PATH"] {
            folders += custom.split(separator: ":").map(String.init)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"] ?? home + "/.config"
        folders.append(config + "/retroarch/cores")
        folders += ["/usr/lib/x86_64-linux-gnu/libretro", "/usr/lib/aarch64-linux-gnu/libretro", "/usr/lib/libretro"]
        if let extra = environment["RETROLUA_EXTRA_CORE_PATH"] {
            folders += extra.split(separator: ":").map(String.init)
        }
        searchFolders = folders
        prober = CoreProbe(environment: environment)
        preferencesPath = config + "/retrolua/cores.cfg"
        preferences = CoreLocator.readPreferences(preferencesPath)
    }

    /// Every core file in the search folders; the first folder wins when a name repeats.
    public func installed() -> [InstalledCore] {
        var seen = Set<String>()
        var found: [(path: String, name: String)] = []
        for folder in searchFolders {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for file in files.sorted() where file.hasSuffix("_libretro.so") {
                let name = String(file.dropLast("_libretro.so".count))
                guard seen.insert(name).inserted else { continue }
                found.append((folder + "/" + file, name))
            }
        }
        // Only cores whose info files give no extensions are probed (in a child, cached).
        let unknown = found.filter { CoreLocator.infoFile(for: $0.path, name: $0.name).extensions.isEmpty }
        let probes = prober.results(for: unknown.map(\.path))
        return found.map { describe(path: $0.path, name: $0.name, probe: probes[$0.path]) }
    }

    /// Resolves `--core`: a path (contains `/` or ends in `.so`) or a short name.
    public func resolve(_ spec: String) throws(RetroError) -> String {
        if spec.contains("/") || spec.hasSuffix(".so") {
            guard FileManager.default.fileExists(atPath: spec) else {
                throw .notALibrary(path: spec, reason: "no such file")
            }
            return spec
        }
        let name = spec.hasSuffix("_libretro") ? String(spec.dropLast("_libretro".count)) : spec
        for folder in searchFolders {
            let path = folder + "/" + name + "_libretro.so"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw .coreNotFound(name: spec, installed: installed().map(\.name))
    }

    /// The core `choose(for:)` picks for the file (see CoreSelection.swift for the rule).
    public func core(for contentPath: String) throws(RetroError) -> InstalledCore {
        try choose(for: Content(path: contentPath)).core
    }

    /// Reads a core's description: extensions from the library, names from its info file.
    /// Info files first: only a core they do not describe is probed (`probe`, else a child now).
    public func describe(path: String, name: String, probe given: CoreProbeResult? = nil) -> InstalledCore {
        let info = CoreLocator.infoFile(for: path, name: name)
        var probe = given
        var problem: String?
        if info.extensions.isEmpty {
            if probe == nil { probe = prober.results(for: [path])[path] }
            problem = probe?.problem
        } else {
            do { try CoreFile.check(path: path) } catch { problem = error.description }
        }
        let extensions = info.extensions.isEmpty ? (probe?.extensions ?? []) : info.extensions
        return InstalledCore(
            name: name, path: path,
            displayName: info.displayName ?? probe?.libraryName ?? name,
            systems: info.systems, extensions: extensions, problem: problem)
    }

    /// `retro_get_system_info` without `retro_init` (the API allows it), then the library is closed again.
    static func probe(path: String) -> SystemInfo? {
        guard let handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL) else { return nil }
        defer { dlclose(handle) }
        guard let symbol = dlsym(handle, "retro_get_system_info") else { return nil }
        typealias GetInfo = @convention(c) (UnsafeMutablePointer<retro_system_info>?) -> Void
        var raw = retro_system_info()
        unsafeBitCast(symbol, to: GetInfo.self)(&raw)
        return SystemInfo(raw)
    }

    /// The core's RetroArch `.info` file: beside the core, else in libretro-core-info's folder.
    public static func infoFilePath(for corePath: String, name: String) -> String? {
        let folder = FilePath.folder(of: corePath)
        return [folder + "/" + name + "_libretro.info", "/usr/share/libretro/info/" + name + "_libretro.info"]
            .first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Every `key = "value"` of the core's `.info` file.
    public static func infoFields(for corePath: String, name: String) -> [String: String]? {
        guard let path = infoFilePath(for: corePath, name: name),
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        return Dictionary(CoreOptions.parse(text), uniquingKeysWith: { first, _ in first })
    }

    /// Names, systems and extensions from RetroArch `.info` files or Debian `.libretro` files.
    public static func infoFile(
        for corePath: String, name: String
    ) -> (displayName: String?, systems: [String], extensions: [String]) {
        let folder = FilePath.folder(of: corePath)
        if let fields = infoFields(for: corePath, name: name) {
            return (
                fields["display_name"], fields["systemname"].map { [$0] } ?? [],
                fields["supported_extensions"].map { $0.split(separator: "|").map { $0.lowercased() } } ?? []
            )
        }
        guard let text = try? String(contentsOfFile: folder + "/" + name + ".libretro", encoding: .utf8) else {
            return (nil, [], [])
        }
        var displayName: String?
        var systems: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("Name=") { displayName = String(line.dropFirst(5)) }
            if line.hasPrefix("[Platform:") { systems.append(String(line.dropFirst(10).dropLast())) }
        }
        return (displayName, systems, [])
    }
}
