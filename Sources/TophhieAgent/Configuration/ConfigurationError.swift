import Foundation

/// A configuration problem, pointing at `file:line:col` when it came from the file.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(_ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String {
        guard let file else { return "error: \(message)" }
        guard let line, let column else { return "\(file): error: \(message)" }
        return "\(file):\(line):\(column): error: \(message)"
    }
}
