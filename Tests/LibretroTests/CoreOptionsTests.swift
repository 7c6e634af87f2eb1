import CLibretro
import XCTest
@testable import Libretro

final class CoreOptionsTests: XCTestCase {
    func testSetVariablesParsesDescriptionDefaultAndValues() {
        let options = CoreOptions()
        let key = strdup("demo_speed")!, spec = strdup("Speed; normal|fast|slow")!
        defer { free(key); free(spec) }
        let list = [retro_variable(key: key, value: spec), retro_variable(key: nil, value: nil)]
        list.withUnsafeBufferPointer { options.declareVariables($0.baseAddress!) }
        XCTAssertEqual(
            options.definitions,
            [
                .init(
                    key: "demo_speed", description: "Speed", values: ["normal", "fast", "slow"], defaultValue: "normal")
            ])
        XCTAssertEqual(options.value("demo_speed"), "normal")
        XCTAssertEqual(String(cString: options.answer("demo_speed")!), "normal")
    }

    func testUserValuesOverrideDefaultsAndInvalidOnesAreRefused() {
        let options = CoreOptions()
        options.declare(.init(key: "k", description: "", values: ["a", "b"], defaultValue: "a"))
        options.changed = false
        XCTAssertNil(options.set("k", "b"))
        XCTAssertTrue(options.changed, "GET_VARIABLE_UPDATE must report the change")
        XCTAssertEqual(String(cString: options.answer("k")!), "b")
        XCTAssertEqual(options.set("k", "zzz"), "option k: 'zzz' is not one of a, b")
        XCTAssertEqual(options.value("k"), "b")
    }

    func testOverridesGivenBeforeTheCoreDeclaresTheKeyApplyWhenValid() {
        let options = CoreOptions()
        var warnings: [String] = []
        options.onWarning = { warnings.append($0) }
        options.set("early", "x")
        options.set("bad", "nope")
        options.declare(.init(key: "early", description: "", values: ["w", "x"], defaultValue: "w"))
        options.declare(.init(key: "bad", description: "", values: ["on", "off"], defaultValue: "off"))
        XCTAssertEqual(options.value("early"), "x")
        XCTAssertEqual(options.value("bad"), "off")
        XCTAssertEqual(warnings, ["option bad: 'nope' is not one of on, off; using 'off'"])
    }

    func testOptionFileFormat() {
        let pairs = CoreOptions.parse(
            "# comment\nnestopia_blargg_ntsc_filter = \"disabled\"\n  spaced=value \n\nbroken line\n")
        XCTAssertEqual(pairs.map(\.0), ["nestopia_blargg_ntsc_filter", "spaced"])
        XCTAssertEqual(pairs.map(\.1), ["disabled", "value"])
    }
}
