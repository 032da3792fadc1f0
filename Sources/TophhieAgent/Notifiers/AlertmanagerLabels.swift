import Foundation
import TophhieJSON
import TophhieRules

/// The label set an alert has in the Alertmanager webhook format, and what Alertmanager derives
/// from labels: the fingerprint and the group key.
///
/// Every alert carries its `alert_id`, so two sign-in alerts of one rule and group stay two
/// alerts for a receiver that keys on labels or fingerprint. A recovery is sent as `resolved`
/// with the labels of the problem notice it ends, so the receiver closes that one.
struct AlertmanagerLabels: Equatable {
    var labels: [String: String]
    /// The labels the group key is made of: `alertname` and the alert's own group fields.
    var groupLabelNames: [String]

    /// The values are hardened as the body's strings are (control characters shown as escapes,
    /// chat markup inert) before anything is derived from them: a fingerprint computed over the
    /// raw values named a label set the receiver never sees.
    init(labels: [String: String], groupLabelNames: [String]) {
        self.labels = labels.mapValues { ChatMentionNeutralising.neutralise(ControlCharacterEscaping.hardenStrings(.string($0)).stringValue ?? $0) }
        self.groupLabelNames = groupLabelNames
    }

    /// The labels of `alert`: alertname, severity, kind, alert_id, for an alert of one of several
    /// watched people `account` (and `account_upn`), and each group field. `account` is a group
    /// label: two people's alerts of one rule are two groups.
    init(_ alert: Alert) {
        var labels = [
            "alertname": alert.rule.id,
            "severity": alert.level.rawValue,
            "kind": alert.kind.rawValue,
            "alert_id": alert.id,
        ]
        var names = ["alertname"]
        if let account = alert.account {
            labels["account"] = account.name
            names.append("account")
            if let upn = account.userPrincipalName { labels["account_upn"] = upn }
        }
        for entry in alert.group {
            let name = WebhookPreset.labelName(entry.field)
            guard labels[name] == nil else { continue }
            labels[name] = entry.value
            names.append(name)
        }
        self.init(labels: labels, groupLabelNames: names)
    }

    /// The labels of the problem notice a recovery resolves, rebuilt from the problem it names;
    /// nil for a recovery that does not say (one written before it did).
    init?(resolvedBy recovery: Alert) {
        guard let resolved = recovery.resolves,
              let raw = recovery.group.first(where: { $0.field == SystemNotice.problemField })?.value,
              let problem = AgentProblem.Kind(rawValue: raw)
        else { return nil }
        let kind = NoticeKind(problem)
        let (_, level, _) = SystemNotice.text(kind, problem: nil, gap: nil, now: recovery.detectedAt)
        var problemNotice = Alert(
            id: resolved, kind: .notice, rule: SystemNotice.rule(kind, title: "", level: level), level: level, summary: "",
            group: [AlertGroupValue(field: SystemNotice.problemField, value: raw)], events: [],
            firstEventTime: recovery.firstEventTime, lastEventTime: recovery.lastEventTime, detectedAt: recovery.detectedAt, late: false)
        // The problem notice was the same person's: its labels named them too.
        problemNotice.account = recovery.account
        self.init(problemNotice)
    }

    var groupLabels: [String: String] {
        labels.filter { groupLabelNames.contains($0.key) }
    }

    /// Alertmanager's `groupKey` for a route with no matchers: `{}:{name="value", …}`, names
    /// sorted, values quoted as Go's `%q` quotes them.
    var groupKey: String {
        let pairs = groupLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }
        return "{}:{\(pairs.joined(separator: ", "))}"
    }

    /// Prometheus' label-set fingerprint (`model.LabelSet.Fingerprint`): FNV-1a 64 over each
    /// name and value in name order, each followed by the 0xFF separator; 16 hex digits.
    var fingerprint: String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        for (name, value) in labels.sorted(by: { $0.key < $1.key }) {
            name.utf8.forEach(add)
            add(0xFF)
            value.utf8.forEach(add)
            add(0xFF)
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16) }
                else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
