import Foundation

/// Bulk bytes in a reply (memory, states, frames, sound): written as base64 straight into the reply
/// line, since JSONSerialization costs tens of milliseconds per frame-sized string (ARCHITECTURE.md: Facts).
struct ControlPayload {
    let base64: String
    init(_ data: Data) { base64 = data.base64EncodedString() }
}

enum ControlReply {
    /// The reply line: `ok` is added when the fields do not say; payloads go last, unescaped
    /// (base64 needs no escaping).
    static func encode(_ fields: [String: Any]) -> String {
        var reply = fields
        if reply["ok"] == nil { reply["ok"] = true }
        var payloads: [(String, ControlPayload)] = []
        for (key, value) in reply {
            if let payload = value as? ControlPayload { payloads.append((key, payload)) }
        }
        for (key, _) in payloads { reply[key] = nil }
        guard let data = try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys]) else {
            return "{\"ok\":false,\"error\":\"the reply could not be encoded\"}"
        }
        var line = String(decoding: data, as: UTF8.self)
        guard !payloads.isEmpty, line.last == "}" else { return line }
        line.removeLast()
        for (key, payload) in payloads.sorted(by: { $0.0 < $1.0 }) {
            line += ",\"" + key + "\":\"" + payload.base64 + "\""
        }
        return line + "}"
    }
}
