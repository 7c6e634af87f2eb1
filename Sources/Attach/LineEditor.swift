import CLineEdit
import Foundation

/// The terminal's line editor (Debian's libedit through CLineEdit): editing keys, a history file, Tab
/// completion from `complete`, and Ctrl-C that cancels the line being typed (`interrupt`).
final class LineEditor {
    enum Input {
        case line(String)
        /// Ctrl-C: the line was dropped.
        case interrupted
        /// Ctrl-D on an empty line, or the program is ending.
        case end
    }

    private let editor: OpaquePointer
    private let completion: Completion

    /// Holds the completion function for the C callback (passed as its context).
    private final class Completion {
        let complete: (String) -> [String]
        init(_ complete: @escaping (String) -> [String]) { self.complete = complete }
    }

    /// nil when standard input or output is not a terminal.
    init?(historyPath: String?, complete: @escaping (String) -> [String]) {
        completion = Completion(complete)
        let context = Unmanaged.passUnretained(completion).toOpaque()
        guard let editor = le_open("retrolua", historyPath, LineEditor.completeForC, context) else { return nil }
        self.editor = editor
    }

    func read(prompt: String) -> Input {
        var interrupted: Int32 = 0
        guard let line = le_read(editor, prompt, &interrupted) else { return .end }
        return interrupted != 0 ? .interrupted : .line(String(cString: line))
    }

    func remember(_ line: String) { le_remember(editor, line) }

    /// Writes the history and gives the terminal back.
    func close() { le_close(editor) }

    /// Async-signal-safe: the line being typed is dropped.
    static func interrupt() { le_interrupt() }
    /// From any thread: `read` returns `.end` (the program is ending).
    static func shutdown() { le_shutdown() }

    private static let completeForC: le_completer = { before, out, capacity, context in
        guard let before, let out, let context else { return 0 }
        let completion = Unmanaged<Completion>.fromOpaque(context).takeUnretainedValue()
        let matches = completion.complete(String(cString: before)).prefix(Int(capacity))
        for (index, match) in matches.enumerated() { out[index] = strdup(match) }
        return Int32(matches.count)
    }
}
