import Attach
import Foundation

/// `retrolua attach [ADDRESS]`: the Lua console of a running game, on this terminal.
enum AttachCommand {
    static let spec = CommandSpec(
        name: "attach", summary: "type Lua into a running game (its console), from this terminal",
        usage: ["attach [ADDRESS] [--timeout SECONDS]"],
        description: """
            Opens the Lua console of a running game over its control socket: an expression shows its value,
            emu.frameadvance() runs one frame, Tab completes names, Up/Down walk the history
            ($XDG_STATE_HOME/retrolua/console_history), Ctrl-C drops the line, Ctrl-D leaves (the game goes on).
            Chunks run in the game's console state, between frames, under the scripts' security profile (the
            run's --allow-files or --trust widen it). Every windowed run listens on a socket of this user's,
            $XDG_RUNTIME_DIR/retrolua/PID.sock (--no-control turns it off); with no ADDRESS, attach finds the
            one running game, or lists them. ADDRESS: a process id, unix:PATH, or a socket's path.
            When standard input is not a terminal each line is a chunk and the answers are printed
            (echo "emu.framecount()" | retrolua attach); the exit status is then 1 when a chunk failed.
            What the game sends is shown with its control characters escaped as Lua writes them (ESC as \\27), so
            a reply cannot retitle, clear or hide the terminal. A game that sends no reply within --timeout
            seconds ends attach (exit 1); Ctrl-C while waiting for a reply, SIGTERM and SIGHUP end it at once
            (exit 128 + the signal; a chunk the game was running may go on there).
            """,
        groups: [
            OptionGroup([
                Option(
                    "timeout", "SECONDS",
                    "how long to wait for each of the game's replies (default \(Int(Attach.defaultTimeout)); a "
                        + "chunk may run frames for 10 s); 0 waits for ever")
            ])
        ], takesFiles: false)

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("attach: \(error)", command: "attach") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count <= 1 else { usageFail("attach: takes one ADDRESS at most", command: "attach") }
        var timeout: Double? = Attach.defaultTimeout
        if let text = args.value("timeout") {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                usageFail(
                    "attach: --timeout must be a number of seconds (0: for ever), got '\(text)'", command: "attach")
            }
            timeout = seconds == 0 ? nil : seconds
        }
        exit(Attach.main(address: args.positionals.first, timeout: timeout))
    }
}
