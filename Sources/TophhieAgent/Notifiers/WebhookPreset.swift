import Foundation
import TophhieJSON
import TophhieRules

/// The body shape a webhook receiver expects. The team presets are sent with the same Standard
/// Webhooks headers, only the JSON differs; the phone presets (ntfy, Gotify, Telegram) are not
/// signed, their token authenticates.
public enum WebhookPreset: Sendable, Hashable {
    /// Standard Webhooks envelope: `{"type":"alert.fired","timestamp":…,"data":<alert>}`.
    case generic
    /// Slack incoming webhook: `text` fallback plus `blocks`.
    case slack
    /// Microsoft Teams Workflows: an Adaptive Card in `attachments`.
    case teamsWorkflows
    /// Discord execute-webhook: an embed, mentions disabled.
    case discord
    /// PagerDuty Events API v2 `trigger`, deduplicated on the alert id.
    case pagerDuty(routingKey: PagerDutyRoutingKey)
    /// Prometheus Alertmanager webhook format, version 4.
    case alertmanager
    /// ntfy: JSON `{topic, title, message, priority, tags}` to the server's root, so non-ASCII
    /// titles need no header encoding; `Authorization: Bearer` for a protected topic.
    case ntfy(topic: String)
    /// Gotify: JSON `{title, message, priority}` to `<server>/message`, the app token in `X-Gotify-Key`.
    case gotify
    /// Telegram Bot API `sendMessage`: `{chat_id, text}` as plain text (no `parse_mode`), to
    /// `{url}/bot{token}/sendMessage`.
    case telegram(chatID: String)

    /// The names accepted in configuration.
    public static let names = ["generic", "slack", "teams", "discord", "pagerduty", "alertmanager", "ntfy", "gotify", "telegram"]

    /// Whether requests carry Standard Webhooks' `webhook-id`, `webhook-timestamp` and
    /// `webhook-signature`: not for the phone services, which authenticate by token.
    public var isSigned: Bool {
        switch self {
        case .ntfy, .gotify, .telegram: return false
        default: return true
        }
    }

    /// The preset's name in configuration.
    public var name: String {
        switch self {
        case .generic: return "generic"
        case .slack: return "slack"
        case .teamsWorkflows: return "teams"
        case .discord: return "discord"
        case .pagerDuty: return "pagerduty"
        case .alertmanager: return "alertmanager"
        case .ntfy: return "ntfy"
        case .gotify: return "gotify"
        case .telegram: return "telegram"
        }
    }

    /// Whether the preset sends to a person's phone and needs no signing secret.
    public var isPhone: Bool { !isSigned }

    /// Where the body carries text for people, the length limits of the receiver, in the unit
    /// each counts: Discord and Slack count UTF-16 code units (JavaScript string length); for
    /// PagerDuty and Teams, whose limits are on characters and on the body, UTF-8 bytes, which are
    /// never fewer than either.
    enum Limits {
        static let slackSectionText = 3000
        /// Teams refuses a card body of about 28 KB; the text and each fact value get a share.
        static let teamsText = 8_000
        static let teamsFactValue = 1_000
        static let discordTitle = 256
        static let discordDescription = 4096
        static let discordFieldValue = 1024
        /// All of an embed's text together (title, description, field names and values, footer).
        static let discordEmbedTotal = 6000
        static let pagerDutySummary = 1024
        /// PagerDuty's Events API v2: an event of at most 512 KB.
        static let pagerDutyEvent = 512 * 1024
        /// ntfy: a longer message becomes an attachment; counted in bytes.
        static let ntfyMessage = 4096
        static let ntfyTitle = 250
        /// Gotify documents no limit; a phone notification is read whole at this size.
        static let gotifyMessage = 4096
        static let gotifyTitle = 250
        /// Telegram: 1–4,096 characters (its entity offsets count UTF-16 units, never fewer).
        static let telegramText = 4096
    }

    /// How a service measures a text's length.
    enum LengthUnit {
        case utf16, utf8, characters

        func length(_ text: String) -> Int {
            switch self {
            case .utf16: return text.utf16.count
            case .utf8: return text.utf8.count
            case .characters: return text.count
            }
        }
    }

    /// What the preset needs besides the alert.
    public struct Context: Sendable, Hashable {
        /// The machine the agent runs on: PagerDuty's `source`.
        public var source: String
        /// The notifier's name: Alertmanager's `receiver`.
        public var receiver: String

