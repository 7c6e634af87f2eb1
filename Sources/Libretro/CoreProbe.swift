import CLibretro
import Foundation
import Glibc
import Support

/// What a core says about itself without being initialised: its name and extensions, or why it
/// could not say (a file that is no core, a core that crashed or hung while asked).
public struct CoreProbeResult: Sendable, Equatable, Codable {
    public var libraryName: String?
    public var extensions: [String]
    public var problem: String?
}

/// Asks cores for their extensions in a child process (`retrolua probe-core PATH`, killed after a
/// timeout), remembering answers in `~/.cache/retrolua/cores.json` by path, size and modification
/// time: one bad file in a core folder never breaks runs that do not use it.
public struct CoreProbe: Sendable {
    public let cachePath: String
    public let timeout: Double

    public init(environment: [String: String]) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        cachePath = (environment["XDG_CACHE_HOME"] ?? home + "/.cache") + "/retrolua/cores.json"
        timeout = environment["RETROLUA_PROBE_TIMEOUT"].flatMap(Double.init).map { min(max($0, 0.1), 60) } ?? 5
    }

    private struct Entry: Codable {
        var size: Int64
        var mtime: Int64
        var result: CoreProbeResult
    }

    /// The probe results for `paths`, from the cache where the file is unchanged, else from a child.
    public func results(for paths: [String]) -> [String: CoreProbeResult] {
        var cache = readCache()
        var answers: [String: CoreProbeResult] = [:]
        var changed = false
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let key = (Int64(info.st_size), Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
            if let entry = cache[path], entry.size == key.0, entry.mtime == key.1 {
                answers[path] = entry.result
                continue
            }
            let result = probe(path)
            cache[path] = Entry(size: key.0, mtime: key.1, result: result)
            answers[path] = result
            changed = true
        }
        if changed, let data = try? JSONEncoder().encode(cache) {
            try? FileManager.default.createDirectory(
                atPath: FilePath.folder(of: cachePath), withIntermediateDirectories: true)
            try? DurableFile.write(data, to: cachePath)  // A cache that cannot be written is only slower.
        }
        return answers
    }

    private func readCache() -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: cachePath) else { return [:] }
        return (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
    }

    /// One probe: the header check here, the `dlopen` in a child when a `retrolua` binary is at hand.
    func probe(_ path: String) -> CoreProbeResult {
        do { try CoreFile.check(path: path) } catch {
            return CoreProbeResult(libraryName: nil, extensions: [], problem: error.description)
        }
        guard let executable = CoreProbe.executable else { return CoreProbe.probeHere(path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["probe-core", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return CoreProbe.probeHere(path) }
        let deadline = DispatchTime.now() + timeout
        let timedOut = UnsafeSendableFlag()
        DispatchQueue.global().asyncAfter(deadline: deadline) { [process] in
            if process.isRunning {
                timedOut.set()
                kill(process.processIdentifier, SIGKILL)
            }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let failed = { (why: String) in CoreProbeResult(libraryName: nil, extensions: [], problem: "\(path): \(why)") }
        if timedOut.isSet { return failed("probing it did not finish within \(timeout) s (it hangs when loaded)") }
        if process.terminationReason == .uncaughtSignal {
            return failed("probing it crashed (signal \(process.terminationStatus))")
        }
        guard process.terminationStatus == 0, let result = try? JSONDecoder().decode(CoreProbeResult.self, from: data)
        else { return failed("probing it failed (exit status \(process.terminationStatus))") }
        return result
    }

    /// `retrolua probe-core`'s work: `retro_get_system_info` in this process.
    public static func probeHere(_ path: String) -> CoreProbeResult {
        do { try CoreFile.check(path: path) } catch {
            return CoreProbeResult(libraryName: nil, extensions: [], problem: error.description)
        }
        guard let info = CoreLocator.probe(path: path) else {
            return CoreProbeResult(
                libraryName: nil, extensions: [], problem: "\(path): not a libretro core (no retro_get_system_info)")
        }
        return CoreProbeResult(libraryName: info.libraryName, extensions: info.validExtensions, problem: nil)
    }

    /// The `retrolua` binary to re-execute: this process when it is `retrolua`, else one beside it
    /// (the test bundle's); nil probes in this process.
    static let executable: String? = {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        if (me as NSString).lastPathComponent == "retrolua" { return me }
        let folder = FilePath.folder(of: me)
        for candidate in [folder + "/retrolua", FilePath.folder(of: folder) + "/retrolua"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }()
}

/// A flag set on the timeout's queue and read after the child ended.
private final class UnsafeSendableFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
