/// Where the control socket listens: a Unix socket (the user's alone: its peers' uid is checked) or
/// loopback TCP (any local user can connect, so every connection must first show the run's token).
extension ControlServer {
    public enum Address: Equatable, Sendable {
        case unix(String)
        case tcp(port: UInt16)

        /// `unix:PATH` or `tcp:127.0.0.1:PORT` (loopback only: anything else is refused).
        public static func parse(_ text: String) throws(ControlError) -> Address {
            if text.hasPrefix("unix:") {
                let path = String(text.dropFirst(5))
                guard !path.isEmpty, path.utf8.count < 100 else {
                    throw ControlError("--control unix:PATH needs a path of under 100 bytes")
                }
                return .unix(path)
            }
            guard text.hasPrefix("tcp:"), let colon = text.lastIndex(of: ":"),
                colon > text.index(text.startIndex, offsetBy: 3)
            else {
                throw ControlError("--control expects unix:PATH or tcp:127.0.0.1:PORT, got '\(text)'")
            }
            let host = String(text[text.index(text.startIndex, offsetBy: 4)..<colon])
            guard host == "127.0.0.1" || host == "localhost" else {
                throw ControlError(
                    "refusing to listen on '\(host)': the control socket only listens on loopback (127.0.0.1)")
            }
            guard let port = UInt16(text[text.index(after: colon)...]) else {
                throw ControlError("bad port in '\(text)'")
            }
            return .tcp(port: port)
        }

        public var isTCP: Bool { if case .tcp = self { true } else { false } }
    }
}
