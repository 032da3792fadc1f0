/// A finding about a rule file: how serious, where (1-based), and what, in plain words.
public struct RuleDiagnostic: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public var severity: Severity
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(_ severity: Severity, file: String, line: Int, column: Int, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:col: error: message`, the form compilers and editors understand.
    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }

    public static func < (a: RuleDiagnostic, b: RuleDiagnostic) -> Bool {
        (a.file, a.line, a.column, a.severity, a.message) < (b.file, b.line, b.column, b.severity, b.message)
    }
}
