import Foundation

/// A request's fields read strictly: each has one JSON type (a button is `true` or `false`, never
/// `1`; an integer is a whole number that fits, never `1.5` or `1e300`); anything else is refused
/// with the field's name, what it must be, and what came.
struct ControlRequest {
    let fields: [String: Any]

    /// Parses a request line: valid UTF-8, valid JSON (nesting limited by the parser), an object.
    init(_ line: ArraySlice<UInt8>) throws(ControlError) {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw ControlError("malformed request: not valid UTF-8")
        }
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed]) } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw ControlError("malformed request: not valid JSON" + (detail.map { " (\($0))" } ?? ""))
        }
        guard let object = parsed as? [String: Any] else {
            throw ControlError("a request is a JSON object, e.g. {\"cmd\": \"info\"}")
        }
        fields = object
    }

    init(fields: [String: Any]) { self.fields = fields }

    func has(_ key: String) -> Bool { fields[key] != nil }

    func string(_ key: String) throws(ControlError) -> String? {
        guard let value = fields[key] else { return nil }
        guard let text = value as? String else { throw Self.wrong(key, "a string", value) }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int>? = nil) throws(ControlError) -> Int? {
        guard let value = fields[key] else { return nil }
        let expected = range.map { "an integer in \($0.lowerBound)…\($0.upperBound)" } ?? "an integer"
        guard !Self.isBoolean(value), let number = value as? Int else { throw Self.wrong(key, expected, value) }
        if let range, !range.contains(number) { throw Self.wrong(key, expected, value) }
        return number
    }

    func object(_ key: String) throws(ControlError) -> [String: Any]? {
        guard let value = fields[key] else { return nil }
        guard let table = value as? [String: Any] else { throw Self.wrong(key, "an object", value) }
        return table
    }

    func list(_ key: String) throws(ControlError) -> [Any]? {
        guard let value = fields[key] else { return nil }
        guard let list = value as? [Any] else { throw Self.wrong(key, "a list", value) }
        return list
    }

    /// JSON `true`/`false` (the parser gives numbers and booleans the same class; booleans are "c").
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    static func boolean(_ value: Any) -> Bool? { isBoolean(value) ? (value as? Bool) : nil }

    static func wrong(_ key: String, _ expected: String, _ value: Any) -> ControlError {
        ControlError("\"\(key)\" must be \(expected), got \(describe(value))")
    }

    /// A short, safe rendering of what came (long strings cut).
    static func describe(_ value: Any) -> String {
        if isBoolean(value) { return (value as? Bool) == true ? "true" : "false" }
        if let number = value as? NSNumber { return String(number.description.prefix(40)) }
        if let text = value as? String {
            let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "the string \"\(cut)\""
        }
        if value is [String: Any] { return "an object" }
        if value is [Any] { return "a list" }
        if value is NSNull { return "null" }
        return "a \(type(of: value))"
    }
}
