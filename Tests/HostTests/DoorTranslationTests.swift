@testable import Emulation
import Foundation
@testable import Libretro
import XCTest
@testable import Control
@testable import Frontend
@testable import Run
@testable import Scripting

/// Each door only translates the emulator's answers (the rules themselves: `EmulatorRulesTests`):
/// the same refusal reads the same from Lua (`nil, message`) and from the control socket (`error`), and
/// the same screen, memory and description read the same from Lua, the JSON commands and the binary door.
final class DoorTranslationTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// One emulator behind both doors, with a script that answers `ask(lua)` and counts reset events.
    private func doors() throws -> (ScriptHarness, ControlSession) {
        let harness = try ScriptHarness()
        try harness.load(
            """
            resets = 0
            event.on("reset", function() resets = resets + 1 end)
            function ask(chunk)
              local value, message = load(chunk)()
              if value == nil and message ~= nil then return "refused: " .. tostring(message) end
              return "ok"
            end
            """)
        harness.run(5)
        return (
            harness,
            ControlSession(emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        )
    }

    private func lua(_ harness: ScriptHarness, _ chunk: String) throws -> String {
        let script = try XCTUnwrap(harness.host.scripts.first)
        guard case .success(let values) = script.evaluate("return ask([==[\(chunk)]==])") else {
            XCTFail("ask failed"); return ""
        }
        return values.first as? String ?? "?"
    }

    private func socket(_ control: ControlSession, _ request: String) throws -> String {
        let reply = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(control.handle(request).utf8)) as? [String: Any])
        return reply["ok"] as? Bool == true ? "ok" : "refused: " + (reply["error"] as? String ?? "?")
    }

    func testHardcoreRefusalsReadTheSameFromLuaAndTheSocket() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        XCTAssertEqual(try socket(control, #"{"cmd":"save_state","slot":1}"#), "ok")
        try harness.host.emulator.setHardcore(true)

        let write = (
            try lua(harness, "return memory.write_u8(0x10, 1)"),
            try socket(control, #"{"cmd":"write","address":16,"data":"AQ=="}"#)
        )
        XCTAssertEqual(write.0, "refused: memory writes are not allowed in hardcore mode")
        XCTAssertEqual(write.0, write.1)
        let load = (
            try lua(harness, "return savestate.load(1)"), try socket(control, #"{"cmd":"load_state","slot":1}"#)
        )
        XCTAssertEqual(load.0, "refused: state loads are not allowed in hardcore mode")
        XCTAssertEqual(load.0, load.1)
        // Resetting is allowed in hardcore from both doors, and both fire the scripts' reset event
        // (turning hardcore on reset the game once already).
        XCTAssertEqual(try lua(harness, "return emu.reset()"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"reset"}"#), "ok")
        harness.run(1)
        XCTAssertEqual(try lua(harness, "return resets == 3 or nil, resets"), "ok")
    }

    func testReadOnlyMovieRefusalsReadTheSameFromLuaAndTheSocket() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        let path = harness.folder + "/door.rlm"
        XCTAssertEqual(try socket(control, #"{"cmd":"save_state","slot":2}"#), "ok")  // outside the movie
        XCTAssertEqual(try lua(harness, "return movie.record('\(path)')"), "ok")
        harness.run(20)
        XCTAssertEqual(try lua(harness, "return movie.stop()"), "ok")
        XCTAssertEqual(try lua(harness, "return movie.play('\(path)', {readonly = true})"), "ok")
        harness.run(3)

        let reset = (try lua(harness, "return emu.reset()"), try socket(control, #"{"cmd":"reset"}"#))
        XCTAssertEqual(reset.0, "refused: a movie is playing: its resets are part of its input")
        XCTAssertEqual(reset.0, reset.1)
        let load = (
            try lua(harness, "return savestate.load(2)"), try socket(control, #"{"cmd":"load_state","slot":2}"#)
        )
        XCTAssertTrue(load.0.hasPrefix("refused: ") && load.0.contains("not made during this movie"), load.0)
        XCTAssertEqual(load.0, load.1)
        // Memory writes are not input: both doors allow them during playback.
        XCTAssertEqual(try lua(harness, "return memory.write_u8(0x10, 1)"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"write","address":16,"data":"AQ=="}"#), "ok")
        XCTAssertEqual(try lua(harness, "return resets == 0 or nil, resets"), "ok")
    }

    func testTheSocketWritesExactlyTheBytesItIsGiven() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        // A length that disagrees with the data is refused, and nothing is written.
        let big = Data(repeating: 0xAB, count: 4096).base64EncodedString()
        let reply = try socket(control, #"{"cmd":"write","address":2047,"length":1,"data":"\#(big)"}"#)
        XCTAssertTrue(reply.hasPrefix("refused: \"length\" (1) differs from the 4096 bytes"), reply)
        let past = try socket(control, #"{"cmd":"write","address":2047,"data":"\#(big)"}"#)
        XCTAssertEqual(past, "refused: address 0x7FF (4096 bytes) is outside 'system_ram' (size 0x800)")
        XCTAssertEqual(try lua(harness, "return memory.read_u8(0x7FF) ~= 0xAB or nil"), "ok")
        XCTAssertEqual(try socket(control, #"{"cmd":"write","address":2047,"data":"qw=="}"#), "ok")
        XCTAssertEqual(try lua(harness, "return memory.read_u8(0x7FF) == 0xAB or nil"), "ok")
    }

    // MARK: - The binary door, driven through its handler (what the Python package sends over the socket)

    /// A binary request (`ControlBinaryProtocol`'s header, no payload) and its reply: status, the seven
    /// integer fields (frame, frames, lag, done, width, height, length) and the message.
    private func binary(
        _ door: ControlBinaryDoor, _ command: ControlBinaryProtocol.Command, count: UInt32 = 0, a: UInt64 = 0,
        b: UInt64 = 0
    ) throws -> (status: UInt32, fields: [Int], message: String) {
        var request: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { request += $0 } }
        put(command.rawValue)
        put(UInt32(0))  // flags
        put(UInt32(0))  // payload length
        put(count)
        put(a)
        put(b)
        guard case .reply(let reply) = door.start(request[...]) else { throw XCTSkip("a step is not a reply") }
        func long(_ offset: Int) -> Int {
            (0..<8).reduce(0) { $0 | Int(reply[offset + $1]) << ($1 * 8) }
        }
        let status = UInt32(truncatingIfNeeded: long(0) & 0xFFFF_FFFF)
        let message = String(decoding: reply[ControlBinaryProtocol.replySize...], as: UTF8.self)
        return (status, (0..<7).map { long(8 + $0 * 8) }, message)
    }

    private func json(_ control: ControlSession, _ request: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(control.handle(request).utf8)) as? [String: Any])
    }

    private static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Lua's bytes of a string-returning chunk, as hex.
    private func luaHex(_ harness: ScriptHarness, _ chunk: String) throws -> String {
        let script = try XCTUnwrap(harness.host.scripts.first)
        let source = "local s = \(chunk); return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))"
        guard case .success(let values) = script.evaluate(source) else {
            XCTFail("\(chunk) failed"); return ""
        }
        return values.first as? String ?? "?"
    }

    func testTheHandshakeDescribesTheEmulatorAsInfoDoes() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        let info = try json(control, #"{"cmd":"info"}"#)
        let handshake = try ControlBinaryDoor(session: control).handshake
        let domains = try XCTUnwrap(info["domains"] as? [[String: Any]])
        XCTAssertEqual(domains.map { $0["name"] as? String }, harness.host.emulator.memory.names)
        XCTAssertEqual(
            domains.map { "\($0["name"]!)=\($0["size"]!)" },
            try XCTUnwrap(handshake["domains"] as? [[String: Any]]).map { "\($0["name"]!)=\($0["size"]!)" })
        let index = try XCTUnwrap(handshake["default_domain"] as? Int)
        XCTAssertEqual(info["default_domain"] as? String, "system_ram")
        XCTAssertEqual(domains[index]["name"] as? String, "system_ram")
        XCTAssertEqual(info["buttons"] as? [String], handshake["buttons"] as? [String])
        XCTAssertEqual((info["buttons"] as? [String])?.first, "b")
    }

    /// fceumm's bus maps RAM at $0000-$07FF and its mirror from $0800: $07F0-$080F is two runs of host
    /// memory, which the binary door once refused while Lua and JSON gathered it.
    func testABusRangeAcrossTwoRunsReadsTheSameThroughEveryDoor() throws {
        let (harness, control) = try doors()
        defer { harness.close() }
        let memory = harness.host.emulator.memory
        let bus = try XCTUnwrap(memory.names.firstIndex(of: "bus"), "fceumm's memory map gives a bus")
        let ram = try memory.domain(named: "system_ram")
        try harness.host.emulator.write((0..<0x800).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }, to: ram, address: 0)
        XCTAssertNil(memory.resolve(memory.domains[bus], address: 0x7F0, width: 0x20), "not one run")

        let lua = try luaHex(harness, #"memory.read_bytes(0x7F0, 0x20, "bus")"#)
        let expected =
            Self.hex((0x7F0..<0x800).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
            + Self.hex((0..<0x10).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        XCTAssertEqual(lua, expected, "the bus mirrors RAM from $0800")
        let reply = try json(control, #"{"cmd":"read","domain":"bus","address":2032,"length":32}"#)
        XCTAssertEqual(Self.hex(Data(base64Encoded: try XCTUnwrap(reply["data"] as? String)) ?? Data()), lua)

        let door = try ControlBinaryDoor(session: control)
        let read = try binary(door, .read, count: UInt32(bus), a: 0x7F0, b: 0x20)
        XCTAssertEqual(read.status, 0, read.message)
        XCTAssertEqual(read.fields[6], 0x20)
        XCTAssertEqual(Self.hex(UnsafeRawBufferPointer(start: door.region.base + door.ram.offset, count: 0x20)), lua)
        // Unmapped bytes are refused alike (fceumm maps nothing at $2000 on its bus).
        let unmapped = try binary(door, .read, count: UInt32(bus), a: 0x1FF0, b: 0x20)
        XCTAssertEqual(unmapped.status, 1)
        XCTAssertEqual(
            "refused: " + unmapped.message,
            try socket(control, #"{"cmd":"read","domain":"bus","address":8176,"length":32}"#))
    }

    // MARK: - A GL core whose frames are in another format than the one it declared

    private static let glFolder = Fixtures.temporaryFolder()

    /// The GL test core (Tests/cores/gl_core.c, built here) behind a harness, declaring RGB565 for its
    /// software frames while its GL frames are read back as XRGB8888 (as a core with a software fallback may).
    private func glDoors() throws -> (ScriptHarness, ControlSession) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { throw XCTSkip("no C compiler") }
        let core = Self.glFolder + "/gl_core_libretro.so", content = Self.glFolder + "/pattern.glt"
        if !FileManager.default.fileExists(atPath: core) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
            process.arguments = ["-shared", "-fPIC", "-O1", "-o", core, Fixtures.root + "/Tests/cores/gl_core.c"]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "cc gl_core.c")
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: content, contents: Data("gl".utf8)))
        let harness = try ScriptHarness(rom: content, core: core)
        try harness.load("function ask() return 'ok' end")
        harness.session.core.pixelFormat = .rgb565
        harness.run(10)
        XCTAssertEqual(harness.session.core.framePixelFormat, .xrgb8888)
        return (
            harness,
            ControlSession(emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        )
    }

    func testAGLCoresScreenReadsTheSameThroughEveryDoor() throws {
        let (harness, control) = try glDoors()
        defer { harness.close() }
        let lua = try luaHex(harness, #"gui.frame("rgb")"#)
        let frame = try json(control, #"{"cmd":"frame","format":"rgb"}"#)
        XCTAssertEqual([frame["width"] as? Int, frame["height"] as? Int], [160, 120])
        XCTAssertEqual(Self.hex(Data(base64Encoded: try XCTUnwrap(frame["data"] as? String)) ?? Data()), lua)
        XCTAssertTrue(lua.hasPrefix("504000"), "the background after 10 frames: red 0x50, green 0x40")

        let door = try ControlBinaryDoor(session: control)
        let screen = try binary(door, .screen)
        XCTAssertEqual(screen.status, 0, screen.message)
        XCTAssertEqual(Array(screen.fields[4...6]), [160, 120, 160 * 120 * 3])
        let bytes = UnsafeRawBufferPointer(start: door.region.base + door.screen.offset, count: 160 * 120 * 3)
        XCTAssertEqual(Self.hex(bytes), lua)
        // The frame decoded in the format the core declared (as the door once did) is another picture.
        let buffer = try XCTUnwrap(harness.session.core.lastFrameBuffer)
        var misread = [UInt8](repeating: 0, count: 160 * 120 * 3)
        VideoFrame.writeRGB(
            from: buffer.data, width: 160, height: 120, pitch: buffer.pitch, format: harness.session.core.pixelFormat,
            into: &misread)
        XCTAssertNotEqual(Self.hex(misread), lua, "the test tells the two decodings apart")
    }

    /// A movie's picture hash covers every byte of each row, in the frame's own format (it once took the
    /// row's length from the declared format: half of each XRGB8888 row of a GL core declaring RGB565).
    func testThePictureHashCoversWholeRowsOfAGLFrame() throws {
        let (harness, _) = try glDoors()
        defer { harness.close() }
        let frame = try XCTUnwrap(harness.session.core.currentFrame())
        XCTAssertEqual(frame.pixels.count, 160 * 120 * 4)
        XCTAssertEqual(harness.host.emulator.movie.hash(.frame), Self.crc32(frame.pixels))
        XCTAssertNotEqual(Self.crc32(frame.pixels), Self.crc32(halfRows(frame)), "the test tells the two apart")
    }

    private func halfRows(_ frame: VideoFrame) -> [UInt8] {
        (0..<frame.height).flatMap { frame.pixels[($0 * frame.width * 4)..<($0 * frame.width * 4 + frame.width * 2)] }
    }

    /// CRC-32 (zlib's), as the verification log writes it.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