        public init(source: String, receiver: String) {
            self.source = source
            self.receiver = receiver
        }
    }

    /// The JSON body for `alert`.
    public func body(for alert: Alert, context: Context) -> JSONValue {
        switch self {
        case .generic: return JSONBodyBound.bounded(Self.hardenForTemplates(Self.generic(alert)), limit: JSONBodyBound.genericLimit)
        case .slack: return Self.slack(alert)
        case .teamsWorkflows: return Self.teams(alert)
        case .discord: return Self.discord(alert)
        case .pagerDuty(let key): return Self.withinPagerDutyLimits(Self.hardenForTemplates(Self.pagerDuty(alert, routingKey: key, context: context)))
        case .alertmanager: return Self.hardenForTemplates(Self.alertmanager(alert, context: context))
        case .ntfy(let topic): return Self.ntfy(alert, topic: topic)
        case .gotify: return Self.gotify(alert)
        case .telegram(let chatID): return Self.telegram(alert, chatID: chatID)
        }
    }

    /// The urgency each phone service gives a level: critical and high pop up and sound, medium
    /// sounds, the rest (and the agent's notices) arrive quietly.
    enum PhoneUrgency: Equatable {
        case urgent, high, normal, quiet

        init(_ alert: Alert) {
            guard alert.kind == .detection else { self = .quiet; return }
            switch alert.level {
            case .critical: self = .urgent
            case .high: self = .high
            case .medium: self = .normal
            case .low, .informational: self = .quiet
            }
        }

        /// ntfy 1–5 (5 max/urgent).
        var ntfyPriority: Int64 { [.urgent: 5, .high: 5, .normal: 4, .quiet: 3][self]! }
        /// Gotify 0–10: the Android app pops up at 8–10, sounds at 4–7, is silent at 1–3.
        var gotifyPriority: Int64 { [.urgent: 10, .high: 8, .normal: 5, .quiet: 2][self]! }
        /// Telegram's `disable_notification`.
        var telegramSilent: Bool { self == .quiet }
        /// ntfy tags: an emoji by urgency, then the program's name.
        var ntfyTags: [String] {
            switch self {
            case .urgent: return ["rotating_light", "tophhie-watch"]
            case .high: return ["warning", "tophhie-watch"]
            case .normal: return ["eyes", "tophhie-watch"]
            case .quiet: return ["information_source", "tophhie-watch"]
            }
        }
    }

    static func ntfy(_ alert: Alert, topic: String) -> JSONValue {
        let urgency = PhoneUrgency(alert)
        return .object([
            "topic": .string(topic),
            "title": .string(truncate(PersonalAlertText.title(alert), Limits.ntfyTitle, .utf8)),
            "message": .string(truncate(PersonalAlertText.bodyLines(alert).joined(separator: "\n"), Limits.ntfyMessage, .utf8)),
            "priority": .int(urgency.ntfyPriority),
            "tags": .array(urgency.ntfyTags.map(JSONValue.string)),
        ])
    }

    static func gotify(_ alert: Alert) -> JSONValue {
        .object([
            "title": .string(truncate(PersonalAlertText.title(alert), Limits.gotifyTitle, .utf8)),
            "message": .string(truncate(PersonalAlertText.bodyLines(alert).joined(separator: "\n"), Limits.gotifyMessage, .utf8)),
            "priority": .int(PhoneUrgency(alert).gotifyPriority),
        ])
    }

    static func telegram(_ alert: Alert, chatID: String) -> JSONValue {
        .object([
            "chat_id": .string(chatID),
            "text": .string(truncate(PersonalAlertText.text(alert), Limits.telegramText, .utf16)),
            "disable_notification": .bool(PhoneUrgency(alert).telegramSilent),
            // The response steps' own link is not fetched for a preview.
            "link_preview_options": .object(["is_disabled": .bool(true)]),
        ])
    }

    /// The body of a preset whose receiver may forward it through a template to chat or mail:
    /// control, bidi and separator characters shown as escapes, mention and link markup inert.
    static func hardenForTemplates(_ body: JSONValue) -> JSONValue {
        ChatMentionNeutralising.neutraliseStrings(ControlCharacterEscaping.hardenStrings(body))
    }

    /// The Standard Webhooks event type: `alert.fired` or `agent.notice`.
    public static func eventType(_ alert: Alert) -> String {
        alert.kind == .detection ? "alert.fired" : "agent.notice"
    }

