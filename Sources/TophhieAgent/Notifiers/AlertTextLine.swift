import TophhieJSON
import TophhieRules

/// The one-line human form of an alert, shared by stdout and syslog.
///
/// Every field from sign-in data or rule files is escaped with `ControlCharacterEscaping`.
public enum AlertTextLine {
    /// `HIGH [rule-id] Title: sentence (ipAddress=203.0.113.9) account=jane events=5 first=… last=… late-by=3h0m id=…`
    ///
    /// `account=` only when the alert names whose it is (`Alert.account`).
    public static func body(_ alert: Alert) -> String {
        let e = ControlCharacterEscaping.escape
        var parts: [String] = []
        parts.append("\(alert.level.rawValue.uppercased()) [\(e(alert.rule.id))] \(e(AlertSentence.titled(alert)))")
        if !alert.group.isEmpty {
            parts.append("(" + alert.group.map { "\(e($0.field))=\(e($0.value))" }.joined(separator: ", ") + ")")
        }
        if let account = alert.account { parts.append("account=\(e(account.name))") }
        if alert.kind == .detection {
            parts.append("events=\(alert.eventCount)")
            parts.append("first=\(GraphTimestamp.alertText(alert.firstEventTime))")
            parts.append("last=\(GraphTimestamp.alertText(alert.lastEventTime))")
        }
        if alert.late {
            parts.append("late-by=\(durationText(alert.lateBySeconds ?? 0))")
        }
        parts.append("id=\(e(alert.id))")
        if let steps = AlertResponse.steps(for: alert) {
            parts.append("— respond: " + steps.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: "; "))
        }
        return parts.joined(separator: " ")
    }

    /// `3h5m`, `12m`, `40s`: how late an alert is, for people.
    static func durationText(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded()))
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        if hours > 0 { return "\(hours)h\(minutes)m" }
        if minutes > 0 { return "\(minutes)m" }
        return "\(secs)s"
    }
}
