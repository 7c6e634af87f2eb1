import Foundation
import XCTest

@testable import Support

final class JSONWriterTests: XCTestCase {
    private func text(_ value: Any) -> String? { JSONWriter.encode(value).map { String(decoding: $0, as: UTF8.self) } }

    func testValuesAsLuaTablesBecomeThemWithSortedKeys() {
        let info: [String: Any] = [
            "score": 12345, "lives": 3, "ratio": 0.25, "whole": 3.0, "over": false, "name": "Dodge",
            "list": [1, "two", true, NSNull()], "nested": ["b": 2, "a": [String: Any]()],
        ]
        XCTAssertEqual(
            text(info),
            #"{"list":[1,"two",true,null],"lives":3,"name":"Dodge","nested":{"a":{},"b":2},"over":false,"ratio":0.25,"#
                + #""score":12345,"whole":3}"#)
        XCTAssertEqual(text(Int.min), "-9223372036854775808")
        XCTAssertEqual(text(1e300), "1e+300")
    }

    func testStringsAreEscapedAndParseBack() throws {
        let awkward = "quote \" backslash \\ newline \n tab \t bell \u{7} nul \u{0} é ✓"
        let bytes = try XCTUnwrap(JSONWriter.encode(["k\"ey": awkward]))
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
        XCTAssertEqual(parsed, ["k\"ey": awkward])
    }

    func testValuesWithoutAJSONFormAreRefused() {
        XCTAssertNil(JSONWriter.encode(["x": Double.nan]))
        XCTAssertNil(JSONWriter.encode([Double.infinity]))
        XCTAssertNil(JSONWriter.encode(["x": Date()]))
        var deep: Any = 1
        for _ in 0..<70 { deep = [deep] }
        XCTAssertNil(JSONWriter.encode(deep), "deeper than 64")
        XCTAssertNotNil(JSONWriter.encode(deep, maxDepth: 80))
    }
}
