import Attach
import Foundation
import Control
import Frontend
import Run
import Scripting

/// `retrolua run`: the command line becomes a `RunPlan`, which `Run` assembles and runs.
enum RunCommand {
    static var help: String { CommandList.helpText(for: spec) }

    static func main(_ raw: [String]) {
        let plan: RunPlan
        do throws(CommandLineError) {
            guard let parsed = try RunArguments.parse(raw) else { print(help); exit(0) }
            plan = parsed
        } catch {
            if error.withHelp { usageFail(error.message, command: "run") }
            fail(error.message, code: error.code)
        }
        exit(execute(plan))
    }

    /// Runs a plan; its exit status (a run that cannot start is reported and exits here with 1).
    static func execute(_ plan: RunPlan) -> Int32 {
        var console: ConsoleThread?
        if plan.console, case .unix(let path)? = plan.control?.address {
            // Ctrl-C drops the line and stops a chunk that is running frames; Ctrl-D ends the run.
            console = Attach.startConsole(socket: path) { ScriptConsole.interrupt.store(true, ordering: .relaxed) }
        }
        defer { console?.finish() }
        do throws(RunFailure) { return try Run(plan).execute().status } catch {
            console?.finish()
            fail(error.message)
        }
    }
}
