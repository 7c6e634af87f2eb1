import Foundation
import Media
import XCTest

@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// A script's memory cap covers what the host keeps on its behalf, not only its Lua heap.
final class ScriptMemoryCapTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func harness(limitMB: Int) throws -> ScriptHarness {
        try ScriptHarness { options in
            options.memoryLimit = limitMB << 20
            options.allowFiles = true
        }
    }

    func testSavestateDataAndResultsCountAgainstTheCap() throws {
        let harness = try harness(limitMB: 48)
        defer { harness.close() }
        try harness.load(
            """
            local mb = string.rep("x", 1 << 20)
            -- Replacing one key never adds up: the old value's charge is given back.
            for _ = 1, 100 do savestate.data("same", mb) end
            -- Distinct keys add up until the cap refuses one: without the host's share counted, all 64
            -- (64 MB kept by the host) would pass a 48 MB cap.
            local function fill(store, prefix)
              for i = 1, 64 do
                local ok, problem = pcall(store, prefix .. i, mb)
                if not ok then return i - 1, problem end
              end
              return 64
            end
            local kept, problem = fill(savestate.data, "k")
            assert(kept > 30 and kept < 48, kept)
            assert(problem:find("savestate.data: the value", 1, true) and problem:find("memory limit of 48 MB", 1, true),
              problem)
            for i = 1, kept do savestate.data("k" .. i, nil) end  -- removing data gives its bytes back
            local results, why = fill(emu.result, "r")
            assert(results > 30 and results < 48 and why:find("emu.result: the value", 1, true), why)
            for i = 1, results do emu.result("r" .. i, nil) end
            assert(pcall(savestate.data, "again", mb))
            print("ok " .. kept)
            """)
        harness.run(2)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertTrue(harness.lines.first?.hasPrefix("ok ") ?? false, harness.output + harness.errors)
    }

    func testDecodedImagesCountAgainstTheCap() throws {
        let folder = Fixtures.temporaryFolder()
        // 1500 × 1500 RGBA: 9 MB decoded from a small file.
        try PNGFile.write(
            rgba: [UInt8](repeating: 200, count: 1500 * 1500 * 4), width: 1500, height: 1500, to: folder + "/big.png")
        let harness = try harness(limitMB: 8)
        defer { harness.close() }
        try harness.load(
            """
            local image, problem = gui.load_image("\(folder)/big.png")
            assert(image == nil and problem:find("big.png", 1, true) and problem:find("memory limit of 8 MB", 1, true),
              tostring(problem))
            local ok, why = pcall(gui.image, 0, 0, "\(folder)/big.png")
            assert(not ok and why:find("gui.image", 1, true), why)
            print("ok")
            """)
        harness.run(1)
        for failure in harness.failures { XCTFail(failure.message) }
        XCTAssertEqual(harness.lines, ["ok"])
    }
}
