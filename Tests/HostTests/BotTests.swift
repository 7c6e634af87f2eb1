@testable import Emulation
import Foundation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Media

/// The example bots on the Dodge game (examples/roms/dodge): each reaches its goal, deterministically.
final class BotTests: XCTestCase {
    static let dodge = Fixtures.root + "/build/roms/dodge.nes"

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        guard FileManager.default.fileExists(atPath: Self.dodge) else {
            XCTFail("\(Self.dodge) is missing: run scripts/setup (it builds the test ROMs)")
            throw XCTSkip("dodge.nes not built")
        }
    }

    private func bot(_ name: String) -> String { Fixtures.root + "/examples/bots/\(name).lua" }

    private func json(_ result: Fixtures.Result) throws -> [String: Any] {
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").last)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testTheReactiveBotWinsAndRandomPlayDoesNot() throws {
        let reactive = try Fixtures.cli(["run", Self.dodge, "--headless", "--script", bot("reactive"), "--json"])
        XCTAssertEqual(reactive.status, 0, reactive.stderr)
        XCTAssertEqual(reactive.stdout.split(separator: "\n").first, "won in 2603 frames, score 50, lives 3")
        let results = try XCTUnwrap(try json(reactive)["results"] as? [String: Any])
        XCTAssertEqual(results["frames_to_5"] as? Int, 307)

        let random = try Fixtures.cli(["run", Self.dodge, "--headless", "--script", bot("random_play"), "--quiet"])
        XCTAssertEqual(random.status, 1, "random play loses")
        XCTAssertEqual(random.stdout.split(separator: "\n").first, "lost at frame 1478, score 1")
    }

    func testTheSearchBotBeatsTheReactiveBotAndItsMovieVerifies() throws {
        // By default the movie goes to the data folder, never into the source tree (sandboxed: no --allow-files).
        let home = Fixtures.temporaryFolder()
        let written = home + "/.local/share/retrolua/data/dodge-search.rlm"
        let tracked = try String(contentsOfFile: Fixtures.root + "/examples/bots/dodge-search.rlm", encoding: .utf8)
        let result = try Fixtures.cli(
            ["run", Self.dodge, "--headless", "--quiet", "--script", bot("search")], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("reached score 5 in 153 frames"), result.stdout)
        let frames = Int(result.stdout.split(separator: " ")[4]) ?? .max
        XCTAssertLessThan(
            frames, 307, "fewer frames to 5 points than the reactive bot (frames_to_5 = 307, tested above)")
        func inputLines(_ path: String) throws -> [Substring] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").drop { $0 != "[input]" }.map { $0 }
        }
        XCTAssertEqual(
            try inputLines(written), try inputLines(Fixtures.root + "/examples/bots/dodge-search.rlm"),
            "the checked-in movie is what the search finds")
        XCTAssertEqual(
            try String(contentsOfFile: Fixtures.root + "/examples/bots/dodge-search.rlm", encoding: .utf8), tracked,
            "the tracked movie is left alone")
        let verified = try Fixtures.cli(["movie", "verify", Fixtures.root + "/examples/bots/dodge-search.rlm"])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.hasPrefix("in sync  153 frames"), verified.stdout)
    }

    func testTheOverlayBotDrawsWhatItSeesAndScores() throws {
        let shot = Fixtures.temporaryFolder() + "/overlay.png"
        let result = try Fixtures.cli([
            "run", Self.dodge, "--headless", "--frames", "700", "--script", bot("overlay"),
            "--screenshot", shot, "--json",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let results = try XCTUnwrap(try json(result)["results"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(results["score"] as? Int ?? 0, 5)
        let image = try PNGRead.rgb(shot)
        func count(_ color: UInt32) -> Int {
            var total = 0
            for y in 0..<224 {
                for x in 0..<image.width where image.pixel(x, y) == color { total += 1 }
            }
            return total
        }
        XCTAssertGreaterThan(count(0xFFFF00), 10, "the line to the coin")
        XCTAssertGreaterThan(count(0xFFA500) + count(0xFF0000), 20, "boxes around hazards")
    }
}
