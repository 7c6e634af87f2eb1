import Foundation
import Glibc

/// `retrolua mcp`: the MCP server for agents, which is Python's (`retrolua.mcp`, the official `mcp` SDK); the
/// binary hands over to it with itself as the emulator, so the .deb and `scripts/install` offer it too once
/// `pip install 'retrolua[mcp]'` has put the package beside them.
enum McpCommand {
    static let spec = CommandSpec(
        name: "mcp", summary: "serve agents over the Model Context Protocol (stdio): play a game through tools",
        usage: ["mcp [--rom ROM] [--core CORE] [--option KEY=VALUE]…", "mcp --attach [PID|unix:PATH]"],
        description: """
            Runs python3 -m retrolua.mcp with this binary as the emulator: an MCP server on stdin/stdout whose
            tools open a game, step it with buttons held, take screenshots, read and write memory, keep named
            states and run Lua in its console. With --attach it drives a game already running (the one this
            user runs, or PID's, or the control socket unix:PATH) instead; closing the client leaves that game
            running, and step does not run a game the person paused. Needs the Python package with its extra:
            pip install 'retrolua[mcp]'. The MCP clients' configuration: docs/guides/mcp.md.
            """, takesFiles: false)

    static func main(_ raw: [String]) -> Never {
        if raw.contains("--help") || raw.contains("-h") {
            print(spec.helpText)
            exit(0)
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import retrolua.mcp, mcp"]
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil, (check.waitUntilExit(), check.terminationStatus).1 == 0 else {
            fail("mcp: needs Python's retrolua package with the mcp SDK: pip install 'retrolua[mcp]'")
        }
        setenv("RETROLUA", ownPath(), 1)
        let argv = ["/usr/bin/env", "python3", "-m", "retrolua.mcp"] + raw
        var cArguments = argv.map { strdup($0) } + [nil]
        execv("/usr/bin/env", &cArguments)
        fail("mcp: cannot start python3: \(String(cString: strerror(errno)))")
    }

    /// This binary's absolute path (the server launches it for each game).
    private static func ownPath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
