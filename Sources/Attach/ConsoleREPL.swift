import Foundation
import Support

/// The console on a terminal: lines typed (or piped in) become chunks for a running game's Lua console,
/// sent over its control socket; what they print and the values they give come back here. A chunk left
/// unfinished (`for i = 1, 3 do`) gathers the next lines under a `>>` prompt, as the standalone lua does.
final class ConsoleREPL {
    private let connection: ConsoleConnection
    private var failures = 0

    init(_ connection: ConsoleConnection) { self.connection = connection }

    /// Reads until end of input; the exit status (piped input: 1 when a chunk failed).
    func run() -> Int32 {
        if let editor = LineEditor(historyPath: Self.historyPath(), complete: complete) {
            interactive(editor)
            return 0
        }
        piped()
        return failures > 0 ? 1 : 0
    }

    private func interactive(_ editor: LineEditor) {
        defer { editor.close() }
        if let info = try? connection.request(["cmd": "info"]) {
            let content = info["content"] as? String ?? "?"
            let core = info["core"] as? String ?? "?"
            print("Retrolua console: \(content) on \(core), frame \(info["frame"] as? Int ?? 0). Lua 5.4.")
            print("An expression shows its value; emu.frameadvance() runs a frame; Tab completes; Ctrl-D leaves.")
        }
        var gathered = ""
        while true {
            switch editor.read(prompt: gathered.isEmpty ? "> " : ">> ") {
            case .end:
                print("")
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
        while let line = Swift.readLine(strippingNewline: true) {
            gathered = gathered.isEmpty ? line : gathered + "\n" + line
            if !send(gathered) { return }
            if !isIncomplete { gathered = "" }
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
            FileHandle.standardError.write(Data("retrolua attach: \(error)\n".utf8))
            failures += 1
            return false
        }
        isIncomplete = reply["status"] as? String == "incomplete"
        for line in reply["output"] as? [[String: Any]] ?? [] {
            let text = (line["text"] as? String ?? "") + "\n"
            if line["stream"] as? String == "err" {
                FileHandle.standardError.write(Data(text.utf8))
            } else {
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        }
        if let error = reply["error"] as? String {
            failures += 1
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        } else if let values = reply["values"] as? [String], !values.isEmpty {
            FileHandle.standardOutput.write(Data((values.joined(separator: "\t") + "\n").utf8))
        }
        return true
    }

    private func complete(_ before: String) -> [String] {
        let reply = try? connection.request(["cmd": "complete", "text": before])
        return reply?["matches"] as? [String] ?? []
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
