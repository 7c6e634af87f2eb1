import Emulation
import Foundation
import Control
import Frontend
import Run
import Scripting
import Libretro

/// Exit codes: 0 success, 1 the run failed (bad core, content, file…), 2 bad command line;
/// 128 + the signal for a run a signal ended (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
enum Exit {
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

func fail(_ message: String, code: Int32 = Exit.failure) -> Never {
    FileHandle.standardError.write(Data("retrolua: \(message)\n".utf8))
    exit(code)
}

/// A bad command line: the problem, where the options are described, exit status 2.
func usageFail(_ message: String, command: String?) -> Never {
    let pointer = command.map { "\n(`retrolua help \($0)` describes its options)" } ?? ""
    fail(message + pointer, code: Exit.usage)
}

CrashSignals.install()
var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((CommandList.usage + "\n").utf8))
    exit(Exit.usage)
}
arguments.removeFirst()

switch command {
case "run": RunCommand.main(arguments)
case "attach": AttachCommand.main(arguments)
case "mcp": McpCommand.main(arguments)
case "cores": CoresCommand.main(arguments)
case "paths": PathsCommand.main(arguments)
case "info": InfoCommand.main(arguments)
case "movie": MovieCommand.main(arguments)
case "batch": BatchCommand.main(arguments)
case "netplay-check": NetplayCheckCommand.main(arguments)
case "netplay-relay": NetplayRelayCommand.main(arguments)
case "docs": DocsCommand.main(arguments)
case "completions": CompletionsCommand.main(arguments)
case "man": ManCommand.main(arguments)
case "probe-core": ProbeCoreCommand.main(arguments)  // Hidden: the child that asks one core about itself.
case "version", "--version": CommandList.version(arguments)
case "help": CommandList.help(arguments)
case "--help", "-h": print(CommandList.usage)
default: CommandList.unknown(command)
}
