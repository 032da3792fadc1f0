import TophhieJSON
import TophhieRules

/// The plain text a person reads on a phone (ntfy, Gotify, Telegram) or in a mailbox: the level
/// and title, the account, the time, the place and address, the summary and the response steps.
///
/// Every value from sign-in data has its control, bidi and separator characters shown as escapes
/// (`ControlCharacterEscaping`), its URLs and domains defanged (`Defanging`), and is cut to
/// `fieldLimit` characters, so a 10 KB device name leaves room for the rest. The line breaks
/// between the lines are the program's own. No markup: the services get it as plain text.
public enum PersonalAlertText {
    /// The most characters one value from the data may take.
    static let fieldLimit = 300

    /// `HIGH: Failed sign-in burst`, and ` - jane` when the alert names whose it is.
    public static func title(_ alert: Alert) -> String {
        let title = "\(alert.level.rawValue.uppercased()): \(safe(alert.rule.title, limit: 200))"
        guard let account = alert.account else { return title }
        return title + " - " + safe(account.name, limit: 100)
    }

    /// The account an alert is about: the user principal name, display name or object id it is
    /// grouped by (the built-in rules group by `userId`: `object id 26be…`); nil when it names
    /// none (agent notices).
    public static func account(_ alert: Alert) -> String? {
        for field in ["userPrincipalName", "userDisplayName"] {
            if let value = alert.group.first(where: { $0.field == field })?.value, !value.isEmpty { return value }
        }
        if let id = alert.group.first(where: { $0.field == "userId" })?.value, !id.isEmpty { return "object id " + id }
        return nil
    }

    /// Whose alert it is, as the texts name it: for an alert of one of several watched people
    /// (`Alert.account`), its name and in brackets its principal name, else the account it is
    /// grouped by (`jane (jane@contoso.com)`); otherwise the account it is grouped by.
    public static func owner(_ alert: Alert) -> String? {
        guard let named = alert.account else { return account(alert) }
        let principal = named.userPrincipalName.flatMap { $0.isEmpty ? nil : $0 } ?? account(alert)
        return principal.map { "\(named.name) (\($0))" } ?? named.name
    }

    /// The lines after the title.
    public static func bodyLines(_ alert: Alert) -> [String] {
        var lines: [String] = []
        if let owner = owner(alert) { lines.append("Account: " + safe(owner)) }
        let last = alert.events.last
        lines.append("Time: " + GraphTimestamp.alertText(last?.time ?? alert.detectedAt))
        if let last {
            var place: [String] = []
            if let location = last.location, !location.isEmpty { place.append(safe(location)) }
            if let address = last.ipAddress, !address.isEmpty { place.append("address " + safe(address)) }
            if !place.isEmpty { lines.append("Place: " + place.joined(separator: ", ")) }
            var from: [String] = []
            if let app = last.app, !app.isEmpty { from.append(safe(app)) }
            if let device = last.device, !device.isEmpty { from.append("on " + safe(device)) }
            if !from.isEmpty { lines.append("Sign-in: " + from.joined(separator: " ")) }
        }
        lines.append(safe(alert.sentence, limit: 1000))
        if alert.kind == .detection && alert.eventCount > 1 { lines.append("Sign-ins: \(alert.eventCount)") }
        if let steps = AlertResponse.steps(for: alert) {
            lines.append("What to do now:")
            lines.append(contentsOf: steps.enumerated().map { "\($0.offset + 1). \($0.element)" })
        }
        lines.append("Rule: \(safe(alert.rule.id, limit: 100)) · alert \(safe(alert.id, limit: 100))")
        return lines
    }

    /// The title line, then the body lines.
    public static func text(_ alert: Alert) -> String {
        ([title(alert)] + bodyLines(alert)).joined(separator: "\n")
    }

    /// A value from the data as the text shows it: escaped, defanged and cut.
    static func safe(_ value: String, limit: Int = fieldLimit) -> String {
        WebhookPreset.truncate(Defanging.defang(ControlCharacterEscaping.escape(value)), limit, .characters)
    }
}
