import Foundation
import Glibc
import Support

/// The console on a terminal: lines typed (or piped in) become chunks for a running game's Lua console,
/// sent over its control socket; what they print and the values they give come back here. A chunk left
/// unfinished (`for i = 1, 3 do`) gathers the next lines under a `>>` prompt, as the standalone lua does.
/// Everything the game sends is shown through `TerminalText.printable`: its control characters cannot
/// reach the terminal.
final class ConsoleREPL {
    private let connection: ConsoleConnection
    private var failures = 0
    /// The game stopped answering (a request timed out): the console ended with status 1.
    private var timedOut = false

    init(_ connection: ConsoleConnection) { self.connection = connection }

    /// Reads until end of input; the exit status (piped input: 1 when a chunk failed; either: 1 when the
    /// game stopped answering). A stop signal's status is the caller's (`ConsoleWait.stopped`).
    func run() -> Int32 {
        if let editor = LineEditor(historyPath: Self.historyPath(), complete: complete) {
            interactive(editor)
            return timedOut ? 1 : 0
        }
        piped()
        return failures > 0 ? 1 : 0
    }

    private func interactive(_ editor: LineEditor) {
        defer { editor.close() }
        if let info = try? connection.request(["cmd": "info"]) {
            let content = Self.shown(info["content"] as? String ?? "?")
            let core = Self.shown(info["core"] as? String ?? "?")
            print("Retrolua console: \(content) on \(core), frame \(info["frame"] as? Int ?? 0). Lua 5.4.")
            print("An expression shows its value; emu.frameadvance() runs a frame; Tab completes; Ctrl-D leaves.")
        }
        var gathered = ""
        while true {
            if let signal = ConsoleWait.stopped {
                Self.say("stopped by \(ConsoleWait.name(signal))")
                return
            }
            ConsoleWait.isAtPrompt.store(true, ordering: .relaxed)
            let input = editor.read(prompt: gathered.isEmpty ? "> " : ">> ")
            ConsoleWait.isAtPrompt.store(false, ordering: .relaxed)
            switch input {
            case .end:
                print("")
                if let signal = ConsoleWait.stopped { Self.say("stopped by \(ConsoleWait.name(signal))") }
                return
            case .interrupted:
                print("^C")
                gathered = ""
            case .line(let line):
                editor.remember(line)
                gathered = gathered.isEmpty ? line : gathered + "\n" + line
                if !send(gathered) { return }
                if !isIncomplete { gathered = "" }
            }
        }
    }

    private func piped() {
        var gathered = ""
        var input = PipedInput()
        while let line = input.next() {
            gathered = gathered.isEmpty ? line : gathered + "\n" + line
            if !send(gathered) { return }
            if !isIncomplete { gathered = "" }
        }
        if let signal = ConsoleWait.stopped {
            Self.say("stopped by \(ConsoleWait.name(signal)) while reading the input")
            return
        }
        if !gathered.isEmpty {
            failures += 1
            FileHandle.standardError.write(Data("retrolua attach: the input ended inside a chunk: \(gathered)\n".utf8))
        }
    }

    private var isIncomplete = false

    /// Sends a chunk and shows the answer; false once the game is gone.
    private func send(_ chunk: String) -> Bool {
        let reply: [String: Any]
        do { reply = try connection.request(["cmd": "console", "lua": chunk]) } catch {
            Self.say("\(error)")
            failures += 1
            timedOut = error.stopped == nil
            return false
        }
        isIncomplete = reply["status"] as? String == "incomplete"
        for line in reply["output"] as? [[String: Any]] ?? [] {
            let text = Self.shown(line["text"] as? String ?? "") + "\n"
            if line["stream"] as? String == "err" {
                FileHandle.standardError.write(Data(text.utf8))
            } else {
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        }
        if let error = reply["error"] as? String {
            failures += 1
            FileHandle.standardError.write(Data("\(Self.shown(error))\n".utf8))
        } else if let values = reply["values"] as? [String], !values.isEmpty {
            FileHandle.standardOutput.write(Data((Self.shown(values.joined(separator: "\t")) + "\n").utf8))
        }
        return true
    }

    private func complete(_ before: String) -> [String] {
        let reply = try? connection.request(["cmd": "complete", "text": before])
        return (reply?["matches"] as? [String] ?? []).map(Self.shown)
    }

    /// What the game sent, as the terminal may show it.
    private static func shown(_ text: String) -> String { TerminalText.printable(text) }

    private static func say(_ message: String) {
        FileHandle.standardError.write(Data("retrolua attach: \(message)\n".utf8))
    }

    /// `$XDG_STATE_HOME/retrolua/console_history` (default `~/.local/state/…`); nil when it cannot be made.
    private static func historyPath() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        let folder = state + "/retrolua"
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
        else { return nil }
        return folder + "/console_history"
    }
}

/// Lines of piped standard input, read through `ConsoleWait` so that a stop signal ends the reading
/// (`Swift.readLine` would block through it); a line's "\n" or "\r\n" is dropped.
private struct PipedInput {
    private var buffered: [UInt8] = []
    private var ended = false

    /// The next line; nil at the end of the input or once a stop signal came.
    mutating func next() -> String? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let newline = buffered.firstIndex(of: 10) {
                var line = Array(buffered[..<newline])
                buffered.removeSubrange(...newline)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if ended {
                guard !buffered.isEmpty else { return nil }
                defer { buffered.removeAll() }
                return String(decoding: buffered, as: UTF8.self)
            }
            guard case .ready = ConsoleWait.wait(0, for: Int16(POLLIN), until: nil) else { return nil }
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 {
                ended = true
            } else {
                buffered.append(contentsOf: chunk[..<count])
            }
        }
    }
}
