import Foundation

/// One client's connection as the JSON door sees it: what the client last said it is doing (a request's
/// `activity`), which the scripts hear when it changes and when the connection ends (the OSD's "agent:" line).
public final class ControlConnection {
    /// At most this many characters of an activity are kept (what one line on screen can show).
    static let maxActivity = 200
    /// What the client said it is doing (nil: nothing, or it cleared it with "").
    var activity: String?
    /// Runs once when the connection ends, while an activity is set: the scripts hear `agent(nil)`.
    var onEnd: (() -> Void)?

    public init() {}

    /// The connection closed: its activity, if any, ends with it.
    func end() {
        let hook = onEnd
        onEnd = nil
        activity = nil
        hook?()
    }

    /// What is kept of an activity: control characters as spaces, at most `maxActivity` characters,
    /// trimmed; nil when nothing is left.
    static func kept(_ text: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(maxActivity) {
            let category = scalar.properties.generalCategory
            let isControl = category == .control || category == .lineSeparator || category == .paragraphSeparator
            scalars.append(isControl ? " " : scalar)
        }
        let kept = String(scalars).trimmingCharacters(in: .whitespaces)
        return kept.isEmpty ? nil : kept
    }
}
