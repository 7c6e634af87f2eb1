@testable import Emulation
import Foundation
import XCTest

/// One malformed input for a child `retrolua run`: a Lua expression that must fail (raise, or
/// return `nil, message`) with a message containing every `expect` string.
struct BadCase {
    let name: String
    let lua: String
    let expect: [String]

    init(_ name: String, _ lua: String, expect: [String]) {
        self.name = name
        self.lua = lua
        self.expect = expect
    }
}

/// Runs malformed-input cases in child processes, so a trap fails the test that found it instead
/// of killing the suite, and builds the crafted files they read.
enum BadInput {
    typealias Child = Fixtures.Result

    /// `retrolua ARGS` in `folder` (HOME there too), with a 120 s guard against hangs.
    static func run(_ arguments: [String], in folder: String) throws -> Child {
        try Fixtures.run(
            Fixtures.binary, arguments, in: folder, environment: Fixtures.headlessEnvironment(home: folder),
            closedInput: false)
    }

    /// Runs every case in one child (then `frames` frames, so per-frame work such as RAM cheats runs
    /// too) and checks each case's message. Returns the number of cases checked.
    @discardableResult
    static func check(
        _ cases: [BadCase], rom: String = Fixtures.nesROM, in folder: String = Fixtures.temporaryFolder(),
        frames: Int = 2, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        let table = cases.map { "{name = [==[\($0.name)]==], code = [==[\($0.lua)]==]}" }.joined(separator: ",\n")
        let script = """
            local cases = {\(table)}
            local function runCases()
              for _, c in ipairs(cases) do
                local f = assert(load("return " .. c.code, c.name))
                local ok, a, b = pcall(f)
                local message
                if not ok then message = tostring(a) elseif a == nil then message = tostring(b)
                else message = "RETURNED " .. tostring(a) end
                io.stdout:write("CASE\\t", c.name, "\\t", (message:gsub("\\n", " ")), "\\n")
                io.stdout:flush()
              end
            end
            -- After the first frame (so there is a picture and a state), then `frames` more.
            local frames = 0
            event.on("frame_end", function()
              if frames == 0 then runCases() end
              frames = frames + 1
              if frames > \(frames) then io.stdout:write("FRAMES\\tdone\\n"); io.stdout:flush(); emu.exit() end
            end)
            """
        let path = folder + "/cases.lua"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let child = try run(
            ["run", rom, "--headless", "--frames", String(frames + 8), "--script", path, "--quiet"], in: folder)
        var messages: [String: String] = [:]
        for resultLine in child.stdout.split(separator: "\n") where resultLine.hasPrefix("CASE\t") {
            let parts = resultLine.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3 { messages[String(parts[1])] = String(parts[2]) }
        }
        for badCase in cases {
            guard let message = messages[badCase.name] else {
                XCTFail(
                    """
                    \(badCase.name): no result; the child ended with status \(child.status) (a trap?): \
                    \(child.stderr.suffix(600))
                    """, file: file, line: line)
                return messages.count
            }
            XCTAssertFalse(
                message.hasPrefix("RETURNED"), "\(badCase.name): accepted (\(message))", file: file, line: line)
            for needle in badCase.expect {
                XCTAssertTrue(
                    message.contains(needle), "\(badCase.name): '\(message)' does not mention '\(needle)'", file: file,
                    line: line)
            }
        }
        XCTAssertTrue(
            child.stdout.contains("FRAMES\tdone"), "frames after the cases did not run: \(child.stderr.suffix(600))",
            file: file, line: line)
        XCTAssertEqual(child.status, 0, child.stderr, file: file, line: line)
        return cases.count
    }

    // MARK: Crafted savestates

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// A container in the layout `StateContainer` documents, with every field chosen by the caller.
    static func state(
        version: UInt16 = 2, core: String = "Nestopia", sha1: String = "", frame: UInt64 = 1, lag: UInt64 = 0,
        coreState: [UInt8] = [1, 2, 3], stateSize: UInt32? = nil, entries: [(String, [UInt8])] = [],
        entryCount: UInt32? = nil, movie: [UInt8] = [], movieSize: UInt32? = nil
    ) -> [UInt8] {
        var out = Array("RLST".utf8) + le(version)
        out += le(UInt16(core.utf8.count)) + Array(core.utf8)
        out += le(UInt16(sha1.utf8.count)) + Array(sha1.utf8)
        out += le(frame) + le(lag) + le(stateSize ?? UInt32(coreState.count)) + coreState
        out += le(entryCount ?? UInt32(entries.count))
        for (key, value) in entries {
            out += le(UInt16(key.utf8.count)) + Array(key.utf8) + le(UInt32(value.count)) + value
        }
        if version >= 2 { out += le(movieSize ?? UInt32(movie.count)) + movie }
        return out
    }

    /// A movie block (`MovieStateBlock`) with chosen counts.
    static func movieBlock(frame: UInt64, records: [UInt8], recordCount: UInt32? = nil, hashes: UInt32 = 0) -> [UInt8] {
        le(UInt16(4)) + Array("guid".utf8) + le(frame) + [1, 0] + le(recordCount ?? UInt32(records.count)) + records
            + le(hashes)
    }

    /// A small valid `.rlm` of `frames` frames on one port.
    static func rlm(frames: Int = 2) -> String {
        var movie = Movie(ports: 1)
        movie.guid = "bad-input"
        movie.coreName = "nestopia"
        for frame in 0..<frames { movie.log.set(frame, input: .init(), flags: []) }
        return String(decoding: MovieText.encode(movie), as: UTF8.self)
    }

    static func fifo(_ path: String) -> String {
        precondition(mkfifo(path, 0o644) == 0, "mkfifo \(path)")
        return path
    }

    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }
}
