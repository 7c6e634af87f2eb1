import Foundation
import XCTest
@testable import Emulation
import Libretro
import Support

/// Issue 14's matrix: every system's cores on our own content (SystemMatrix.cells), each through
/// the same checks in real `retrolua` processes, two cells at a time. Prints the matrix.
final class SystemMatrixTests: XCTestCase {
    private enum Verdict {
        case pass
        case fail(String)
        init(_ problem: String?) { self = problem.map { .fail($0) } ?? .pass }
    }
    private typealias Outcome = [MatrixCheck: Verdict]

    func testEverySystemsCoresPassTheMatrix() throws {
        try Fixtures.requireROMs()
        let cells = SystemMatrix.cells
        let collected = Collected(count: cells.count)
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for index in stride(from: lane, to: cells.count, by: 2) {
                collected.set(index, Self.check(cells[index]))
            }
        }
        let outcomes = collected.all
        var table = [
            "system / core".padding(toLength: 44, withPad: " ", startingAt: 0)
                + MatrixCheck.allCases.map { $0.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined()
        ]
        for (cell, outcome) in zip(cells, outcomes) {
            var row = cell.name.padding(toLength: 44, withPad: " ", startingAt: 0)
            for check in MatrixCheck.allCases {
                let verdict = outcome[check] ?? .fail("not run")
                switch (verdict, cell.expected[check]) {
                case (.pass, nil): row += "pass        "
                case (.pass, let why?):
                    row += "PASS(xfail) "
                    XCTFail("\(cell.name) \(check.rawValue) now passes: remove its expectation (\(why))")
                case (.fail(let problem), nil):
                    row += "FAIL        "
                    XCTFail("\(cell.name) \(check.rawValue): \(problem)")
                case (.fail, _?): row += "xfail       "
                }
            }
            table.append(row)
        }
        print(table.joined(separator: "\n"))
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Outcome]
        init(count: Int) { outcomes = Array(repeating: [:], count: count) }
        func set(_ index: Int, _ outcome: Outcome) { lock.withLock { outcomes[index] = outcome } }
        var all: [Outcome] { lock.withLock { outcomes } }
    }

    /// Runs one cell's checks; never throws, so one broken core cannot hide the others.
    private static func check(_ cell: MatrixCell) -> Outcome {
        var outcome: Outcome = [:]
        guard FileManager.default.fileExists(atPath: cell.core) else {
            for check in MatrixCheck.allCases { outcome[check] = .fail("\(cell.core) is missing (run scripts/setup)") }
            return outcome
        }
        let folder = Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let template = try String(contentsOfFile: Fixtures.root + "/Tests/lua/system_matrix.lua", encoding: .utf8)
            try (cell.luaParameters(driveOnly: false) + template).write(
                toFile: folder + "/check.lua", atomically: true, encoding: .utf8)
            try (cell.luaParameters(driveOnly: true) + template).write(
                toFile: folder + "/drive.lua", atomically: true, encoding: .utf8)
            let first = try runChecks(cell, folder: folder, wav: "first.wav")
            let second = try runChecks(cell, folder: folder, wav: "second.wav")
            outcome[.run] = Verdict(first.problem)
            if let problem = first.problem ?? second.problem {
                outcome[.determinism] = .fail(problem)
            } else if first.frame != second.frame || first.results != second.results {
                outcome[.determinism] = .fail(
                    "runs differ: \(first.frame) \(first.results) vs \(second.frame) \(second.results)")
            } else if !FileManager.default.contentsEqual(
                atPath: folder + "/first.wav", andPath: folder + "/second.wav")
            {
                outcome[.determinism] = .fail("the audio differs")
            } else {
                outcome[.determinism] = .pass
            }
            outcome[.states] = Verdict(problem(first.results["states"]))
            outcome[.bus] = cell.bus == nil ? .pass : Verdict(problem(first.results["bus"]))
            let (movie, tamper) = try movieChecks(cell, folder: folder)
            outcome[.movie] = Verdict(movie)
            outcome[.tamper] = Verdict(tamper)
        } catch {
            for check in MatrixCheck.allCases where outcome[check] == nil { outcome[check] = .fail("\(error)") }
        }
        return outcome
    }

    private static func problem(_ result: String?) -> String? {
        result == "ok" ? nil : (result ?? "no result")
    }

    private struct Run {
        var problem: String?
        var frame = ""
        var results: [String: String] = [:]
    }

    /// One run of the check script: its frame hash and results.
    private static func runChecks(_ cell: MatrixCell, folder: String, wav: String) throws -> Run {
        let result = try Fixtures.cli(
            [
                "run", cell.rom, "--core", cell.core, "--headless", "--script", folder + "/check.lua", "--json",
                "--wav", folder + "/" + wav,
            ])
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last,
            let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let frame = (json["frame"] as? [String: Any])?["hash"] as? String,
            let results = json["results"] as? [String: Any]
        else { return Run(problem: "run failed (\(result.status)): \(result.stderr.suffix(400))") }
        var run = Run(frame: frame, results: results.mapValues { "\($0)" })
        if let pattern = cell.pattern, run.results["pattern"] != SystemMatrix.text {
            run.problem =
                "\(pattern.domain)+$\(String(pattern.offset, radix: 16)) holds \(run.results["pattern"] ?? "nothing")"
        }
        return run
    }

    /// Records the input pattern as a movie with a verification log, verifies it, then verifies a
    /// copy with one button toggled on `tamperFrame`: the first must pass, the second be caught.
    private static func movieChecks(_ cell: MatrixCell, folder: String) throws -> (String?, String?) {
        let movie = folder + "/m.rlm", tampered = folder + "/tampered.rlm"
        let recorded = try Fixtures.cli(
            [
                "movie", "record", movie, cell.rom, "--core", cell.core, "--headless", "--script",
                folder + "/drive.lua", "--verify-log", "--quiet",
            ])
        guard recorded.status == 0 else {
            let problem = "record failed (\(recorded.status)): \(recorded.stderr.suffix(400))"
            return (problem, problem)
        }
        let verified = try Fixtures.cli(["movie", "verify", movie, cell.rom, "--core", cell.core])
        let movieProblem =
            verified.status == 0 && verified.stdout.hasPrefix("in sync")
            ? nil : "verify (\(verified.status)): \(verified.stdout.prefix(300))\(verified.stderr.suffix(300))"

        var lines = try String(contentsOfFile: movie, encoding: .utf8).components(separatedBy: "\n")
        guard let buttons = lines.first(where: { $0.hasPrefix("buttons ") })?.split(separator: " ").dropFirst(),
            let column = buttons.firstIndex(of: Substring(cell.tamperButton)),
            let start = lines.firstIndex(of: "[input]"), start + 1 + cell.tamperFrame < lines.count
        else { return (movieProblem, "the movie has no \(cell.tamperButton) button or frame \(cell.tamperFrame)") }
        var line = Array(lines[start + 1 + cell.tamperFrame])
        let at = 3 + (column - 1)  // command, lag mark, "|", then port 1's columns
        line[at] = line[at] == "." ? "X" : "."
        lines[start + 1 + cell.tamperFrame] = String(line)
        try lines.joined(separator: "\n").write(toFile: tampered, atomically: true, encoding: .utf8)
        let caught = try Fixtures.cli(["movie", "verify", tampered, cell.rom, "--core", cell.core])
        let tamperProblem =
            caught.status == 1 && caught.stdout.hasPrefix("desync")
            ? nil
            : "a movie with \(cell.tamperButton) toggled on frame \(cell.tamperFrame) verified: "
                + "\(caught.status) \(caught.stdout.prefix(200))"
        return (movieProblem, tamperProblem)
    }

    /// Options given at start (here mGBA's own default) are read while loading and are no change to
    /// report: the run is the one given no options (once, mGBA re-applied them and a movie desynced).
    func testOptionsGivenAtStartLeaveTheRunAsWithout() throws {
        let rom = Fixtures.root + "/build/roms/demo.gba"
        let core = "/usr/lib/x86_64-linux-gnu/libretro/mgba_libretro.so"
        guard FileManager.default.fileExists(atPath: rom), FileManager.default.fileExists(atPath: core) else {
            throw XCTSkip("no GBA ROM or Debian mGBA")
        }
        func memory(options: [(key: String, value: String)]) throws -> [String] {
            let session = try Fixtures.session(rom: rom, core: core, options: options)
            defer { try? session.close() }
            session.run(3)
            session.run(2, holding: [.left, .right])
            session.run(3, holding: [.a])
            return session.core.memoryDomains().map {
                Hashing.sha1(UnsafeRawBufferPointer(start: $0.pointer, count: $0.size))
            }
        }
        XCTAssertEqual(try memory(options: []), try memory(options: [("mgba_gb_model", "Autodetect")]))
    }
}
