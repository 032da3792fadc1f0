import Foundation
import TophhieRules

/// One entry of the config's `notifiers:` list, before it becomes a notifier.
public struct NotifierConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Unique; names the outbox file and appears in `notify test`.
    public var name: String
    /// `stdout`, `syslog`, `webhook` or `email`.
    public var type: String
    /// Alerts below this level are not sent here.
    public var minimumLevel: AlertLevel
    /// When set, only alerts from these rule ids (notices always pass).
    public var ruleIDs: [String]?
    /// Type-specific keys (`url`, `preset`, `transport`, …) as written.
    public var options: [String: String]
    /// Where the entry starts, for errors that are found later.
    public var file: String?
    public var line: Int?
    public var column: Int?

    public init(name: String, type: String, minimumLevel: AlertLevel = .informational, ruleIDs: [String]? = nil, options: [String: String] = [:], file: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.name = name
        self.type = type
        self.minimumLevel = minimumLevel
        self.ruleIDs = ruleIDs
        self.options = options
        self.file = file
        self.line = line
        self.column = column
    }

    /// The entry without option values: a URL can carry a chat service's credential, and an
    /// inline `secret` is one.
    public var description: String {
        "NotifierConfiguration(name: \(name), type: \(type), min_level: \(minimumLevel.rawValue), options: \(options.keys.sorted().joined(separator: ", ")))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["name": name, "type": type, "minimumLevel": minimumLevel]) }

    /// An error that points at this entry.
    public func error(_ message: String) -> ConfigurationError {
        ConfigurationError("notifier '\(name)': \(message)", file: file, line: line, column: column)
    }

    /// A warning at the entry, in the `file:line:col: warning:` form compilers use.
    public func warning(_ message: String) -> String {
        let place = [file, line.map(String.init), column.map(String.init)].compactMap { $0 }.joined(separator: ":")
        return (place.isEmpty ? "" : place + ": ") + "warning: notifier '\(name)': \(message)"
    }
}
