import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// Prints each alert as a readable line or as a JSON line.
///
/// Sign-in fields are attacker-controlled: every control character is escaped visibly, in both
/// forms, so nothing an attacker names a device can move the cursor or forge a line. A write that
/// fails (a full disk, a closed pipe) is a transient error: the alert stays in this notifier's
/// outbox and the other notifiers carry on.
public struct StdoutNotifier: Notifier {
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-12-02T10:00:00.000Z HIGH [rule] Title: summary …`
        case text
        /// One JSON object per line, in the `AlertPayload` schema.
        case jsonLines = "json"
    }

    public struct Settings: Sendable {
        public var format: Format
        /// ANSI colour by level; set it only when the output is a terminal
        /// (`ProcessFacts.standardOutputIsTerminal`).
        public var colour: Bool

        public init(format: Format = .text, colour: Bool = false) {
            self.format = format
            self.colour = colour
        }
    }

    public let name: String
    public let settings: Settings
    private let write: @Sendable (String) throws -> Void

    /// - Parameters:
    ///   - write: receives each complete line, newline included; defaults to standard output.
    ///     What it throws is reported as a transient failure of this notifier.
    public init(name: String = "stdout", settings: Settings = Settings(), write: (@Sendable (String) throws -> Void)? = nil) {
        self.name = name
        self.settings = settings
        self.write = write ?? { line in try StandardStream.write(line, to: StandardStream.output) }
    }

    public func deliver(_ alert: Alert) async throws {
        do {
            try write(render(alert) + "\n")
        } catch {
            throw NotifierError.transient("stdout: \(error)")
        }
    }

    /// The line for `alert`, without its newline.
    public func render(_ alert: Alert) -> String {
        switch settings.format {
        case .jsonLines:
            let json = AlertJSON.line(alert)
            return ControlCharacterEscaping.hardenJSON(json)
        case .text:
            let line = GraphTimestamp.alertText(alert.detectedAt) + " " + AlertTextLine.body(alert)
            guard settings.colour else { return line }
            return Self.colourCode(alert.level) + line + "\u{1b}[0m"
        }
    }

    static func colourCode(_ level: AlertLevel) -> String {
        switch level {
        case .critical: return "\u{1b}[1;31m"
        case .high: return "\u{1b}[31m"
        case .medium: return "\u{1b}[33m"
        case .low: return "\u{1b}[36m"
        case .informational: return "\u{1b}[0m"
        }
    }
}
