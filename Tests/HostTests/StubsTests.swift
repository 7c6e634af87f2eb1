import Foundation
import Control
import Frontend
import Run
import Scripting
import XCTest

/// The generated declarations editors and linters read (lua/types/): LuaLS stubs that declare each global
/// as a class with exactly the functions scripts get and event.on's names as an alias, and luacheck's
/// globals with exact fields, checked against what a running script really sees.
final class StubsTests: XCTestCase {
    private let stubs = Fixtures.root + "/lua/types/retrolua.lua"

    /// One declaration line of the stubs with the `---` annotation lines right above it.
    private struct Declaration {
        let annotations: [String]
        let line: String
    }

    private func declarations() throws -> [Declaration] {
        var result: [Declaration] = [], block: [String] = []
        for line in try String(contentsOfFile: stubs, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("---") {
                block.append(String(line))
            } else if line.isEmpty || line.hasPrefix("--") {
                block = []
            } else {
                result.append(Declaration(annotations: block, line: String(line)))
                block = []
            }
        }
        return result
    }

    /// Each global table a script gets and the names in it, from a script that lists them.
    private func runtimeGlobals() throws -> [String: Set<String>] {
        let folder = Fixtures.temporaryFolder()
        let names = LuaAPIStubs.globalNames.map { "\"\($0)\"" }.joined(separator: ", ")
        try """
        for _, name in ipairs({ \(names) }) do
          local keys = {}
          for key in pairs(_ENV[name]) do keys[#keys + 1] = key end
          print(name .. " " .. table.concat(keys, " "))
        end
        emu.exit(0)
        """.write(toFile: folder + "/list.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli([
            "run", "--headless", "--quiet", "--frames", "1", "--script", folder + "/list.lua",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        var globals: [String: Set<String>] = [:]
        for line in result.stdout.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            globals[words[0]] = Set(words.dropFirst())
        }
        XCTAssertEqual(Set(globals.keys), Set(LuaAPIStubs.globalNames), result.stdout)
        return globals
    }

    func testEachGlobalIsAClassWithExactlyTheFunctionsScriptsGet() throws {
        let declared = try declarations()
        for (name, fields) in try runtimeGlobals() {
            let table = declared.first { $0.line == "\(name) = {}" }
            XCTAssertEqual(table?.annotations.last, "---@class \(name)lib", "\(name)'s class")
            let functions = declared.compactMap { declaration -> String? in
                guard declaration.line.hasPrefix("function \(name).") else { return nil }
                return String(declaration.line.dropFirst("function \(name).".count).prefix { $0 != "(" })
            }
            // A module's constants (`joypad.BUTTONS`) are typed fields: `---@type …` then `joypad.BUTTONS = {}`.
            let constants = declared.compactMap { declaration -> String? in
                guard declaration.line.hasPrefix("\(name)."), declaration.line.hasSuffix(" = {}") else { return nil }
                return String(declaration.line.dropFirst("\(name).".count).dropLast(" = {}".count))
            }
            XCTAssertEqual(Set(functions + constants), fields, "\(name): the stubs' fields are the ones scripts get")
        }
        for type in ["state", "image", "rewind_buffer"] {
            let table = declared.first { $0.line == "local \(type) = {}" }
            XCTAssertEqual(table?.annotations.last, "---@class \(type)", "the \(type) class")
            XCTAssertTrue(declared.contains { $0.line.hasPrefix("function \(type):") }, "\(type)'s methods")
        }
    }

