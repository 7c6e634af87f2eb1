import Foundation
import Glibc
import Synchronization

/// `--speak`: on-screen messages read aloud by espeak-ng, for blind and low-vision players. The text
/// goes to the program's standard input, never through a shell or its arguments (so no message can
/// be taken for an option or a command); one utterance at a time, without waiting for it, and
/// messages that arrive meanwhile are joined into the next one (at most a few, each cut to a length).
public final class Speaker: Sendable {
    public static let maximumPending = 3
    public static let maximumLength = 200

    private let program: String
    private let arguments: [String]
    private struct State {
        var speaking: Process?
        var pending: [String] = []
    }
    private let state = Mutex(State())

    /// Nil when espeak-ng is not on PATH. `RETROLUA_SPEAK_WAV=FILE` writes the speech to FILE
    /// (`espeak-ng -w`) instead of the sound card: how the tests listen.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard
            let found = folders.map({ $0 + "/espeak-ng" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        program = found
        var arguments = ["--stdin"]
        if let wav = environment["RETROLUA_SPEAK_WAV"], !wav.isEmpty { arguments += ["-w", wav] }
        self.arguments = arguments
    }

    /// Speaks `text` now, or after the current utterance.
    public func say(_ text: String) {
        let cleaned = String(
            text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }
                .prefix(Self.maximumLength))
        guard !cleaned.allSatisfy({ $0 == " " }) else { return }
        let next: String? = state.withLock { state in
            state.pending.append(cleaned)
            if state.pending.count > Self.maximumPending { state.pending.removeFirst() }
            guard state.speaking == nil else { return nil }
            return Self.take(&state)
        }
        if let next { start(next) }
    }

    private static func take(_ state: inout State) -> String? {
        guard !state.pending.isEmpty else { return nil }
        defer { state.pending.removeAll() }
        return state.pending.joined(separator: ". ")
    }

    private func start(_ text: String) {
        // Standard input is an unlinked temporary file, not a pipe: writing it cannot block or raise SIGPIPE.
        guard let input = Self.textFile(text) else { return }
        defer { try? input.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.terminationHandler = { [weak self] _ in self?.finished() }
        state.withLock { $0.speaking = process }
        do { try process.run() } catch { state.withLock { $0.speaking = nil } }
    }

    private static func textFile(_ text: String) -> FileHandle? {
        var template = Array((NSTemporaryDirectory() + "/retrolua-speak-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        unlink(String(cString: template))
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, lseek(fd, 0, SEEK_SET) == 0 else {
            close(fd)
            return nil
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    private func finished() {
        let next: String? = state.withLock { state in
            state.speaking = nil
            return Self.take(&state)
        }
        if let next { start(next) }
    }
}
