import Attach
import Foundation

/// `retrolua attach [ADDRESS]`: the Lua console of a running game, on this terminal.
enum AttachCommand {
    static let spec = CommandSpec(
        name: "attach", summary: "type Lua into a running game (its console), from this terminal",
        usage: ["attach [ADDRESS]"],
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
            """, takesFiles: false)

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("attach: \(error)", command: "attach") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count <= 1 else { usageFail("attach: takes one ADDRESS at most", command: "attach") }
        exit(Attach.main(address: args.positionals.first))
    }
}