    /// Every declared function types each of its parameters with `---@param NAME TYPE`, and no others.
    func testEveryFunctionTypesEachParameter() throws {
        var count = 0
        for declaration in try declarations() where declaration.line.hasPrefix("function ") {
            let inside = declaration.line.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
            let parameters = inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let annotated = declaration.annotations.filter { $0.hasPrefix("---@param ") }.map { line in
                line.dropFirst("---@param ".count).split(separator: " ", maxSplits: 1).map(String.init)
            }
            XCTAssertEqual(
                annotated.map { $0[0].hasSuffix("?") ? String($0[0].dropLast()) : $0[0] }, parameters,
                declaration.line)
            for parameter in annotated {
                XCTAssertEqual(parameter.count, 2, "\(declaration.line): a type for \(parameter)")
            }
            count += 1
        }
        XCTAssertGreaterThan(count, 200, "the stubs declare the whole API")
    }

    /// The alias event.on's `name` is typed with holds every event the host accepts, and only those.
    func testTheEventAliasListsEveryEventTheHostAccepts() throws {
        let declared = try declarations()
        let text = try String(contentsOfFile: stubs, encoding: .utf8)
        let alias = try XCTUnwrap(text.range(of: "---@alias event_name\n"), "the event alias")
        let values = text[alias.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("---| ") }.map {
            String($0.dropFirst("---| '\"".count).dropLast("\"'".count))
        }
        XCTAssertEqual(values, ScriptEvent.allCases.map(\.rawValue))
        let on = try XCTUnwrap(declared.first { $0.line == "function event.on(name, fn) end" })
        XCTAssertTrue(on.annotations.contains("---@param name event_name"), "\(on.annotations)")
        // The running host agrees: each name registers, and an unknown one is refused listing the same set.
        let folder = Fixtures.temporaryFolder()
        let list = values.map { "\"\($0)\"" }.joined(separator: ", ")
        try """
        for _, name in ipairs({ \(list) }) do event.on(name, function() end) end
        print(select(2, pcall(event.on, "no_such_event", function() end)))
        emu.exit(0)
        """.write(toFile: folder + "/events.lua", atomically: true, encoding: .utf8)
        let result = try Fixtures.cli([
            "run", "--headless", "--quiet", "--frames", "1", "--script", folder + "/events.lua",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let accepted = try XCTUnwrap(result.stdout.range(of: "one of "), result.stdout)
        let named = result.stdout[accepted.upperBound...].prefix { $0 != ")" }
        XCTAssertEqual(Set(named.components(separatedBy: ", ")), Set(values), result.stdout)
    }

    private func luacheck(_ source: String) throws -> Fixtures.Result {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/luacheck") else {
            XCTFail("luacheck is not installed (apt-get install lua-check; scripts/setup installs it)")
            return Fixtures.Result(status: -1, stdout: "", stderr: "")
        }
        let path = Fixtures.temporaryFolder() + "/checked.lua"
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/luacheck")
        process.arguments = ["--no-color", "--formatter", "plain", "--config", Fixtures.root + "/.luacheckrc", path]
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Fixtures.Result(
            status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }

    /// With the repository's .luacheckrc (which loads lua/types/luacheck_globals.lua), every function a script
    /// really gets passes and a misspelt one is reported.
    func testLuacheckWithTheGeneratedGlobalsFlagsAMisspeltFunction() throws {
        let every = try runtimeGlobals().sorted { $0.key < $1.key }.flatMap { name, fields in
            fields.sorted().map { "local _ = \(name).\($0)" }
        }
        let good = try luacheck(every.joined(separator: "\n") + "\nevent.on(\"draw\", function() end)\n")
        XCTAssertEqual(good.status, 0, good.stdout)
        let bad = try luacheck("print(memory.read_u8(0))\nprint(memory.raed_u8(0))\n")
        XCTAssertEqual(bad.status, 1, bad.stdout)
        let lines = bad.stdout.split(separator: "\n").filter { $0.contains("checked.lua:") }
        XCTAssertEqual(lines.count, 1, bad.stdout)
        XCTAssertTrue(lines.first?.contains(":2:") == true, bad.stdout)
        XCTAssertTrue(bad.stdout.contains("accessing undefined field 'raed_u8' of global 'memory'"), bad.stdout)
    }
}
