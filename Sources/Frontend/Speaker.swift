import Foundation
import Glibc
import Synchronization

/// `--speak`: on-screen messages read aloud by espeak-ng, for blind and low-vision players. The text
/// goes to the program's standard input, never through a shell or its arguments (so no message can
/// be taken for an option or a command); one utterance at a time, without waiting for it, and
/// messages that arrive meanwhile are joined into the next one (at most a few, each cut to a length).
/// What the menu and tools focus (`emu.speak`) is said after them, a newer focus replacing one not yet
/// spoken: moving through a list says where it stops, not every item passed.
public final class Speaker: Sendable {
    public static let maximumPending = 3
    public static let maximumLength = 200

    private let program: String
    /// `RETROLUA_SPEAK_WAV`: each utterance goes to its own numbered file beside it.
    private let wav: String?
    private struct State {
        var speaking: Process?
        var pending: [String] = []
        var focus: String?
        var utterances = 0
    }
    private let state = Mutex(State())

    /// Nil when espeak-ng is not on PATH. `RETROLUA_SPEAK_WAV=FILE.wav` writes the speech to WAV files
    /// (`espeak-ng -w`) instead of the sound card, one per utterance, numbered from 1 beside FILE:
    /// `FILE-1.wav`, `FILE-2.wav`, … (how the tests listen; every utterance is kept).
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard
            let found = folders.map({ $0 + "/espeak-ng" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        program = found
        wav = environment["RETROLUA_SPEAK_WAV"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The WAV file of utterance `number`: `speech.wav` → `speech-3.wav` (a name without `.wav` gets it).
    public static func numbered(_ path: String, _ number: Int) -> String {
        let stem = path.lowercased().hasSuffix(".wav") ? String(path.dropLast(4)) : path
        return "\(stem)-\(number).wav"
    }

    /// Speaks `text` now, or after the current utterance; `replacing`: a focus (see the type's comment).
    public func say(_ text: String, replacing: Bool = false) {
        let cleaned = String(
            text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }
                .prefix(Self.maximumLength))
        guard !cleaned.allSatisfy({ $0 == " " }) else { return }
        let next: (String, Int)? = state.withLock { state in
            if replacing {
                state.focus = cleaned
            } else {
                state.pending.append(cleaned)
                if state.pending.count > Self.maximumPending { state.pending.removeFirst() }
            }
            guard state.speaking == nil else { return nil }
            return Self.take(&state)
        }
        if let next { start(next.0, number: next.1) }
    }

    private static func take(_ state: inout State) -> (String, Int)? {
        let parts = state.pending + (state.focus.map { [$0] } ?? [])
        guard !parts.isEmpty else { return nil }
        state.pending.removeAll()
        state.focus = nil
        state.utterances &+= 1
        return (parts.joined(separator: ". "), state.utterances)
    }

    private func start(_ text: String, number: Int) {
        // Standard input is an unlinked temporary file, not a pipe: writing it cannot block or raise SIGPIPE.
        guard let input = Self.textFile(text) else { return }
        defer { try? input.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--stdin"] + (wav.map { ["-w", Self.numbered($0, number)] } ?? [])
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
        unlink(template)
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, lseek(fd, 0, SEEK_SET) == 0 else {
            close(fd)
            return nil
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    private func finished() {
        let next: (String, Int)? = state.withLock { state in
            state.speaking = nil
            return Self.take(&state)
        }
        if let next { start(next.0, number: next.1) }
    }
}