    static func generic(_ alert: Alert) -> JSONValue {
        .object([
            "type": .string(eventType(alert)),
            "timestamp": .string(GraphTimestamp.alertText(alert.detectedAt)),
            "data": AlertJSON.value(alert),
        ])
    }

    /// Facts a person reads under the title, already escaped for control characters.
    static func facts(_ alert: Alert) -> [(String, String)] {
        let e = ControlCharacterEscaping.escape
        var facts: [(String, String)] = []
        if let account = alert.account {
            facts.append(("Account", e(account.name) + (account.userPrincipalName.map { " (\(e($0)))" } ?? "")))
        }
        facts += [("Rule", e(alert.rule.id)), ("Level", alert.level.rawValue)]
        if !alert.group.isEmpty {
            facts.append(("Group", alert.group.map { "\(e($0.field))=\(e($0.value))" }.joined(separator: ", ")))
        }
        if alert.kind == .detection {
            facts.append(("Events", "\(alert.eventCount)"))
            facts.append(("First event", GraphTimestamp.alertText(alert.firstEventTime)))
            facts.append(("Last event", GraphTimestamp.alertText(alert.lastEventTime)))
        }
        if alert.late { facts.append(("Late by", AlertTextLine.durationText(alert.lateBySeconds ?? 0))) }
        facts.append(("Alert id", e(alert.id)))
        return facts
    }

    /// `[HIGH] Title`, or `[HIGH] [jane] Title` for an alert of one of several watched people.
    static func title(_ alert: Alert) -> String {
        "[\(alert.level.rawValue.uppercased())] \(accountTag(alert))\(ControlCharacterEscaping.escape(alert.rule.title))"
    }

    /// `[jane] ` when the alert names whose it is, else nothing.
    static func accountTag(_ alert: Alert) -> String {
        alert.account.map { "[\(ControlCharacterEscaping.escape($0.name))] " } ?? ""
    }

    /// Slack mrkdwn treats `&`, `<` and `>` as markup; a device name must not become a link.
    static func slackEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func slack(_ alert: Alert) -> JSONValue {
        let summary = withResponse(alert)
        let fallback = slackEscape("\(title(alert)): \(summary)")
        let head = "*\(slackEscape(title(alert)))*\n\(slackEscape(summary))"
        let details = facts(alert).map { "*\(slackEscape($0.0)):* \(slackEscape($0.1))" }.joined(separator: "\n")
        return .object([
            "text": .string(truncate(fallback, Limits.slackSectionText, .utf16)),
            "blocks": .array([
                .object(["type": .string("section"), "text": .object(["type": .string("mrkdwn"), "text": .string(truncate(head, Limits.slackSectionText, .utf16))])]),
                .object(["type": .string("section"), "text": .object(["type": .string("mrkdwn"), "text": .string(truncate(details, Limits.slackSectionText, .utf16))])]),
            ]),
        ])
    }

