import Emulation
import Foundation
import Host
import Libretro

/// Exit codes: 0 success, 1 the run failed (bad core, content, file…), 2 bad command line.
enum Exit {
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

func fail(_ message: String, code: Int32 = Exit.failure) -> Never {
    FileHandle.standardError.write(Data("retrolua: \(message)\n".utf8))
    exit(code)
}

let usage = """
    usage: retrolua COMMAND [options]

    commands:
      run [ROM]     run content on a core (the built-in homebrew demo when no ROM is given)
      cores         list installed cores with their systems and file extensions
      info ROM      show the core Retrolua would pick for ROM, and the ROM's hashes
      movie SUB     TAS movies: record, play, verify, convert, info (`retrolua movie --help`)
      batch JOBS    headless runs from a JSON-lines file, fanned out over processes
      docs          regenerate the Lua API reference and LuaLS stubs (lua/API.md, lua/types/)

    `retrolua COMMAND --help` describes each command's options.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { print(usage); exit(Exit.usage) }
arguments.removeFirst()

switch command {
case "run": RunCommand.main(arguments)
case "cores": CoresCommand.main(arguments)
case "info": InfoCommand.main(arguments)
case "movie": MovieCommand.main(arguments)
case "batch": BatchCommand.main(arguments)
case "docs": DocsCommand.main(arguments)
case "probe-core": ProbeCoreCommand.main(arguments)  // Hidden: the child that asks one core about itself.
case "--help", "-h", "help": print(usage)
default: fail("unknown command '\(command)'\n\(usage)", code: Exit.usage)
}
