@testable import Emulation
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting
import Libretro
import Media

/// The homebrew NES ROM on nestopia; RAM layout in examples/roms/nes/README.md.
final class NESCoreTests: XCTestCase {
    private enum RAM {
        static let frameLow = 0x00, frameHigh = 0x01, joypad = 0x02, x = 0x03, y = 0x04, aCount = 0x05, tone = 0x06
    }

    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testFrameCounterAdvancesOncePerFrame() throws {
        let session = try Fixtures.session()
        defer { try? session.close() }
        session.run(10)
        let before = session.systemRAM()[RAM.frameLow]
        session.run(50)
        let ram = session.systemRAM()
        XCTAssertEqual(Int(ram[RAM.frameLow]) - Int(before), 50)
        XCTAssertEqual(session.frameCount, 60)
        XCTAssertEqual(session.lagCount, 0, "the demo polls the joypad every frame")
    }

    func testExactRAMAfterKnownInputs() throws {
        let session = try Fixtures.session()
        defer { try? session.close() }
        session.run(10)
        var ram = session.systemRAM()
        XCTAssertEqual(ram[RAM.x], 120)
        XCTAssertEqual(ram[RAM.y], 112)
        session.run(10, holding: [.right])
        session.run(5, holding: [.down])
        session.run(1)
        for _ in 0..<3 {
            session.run(1, holding: [.a])
            session.run(1)
        }
        ram = session.systemRAM()
        XCTAssertEqual(ram[RAM.x], 130)
        XCTAssertEqual(ram[RAM.y], 117)
        XCTAssertEqual(ram[RAM.aCount], 3)
        session.run(1, holding: [.b, .left])
        ram = session.systemRAM()
        XCTAssertEqual(ram[RAM.tone], 1)
        XCTAssertEqual(ram[RAM.joypad], 0b0100_0010, "B and Left in the NES read order")
        XCTAssertEqual(ram[RAM.x], 129)
    }

    func testSavestateRoundTripRestoresRAMAndFrames() throws {
        let session = try Fixtures.session()
        defer { try? session.close() }
        session.run(30, holding: [.right])
        let state = try session.core.serialize()
        func play() -> ([UInt8], String?) {
            session.run(20, holding: [.down, .a])
            let report = Emulator(session: session).runFrames(limit: 1)
            return (session.systemRAM(), report.frameHash)
        }
        let first = play()
        try session.core.unserialize(state)
        let second = play()
        XCTAssertEqual(first.0, second.0)
        XCTAssertNotNil(first.1)
        XCTAssertEqual(first.1, second.1)
    }

    func testCorruptStateIsRefusedAndTheGameGoesOn() throws {
        let session = try Fixtures.session()
        defer { try? session.close() }
        session.run(10)
        let state = try session.core.serialize()
        XCTAssertThrowsError(try session.core.unserialize(Array(state.prefix(state.count / 3)))) { error in
            XCTAssertTrue("\(error)".contains("truncated"), "\(error)")
        }
        XCTAssertThrowsError(try session.core.unserialize([]))
        XCTAssertThrowsError(try session.core.unserialize(state.map { $0 ^ 0x5A })) { error in
            XCTAssertTrue("\(error)".contains("refused the state"), "\(error)")
        }
        session.run(5, holding: [.right])
        XCTAssertEqual(session.systemRAM()[RAM.x], 125, "a refused state leaves the game as it was")
    }

    func testKnownColoursReachTheFrame() throws {
        let session = try Fixtures.session()
        defer { try? session.close() }
        session.run(30)
        let frame = try XCTUnwrap(Emulator(session: session).runFrames(limit: 1).lastFrame)
        XCTAssertEqual(frame.format, .xrgb8888)
        let ram = session.systemRAM()
        // nestopia crops 8 lines of overscan at the top by default.
        let top = frame.height == 224 ? 8 : 0
        let sprite = frame.rgb(x: Int(ram[RAM.x]) + 3, y: Int(ram[RAM.y]) + 1 + 3 - top)
        let background = frame.rgb(x: 10, y: 10)
        XCTAssertEqual(background, Fixtures.nesBlue)
        XCTAssertEqual(sprite, Fixtures.nesRed)
    }

    func testOptionsComeFromFilesAndCommandLine() throws {
        let folder = Fixtures.temporaryFolder()
        try FileManager.default.createDirectory(
            atPath: folder + "/config/options/nestopia", withIntermediateDirectories: true)
        try "nestopia_overscan_v = \"disabled\"\nnestopia_nospritelimit = \"enabled\"\n"
            .write(toFile: folder + "/config/options/nestopia.opt", atomically: true, encoding: .utf8)
        try "nestopia_nospritelimit = \"disabled\"\n"
            .write(toFile: folder + "/config/options/nestopia/demo.opt", atomically: true, encoding: .utf8)
        var warnings: [String] = []
        let session = try Fixtures.session(
            folder: folder, options: [("nestopia_favored_system", "pal"), ("no_such_option", "1")],
            warn: { warnings.append($0) })
        defer { try? session.close() }
        XCTAssertEqual(session.core.options.value("nestopia_overscan_v"), "disabled")
        XCTAssertEqual(
            session.core.options.value("nestopia_nospritelimit"), "disabled", "per-game file overrides per-core file")
        XCTAssertEqual(session.core.options.value("nestopia_favored_system"), "pal")
        XCTAssertEqual(warnings, ["core 'nestopia' has no option 'no_such_option' (see its options with --verbose)"])
        session.run(2)
        let frame = try XCTUnwrap(Emulator(session: session).runFrames(limit: 1).lastFrame)
        XCTAssertEqual(frame.height, 240, "overscan cropping turned off through the option file")
    }
}

extension Fixtures {
    /// NES colours $12 and $16 as nestopia's default palette renders them.
    static let nesBlue: UInt32 = 0x153CFE
    static let nesRed: UInt32 = 0xD22C00
}
