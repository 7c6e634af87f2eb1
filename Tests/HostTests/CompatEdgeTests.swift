import Foundation
import XCTest

/// The edge of the compatibility layers where published scripts stopped (issue 25): how a script file is read
/// (a UTF-8 BOM), where its relative writes go, what ends a run, the names a few layers missed, what `auto`
/// reads, and the errors a script gets when it uses a name that is not there.
final class CompatEdgeTests: XCTestCase {
    private static let fixtures = Fixtures.root + "/Tests/Fixtures/compat/edge/"
    private static let gbaROM = Fixtures.root + "/build/roms/demo.gba"
    private var folder = ""

    override func setUpWithError() throws {
        try Fixtures.requireROMs()
        folder = Fixtures.temporaryFolder()
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(
        _ arguments: [String], rom: String = Fixtures.nesROM, timeout: Double = 60
    ) throws
        -> Fixtures.Result
    {
        try Fixtures.cli(["run", rom, "--headless", "--quiet"] + arguments, timeout: timeout)
    }

    func testAHeadlessRunEndsWhenItsLayerRunScriptHasEnded() throws {
        // No frame limit: the run ends because the script is done (it registered nothing). Before, the FCEUX,
        // BizHawk and mGBA layers' own callbacks kept it alive until killed.
        let script = try write("print('main chunk done')\n", "done.lua")
        for (layer, rom) in [
            ("fceux", Fixtures.nesROM), ("bizhawk", Fixtures.nesROM), ("mesen", Fixtures.nesROM),
            ("mgba", Self.gbaROM),
        ] {
            let result = try run(["--compat", layer, "--script", script], rom: rom, timeout: 20)
            XCTAssertEqual(result.status, 0, layer + ": " + result.stderr)
            XCTAssertTrue(result.stdout.contains("main chunk done"), layer + ": " + result.stdout)
        }
        // A script that registered a callback still runs (here until the frame limit), and BizHawk's unfinished
        // console.write line is still written when the run ends.
        let kept = try write(
            "local n = 0\nFCEU.registerafter(function() n = n + 1 end)\n"
                + "emu.registerexit(function() print('frames seen', n) end)\n", "kept.lua")
        let fceux = try run(["--compat", "fceux", "--frames", "12", "--script", kept], timeout: 20)
        XCTAssertEqual(fceux.status, 0, fceux.stderr)
        XCTAssertTrue(fceux.stdout.contains("frames seen\t12"), fceux.stdout + fceux.stderr)
        let partial = try write("console.write('no newline')\n", "partial.lua")
        let bizhawk = try run(["--compat", "bizhawk", "--script", partial], timeout: 20)
        XCTAssertEqual(bizhawk.status, 0, bizhawk.stderr)
        XCTAssertTrue(bizhawk.stdout.contains("no newline"), bizhawk.stdout + bizhawk.stderr)
    }
}
