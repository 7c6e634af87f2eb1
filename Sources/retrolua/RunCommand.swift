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
        do throws(RunFailure) { return try Run(plan).execute().status } catch { fail(error.message) }
    }
}
