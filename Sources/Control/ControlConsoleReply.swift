/// What the run's Lua console answered a chunk, as the `console` request replies it: the scripts' side fills
/// it in (`ControlScripts.console`), the door writes its fields.
public struct ControlConsoleReply {
    public enum Status: String { case done, incomplete, error }

    /// A line the chunk wrote, on its standard output or its error stream.
    public struct Line {
        public let text: String
        public let isError: Bool

        public init(text: String, isError: Bool) {
            self.text = text
            self.isError = isError
        }
    }

    public var status: Status
    /// The chunk's values as the console shows them.
    public var values: [String]
    public var output: [Line]
    /// Why the chunk failed or is incomplete.
    public var error: String?
    /// The values as JSON (Foundation objects), when the request asked for them.
    public var json: [Any]?

    public init(status: Status, values: [String], output: [Line], error: String?, json: [Any]?) {
        self.status = status
        self.values = values
        self.output = output
        self.error = error
        self.json = json
    }

    /// The reply's fields: `status`, `values`, `output` (`[{"text":, "stream": "out"|"err"}]`), and `error`
    /// and `json` where there are.
    var fields: [String: Any] {
        var fields: [String: Any] = [
            "status": status.rawValue, "values": values,
            "output": output.map { ["text": $0.text, "stream": $0.isError ? "err" : "out"] },
        ]
        if let error { fields["error"] = error }
        if let json { fields["json"] = json }
        return fields
    }
}
