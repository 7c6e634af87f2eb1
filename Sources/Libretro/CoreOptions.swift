import CLibretro
import Foundation

/// A core's options (SET_VARIABLES, core options v1 and v2) with the user's choices layered on top.
///
/// Precedence, lowest first: the core's default, per-core config, per-game config, command line / scripts.
public final class CoreOptions {
    public struct Definition: Sendable, Equatable {
        public var key: String
        public var description: String
        public var values: [String]
        public var defaultValue: String
        /// The core options v2 category's key ("video", "audio", …), "" where the core declares none.
        public var category = ""
    }

    public private(set) var definitions: [Definition] = []
    private var indexByKey: [String: Int] = [:]
    /// Values chosen by the user, which may name keys the core has not declared yet.
    private var overrides: [String: String] = [:]
    /// C strings answered to GET_VARIABLE; kept alive because cores hold on to them.
    private var answered: [String: UnsafePointer<CChar>] = [:]
    private let strings = CStringStore()
    /// Set when a value changes; read and cleared by GET_VARIABLE_UPDATE.
    var changed = false
    /// Warnings about user values the core does not accept, reported once each.
    public var onWarning: ((String) -> Void)?

    public init() {}

    /// The effective value: the user's choice when the core accepts it, else the default.
    public func value(_ key: String) -> String? {
        guard let index = indexByKey[key] else { return overrides[key] }
        let definition = definitions[index]
        if let chosen = overrides[key], definition.values.isEmpty || definition.values.contains(chosen) {
            return chosen
        }
        return definition.defaultValue
    }

    /// Sets a user value. Returns an error message when the core declared the key and rejects the value.
    @discardableResult
    public func set(_ key: String, _ value: String) -> String? {
        if let index = indexByKey[key], !definitions[index].values.isEmpty, !definitions[index].values.contains(value) {
            return "option \(key): '\(value)' is not one of \(definitions[index].values.joined(separator: ", "))"
        }
        if overrides[key] != value {
            overrides[key] = value
            answered[key] = nil
            changed = true
        }
        return nil
    }

    /// User values from a RetroArch-style `key = "value"` file; a missing file is not an error.
    public func load(file path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for (key, value) in CoreOptions.parse(text) { set(key, value) }
    }

    static func parse(_ text: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            var value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if !key.isEmpty { pairs.append((key, value)) }
        }
        return pairs
    }

    // MARK: Answers to the environment

    func answer(_ key: String) -> UnsafePointer<CChar>? {
        if let cached = answered[key] { return cached }
        guard let value = value(key) else { return nil }
        let pointer = strings.keep(value)
        answered[key] = pointer
        return pointer
    }

    func declare(_ definition: Definition) {
        if let index = indexByKey[definition.key] {
            definitions[index] = definition
        } else {
            indexByKey[definition.key] = definitions.count
            definitions.append(definition)
        }
        answered[definition.key] = nil
        if let chosen = overrides[definition.key], !definition.values.isEmpty, !definition.values.contains(chosen) {
            onWarning?(
                """
                option \(definition.key): '\(chosen)' is not one of \(definition.values.joined(separator: ", ")); \
                using '\(definition.defaultValue)'
                """
            )
        }
    }

    /// SET_VARIABLES: `{key, "Description; default|other|…"}` pairs ending with a NULL key.
    func declareVariables(_ list: UnsafePointer<retro_variable>) {
        var item = list
        while let key = item.pointee.key {
            let spec = item.pointee.value.map { String(cString: $0) } ?? ""
            var description = spec
            var values: [String] = []
            if let semicolon = spec.firstIndex(of: ";") {
                description = String(spec[..<semicolon])
                values = spec[spec.index(after: semicolon)...].trimmingCharacters(in: .whitespaces)
                    .split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            }
            declare(
                Definition(
                    key: String(cString: key), description: description, values: values,
                    defaultValue: values.first ?? ""))
            item += 1
        }
    }

    /// SET_CORE_OPTIONS (v1): definitions ending with a NULL key.
    func declareV1(_ list: UnsafePointer<retro_core_option_definition>) {
        declareDefinitions(list)
    }

    /// SET_CORE_OPTIONS_V2: definitions ending with a NULL key (each with its category's key, if any).
    func declareV2(_ options: UnsafePointer<retro_core_options_v2>) {
        guard let definitions = options.pointee.definitions else { return }
        declareDefinitions(UnsafePointer(definitions))
    }

    /// The v1 and v2 lists alike: each entry's key, description, values and default, up to the NULL key.
    private func declareDefinitions<Record: CoreOptionRecord>(_ list: UnsafePointer<Record>) {
        var item = list
        while let key = item.pointee.key {
            var values = item.pointee.values
            var definition = CoreOptions.definition(
                key: key, description: item.pointee.desc, values: &values, defaultValue: item.pointee.default_value)
            definition.category = item.pointee.categoryKey.map { String(cString: $0) } ?? ""
            declare(definition)
            item += 1
        }
    }

    private static func definition<Values>(
        key: UnsafePointer<CChar>, description: UnsafePointer<CChar>?,
        values: inout Values, defaultValue: UnsafePointer<CChar>?
    ) -> Definition {
        // `values` is a fixed C array, imported as a tuple; walk it as memory up to the NULL entry.
        let list: [String] = withUnsafeBytes(of: &values) { raw in
            let entries = raw.bindMemory(to: retro_core_option_value.self)
            var result: [String] = []
            for entry in entries {
                guard let value = entry.value else { break }
                result.append(String(cString: value))
            }
            return result
        }
        let fallback = list.first ?? ""
        return Definition(
            key: String(cString: key),
            description: description.map { String(cString: $0) } ?? "",
            values: list,
            defaultValue: defaultValue.map { String(cString: $0) } ?? fallback)
    }
}

/// The fields v1 and v2 option definitions share (v2 adds a category and info fields).
protocol CoreOptionRecord {
    associatedtype Values
    var key: UnsafePointer<CChar>! { get }
    var desc: UnsafePointer<CChar>! { get }
    var values: Values { get }
    var default_value: UnsafePointer<CChar>! { get }
    var categoryKey: UnsafePointer<CChar>? { get }
}

extension retro_core_option_definition: CoreOptionRecord {
    var categoryKey: UnsafePointer<CChar>? { nil }
}

extension retro_core_option_v2_definition: CoreOptionRecord {
    var categoryKey: UnsafePointer<CChar>? { category_key }
}
