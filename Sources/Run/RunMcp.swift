import Control
import Foundation
import Glibc
import Support

/// `--mcp [HOST:]PORT`: the run serves MCP over HTTP on loopback through Python's server (`retrolua.mcp
/// --http`), a child attached to the run's control socket; `--mcp-token FILE` gives the bearer token.
public struct McpPlan: Sendable, Equatable {
    public static let defaultPort = 6502
    /// `127.0.0.1`, `::1` or `localhost`: MCP is never served beyond this machine.
    public var host: String
    public var port: Int
    /// `--mcp-token FILE`; nil: a new token per run, kept in `mcp-PORT.token` beside the data folder.
    public var tokenPath: String?

    public init(host: String = "127.0.0.1", port: Int = McpPlan.defaultPort, tokenPath: String? = nil) {
        self.host = host
        self.port = port
        self.tokenPath = tokenPath
    }

    /// `PORT`, `HOST`, `HOST:PORT`, `[::1]:PORT` (nil or empty: 127.0.0.1:6502); refuses any host but loopback.
    public static func parse(_ text: String?) throws(RunFailure) -> McpPlan {
        guard let text, !text.isEmpty else { return McpPlan() }
        var host = text
        var portText: String?
        if isDigits(text) {
            host = "127.0.0.1"
            portText = text
        } else if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { throw bad(text) }
            portText = rest.isEmpty ? nil : String(rest.dropFirst())
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])  // one colon: HOST:PORT (more: a bare IPv6 address)
            portText = String(text[text.index(after: colon)...])
        }
        let loopback = ["127.0.0.1", "::1", "localhost"]
        guard loopback.contains(host.lowercased()) else {
            throw RunFailure(
                "--mcp: MCP is served on loopback only (127.0.0.1, ::1, localhost), not \(TerminalText.printable(host))"
            )
        }
        var plan = McpPlan(host: host.lowercased())
        if let portText {
            guard portText.count <= 5, isDigits(portText), let port = Int(portText),
                (1...65535).contains(port)
            else {
                throw RunFailure("--mcp: the port must be 1…65535, got '\(TerminalText.printable(portText))'")
            }
            plan.port = port
        }
        return plan
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (48...57).contains($0) }
    }

    private static func bad(_ text: String) -> RunFailure {
        RunFailure("--mcp: '\(TerminalText.printable(text))' is not PORT, HOST:PORT or [::1]:PORT")
    }

    /// `HOST:PORT` as the server's `--http` takes it (an IPv6 host in brackets).
    public var address: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// Where clients connect.
    public var url: String { "http://\(address)/mcp" }
}

/// The MCP server child of one run: checked before the core loads, started once the control socket
/// listens, ended (SIGTERM) when the run ends. One that dies early is said; the game runs on.
final class RunMcp: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var stopping = false
    private var saidItEnded = false
    private let console: RunConsole
    /// The generated token's file, removed when the run ends.
    private let generatedTokenFile: String?

    /// Before the core loads: Python's package with the SDK, the port free, the token readable.
    static func check(_ plan: McpPlan) throws(RunFailure) {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import retrolua.mcp, mcp"]
        probe.standardInput = FileHandle.nullDevice
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil, (probe.waitUntilExit(), probe.terminationStatus).1 == 0 else {
            throw RunFailure(
                "run: --mcp: needs Python's retrolua package with the mcp SDK: pip install 'retrolua[mcp]'")
        }
        if let problem = portProblem(plan) { throw RunFailure("run: --mcp: \(plan.address): \(problem)") }
        if let path = plan.tokenPath { _ = try readToken(path) }
    }

    /// Starts `python3 -m retrolua.mcp --attach unix:SOCKET --http HOST:PORT` with the token in its environment.
    init(_ plan: McpPlan, socket: String, dataFolder: String, console: RunConsole) throws(RunFailure) {
        self.console = console
        let token: String
        if let path = plan.tokenPath {
            token = try Self.readToken(path)
            generatedTokenFile = nil
        } else {
            token = ControlAccess.generateToken()
            let path = FilePath.folder(of: dataFolder) + "/mcp-\(plan.port).token"
            do { try ControlAccess.writeToken(token, to: path) } catch {
                throw RunFailure("run: --mcp: cannot write the token to \(path)")
            }
            generatedTokenFile = path
        }
        var environment = ProcessInfo.processInfo.environment
        environment["RETROLUA"] = Self.ownPath()
        environment["RETROLUA_MCP_TOKEN"] = token
        environment["RETROLUA_MCP_PARENT"] = String(getpid())
        environment[RunParentDeath.parentVariable] = nil
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "retrolua.mcp", "--attach", "unix:" + socket, "--http", plan.address]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.standardError  // the run's stdout is its report (--json)
        process.standardError = FileHandle.standardError
        process.terminationHandler = { [weak self] _ in
            guard let self, !isStopping else { return }
            sayItEnded()
        }
        do { try process.run() } catch {
            if let generatedTokenFile { unlink(generatedTokenFile) }
            throw RunFailure("run: --mcp: cannot start python3: \(error.localizedDescription)")
        }
        console.problem("mcp: serving \(plan.url) (bearer token in \(generatedTokenFile ?? plan.tokenPath!))")
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// A server that ended before the run: said once, with why.
    private func sayItEnded() {
        lock.lock()
        let first = !saidItEnded
        saidItEnded = true
        lock.unlock()
        guard first else { return }
        let how =
            process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
        console.problem("mcp: the MCP server ended (\(how)); the game runs on without it")
    }

    /// At the run's end: SIGTERM, a moment to close its port, then SIGKILL; the generated token goes.
    func stop() {
        lock.lock()
        let first = !stopping
        stopping = true
        lock.unlock()
        guard first else { return }
        if let generatedTokenFile { unlink(generatedTokenFile) }
        // Ended by itself (its handler may not have run yet): said before the run's report.
        guard process.isRunning else { return sayItEnded() }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<300 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// `--mcp-token FILE`: its first line, 16 to 256 visible ASCII characters (it travels in an HTTP header).
    static func readToken(_ path: String) throws(RunFailure) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RunFailure("run: --mcp-token \(path): cannot read the token file")
        }
        let token = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces)
        guard (16...256).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw RunFailure(
                "run: --mcp-token \(path): the token must be 16 to 256 visible ASCII characters on the first line")
        }
        return token
    }

    /// Why the port cannot be served (in use, or the address missing), found by binding it for a moment.
    private static func portProblem(_ plan: McpPlan) -> String? {
        let ipv6 = plan.host == "::1"
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let port = in_port_t(UInt16(plan.port).bigEndian)
        let bound: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port
            address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound != 0 else { return nil }
        if errno == EADDRINUSE { return "the port is in use (another run serving MCP? give another: --mcp PORT)" }
        return String(cString: strerror(errno))
    }

    /// This binary's absolute path: the server's emulator (as `retrolua mcp` passes it).
    private static func ownPath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