    /// Teams and Discord render Markdown: an app named `[Verify](https://evil.example)` would
    /// become a link inside a security alert. Link and emphasis characters in sign-in-derived
    /// text (summaries, facts) are backslash-escaped; rule titles come from the operator.
    static func markdownEscape(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\`*_[]()>|~".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    static func teams(_ alert: Alert) -> JSONValue {
        let colour: String
        switch alert.level {
        case .critical, .high: colour = "Attention"
        case .medium: colour = "Warning"
        case .low, .informational: colour = "Default"
        }
        let card: JSONValue = .object([
            "$schema": .string("http://adaptivecards.io/schemas/adaptive-card.json"),
            "type": .string("AdaptiveCard"),
            // TextBlock.style "heading" is an Adaptive Card 1.5 property.
            "version": .string("1.5"),
            "body": .array([
                .object(["type": .string("TextBlock"), "text": .string(truncate(title(alert), Limits.teamsFactValue, .utf8)), "weight": .string("Bolder"),
                         "size": .string("Medium"), "wrap": .bool(true), "style": .string("heading"), "color": .string(colour)]),
                .object(["type": .string("TextBlock"), "text": .string(truncate(markdownEscape(withResponse(alert)), Limits.teamsText, .utf8)), "wrap": .bool(true)]),
                .object(["type": .string("FactSet"), "facts": .array(facts(alert).map { .object(["title": .string($0.0), "value": .string(truncate(markdownEscape($0.1), Limits.teamsFactValue, .utf8))]) })]),
            ]),
            // No `msteams` width hint: it is a Teams host extension the published card schema
            // refuses, and a card that validates renders everywhere.
        ])
        return .object([
            "type": .string("message"),
            "attachments": .array([.object([
                "contentType": .string("application/vnd.microsoft.card.adaptive"),
                "contentUrl": .null,
                "content": card,
            ])]),
        ])
    }

    static func discord(_ alert: Alert) -> JSONValue {
        let colour: Int64
        switch alert.level {
        case .critical: colour = 0x992D22
        case .high: colour = 0xE74C3C
        case .medium: colour = 0xE67E22
        case .low: colour = 0xF1C40F
        case .informational: colour = 0x95A5A6
        }
        let embedTitle = truncate(title(alert), Limits.discordTitle, .utf16)
        let footer = "tophhie-watch"
        let shownFacts = facts(alert).prefix(25).map { ($0.0, truncate(markdownEscape($0.1), Limits.discordFieldValue, .utf16), $0.1.count < 40) }
        // The embed's 6,000 total: what the fields and title leave goes to the description.
        let used = LengthUnit.utf16.length(embedTitle) + LengthUnit.utf16.length(footer)
            + shownFacts.reduce(0) { $0 + LengthUnit.utf16.length($1.0) + LengthUnit.utf16.length($1.1) }
        let room = max(1, min(Limits.discordDescription, Limits.discordEmbedTotal - used))
        let fields: [JSONValue] = shownFacts.map {
            .object(["name": .string($0.0), "value": .string($0.1), "inline": .bool($0.2)])
        }
        return .object([
            "embeds": .array([.object([
                "title": .string(embedTitle),
                "description": .string(truncate(markdownEscape(withResponse(alert)), room, .utf16)),
                "color": .int(colour),
                "timestamp": .string(GraphTimestamp.alertText(alert.detectedAt)),
                "fields": .array(fields),
                "footer": .object(["text": .string(footer)]),
            ])]),
            // Sign-in text must never ping @everyone or a role.
            "allowed_mentions": .object(["parse": .array([])]),
        ])
    }

    /// Alert level as PagerDuty severity: critical, error, warning or info.
    static func pagerDutySeverity(_ level: AlertLevel) -> String {
        switch level {
        case .critical: return "critical"
        case .high: return "error"
        case .medium: return "warning"
        case .low, .informational: return "info"
        }
    }

    static func pagerDuty(_ alert: Alert, routingKey: PagerDutyRoutingKey, context: Context) -> JSONValue {
        // "Monitoring resumed" resolves the incident its problem opened, rather than opening one.
        if let resolved = alert.resolves {
            return .object([
                "routing_key": .string(routingKey.value),
                "event_action": .string("resolve"),
                "dedup_key": .string(resolved),
            ])
        }
        return .object([
            "routing_key": .string(routingKey.value),
            "event_action": .string("trigger"),
            "dedup_key": .string(alert.id),
            "client": .string("tophhie-watch"),
            "payload": .object([
                "summary": .string(truncate("[\(alert.level.rawValue.uppercased())] " + accountTag(alert) + ControlCharacterEscaping.escape(AlertSentence.titled(alert)), Limits.pagerDutySummary, .utf8)),
                "source": .string(context.source),
                "severity": .string(pagerDutySeverity(alert.level)),
                "timestamp": .string(GraphTimestamp.alertText(alert.detectedAt)),
                "component": .string("entra-sign-ins"),
                "group": .string(alert.rule.id),
                "class": .string(eventType(alert)),
                "custom_details": AlertJSON.value(alert),
            ]),
        ])
    }

    /// PagerDuty's limits, applied after hardening (which lengthens text: `<` becomes `‹`, three
    /// bytes): the summary cut to 1,024 bytes again, and `custom_details` cut longest first so
    /// the event stays under 512 KB (an alert with thousands of events, or long names, is larger).
    static func withinPagerDutyLimits(_ body: JSONValue) -> JSONValue {
        guard case .object(var members) = body, case .object(var payload)? = members["payload"] else { return body }
        if case .string(let summary)? = payload["summary"] { payload["summary"] = .string(truncate(summary, Limits.pagerDutySummary, .utf8)) }
        if let details = payload["custom_details"] {
            payload["custom_details"] = .null
            members["payload"] = .object(payload)
            let rest = JSONValue.object(members).canonicalBytes().count
            payload["custom_details"] = JSONBodyBound.bounded(details, limit: Limits.pagerDutyEvent - rest - 1024)
        }
        members["payload"] = .object(payload)
        return .object(members)
    }

    /// The summary, and for an alert that means a possible takeover, the steps on a line of
    /// their own: what a person reading the chat message does next.
    /// The summary's control characters are shown as escapes; the line break before the steps,
    /// which are the program's own text, is a real one.
    static func withResponse(_ alert: Alert) -> String {
        let summary = ControlCharacterEscaping.escape(alert.sentence)
        guard let steps = AlertResponse.steps(for: alert) else { return summary }
        return summary + "\n" + responseLine(steps)
    }

    /// `Respond: 1) … 2) … 3) …`.
    static func responseLine(_ steps: [String]) -> String {
        "Respond: " + steps.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: " ")
    }

    /// A Prometheus label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
    static func labelName(_ field: String) -> String {
        var name = String(field.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        })
        if name.first.map({ $0.isNumber }) ?? true { name = "_" + name }
        return name
    }

    /// One alert per body, grouped by its own labels: sign-in alerts fire and stay (Graph's
    /// events have no end), a recovery is the `resolved` of the problem notice it ends.
    static func alertmanager(_ alert: Alert, context: Context) -> JSONValue {
        let resolved = AlertmanagerLabels(resolvedBy: alert)
        let labels = resolved ?? AlertmanagerLabels(alert)
        let status = resolved == nil ? "firing" : "resolved"
        var annotations: [String: JSONValue] = [
            "title": .string(alert.rule.title),
            "summary": .string(alert.sentence),
            "alert_id": .string(alert.id),
        ]
        if let description = alert.rule.description { annotations["description"] = .string(description) }
        if let steps = AlertResponse.steps(for: alert) { annotations["response"] = .string(responseLine(steps)) }
        let labelValues = JSONValue.object(labels.labels.mapValues(JSONValue.string))
        return .object([
            "version": .string("4"),
            "groupKey": .string(labels.groupKey),
            "truncatedAlerts": .int(0),
            "status": .string(status),
            "receiver": .string(context.receiver),
            "groupLabels": .object(labels.groupLabels.mapValues(JSONValue.string)),
            "commonLabels": labelValues,
            "commonAnnotations": .object(annotations),
            "externalURL": .string(""),
            "alerts": .array([.object([
                "status": .string(status),
                "labels": labelValues,
                "annotations": .object(annotations),
                "startsAt": .string(GraphTimestamp.alertText(alert.firstEventTime)),
                "endsAt": .string(resolved == nil ? "0001-01-01T00:00:00Z" : GraphTimestamp.alertText(alert.detectedAt)),
                "generatorURL": .string(""),
                "fingerprint": .string(labels.fingerprint),
            ])]),
        ])
    }

    /// `text` cut to at most `limit` in `unit`, ending in `…`, at a character boundary: a
    /// device name of one letter and a thousand combining marks is one character but a
    /// thousand code units, and the service counts the units.
    static func truncate(_ text: String, _ limit: Int, _ unit: LengthUnit) -> String {
        guard unit.length(text) > limit else { return text }
        let room = limit - unit.length("…")
        var kept = ""
        var length = 0
        for character in text {
            let size = unit.length(String(character))
            if length + size > room { break }
            kept.append(character)
            length += size
        }
        return kept + "…"
    }
}

/// A PagerDuty integration key: it lets anyone open incidents, so it is never printed.
public struct PagerDutyRoutingKey: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    let value: String

    /// - Throws: `WebhookSettingError` when empty or not 32 printable characters.
    public init(_ value: String) throws {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count == 32, trimmed.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            throw WebhookSettingError("the PagerDuty routing key must be the 32-character integration key")
        }
        self.value = trimmed
    }

    public var description: String { "<redacted routing key>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// A phone service's token (ntfy access token, Gotify app token, Telegram bot token): it lets
/// anyone send to the person, so it is never printed, and a URL that carries it (Telegram's) is
/// never logged.
public struct NotifierToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String

    /// - Throws: `WebhookSettingError` when empty, or holding spaces or control characters
    ///   (it goes in a header or a URL path).
    public init(_ value: String) throws {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 && $0 != "/" && $0 != "?" && $0 != "#" }) else {
            throw WebhookSettingError("the token must be one word of printable ASCII characters, without '/', '?' or '#'")
        }
        self.value = trimmed
    }

    public var description: String { "<redacted token>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
