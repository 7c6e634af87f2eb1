/// A file could not be written, worded for the user: `path: cannot write: reason`.
public struct FileWriteError: Error, CustomStringConvertible, Equatable, Sendable {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): cannot write: \(reason)" }
}
