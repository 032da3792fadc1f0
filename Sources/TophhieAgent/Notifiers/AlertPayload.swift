import Foundation
import TophhieJSON
import TophhieRules

/// The alert as JSON: the schema stdout JSON lines and webhook `data` carry.
///
/// Keys are sorted and times are UTC with milliseconds (`GraphTimestamp.alertText`), so the same
/// alert always gives the same bytes. Absent event fields are `null`, never left out.
public enum AlertPayload {
    /// The alert as a JSON value.
    public static func jsonValue(_ alert: Alert) -> JSONValue {
        var group: [String: JSONValue] = [:]
        for entry in alert.group { group[entry.field] = .string(entry.value) }
        var rule: [String: JSONValue] = [
            "id": .string(alert.rule.id),
            "title": .string(alert.rule.title),
            "level": .string(alert.rule.level.rawValue),
            "tags": .array(alert.rule.tags.map(JSONValue.string)),
        ]
        rule["author"] = alert.rule.author.map(JSONValue.string) ?? .null
        rule["description"] = alert.rule.description.map(JSONValue.string) ?? .null
        return .object([
            "id": .string(alert.id),
            "kind": .string(alert.kind.rawValue),
            "rule": .object(rule),
            "level": .string(alert.level.rawValue),
            "summary": .string(alert.summary),
            "group": .object(group),
            "events": .array(alert.events.map(eventValue)),
            "firstEventTime": time(alert.firstEventTime),
            "lastEventTime": time(alert.lastEventTime),
            "detectedAt": time(alert.detectedAt),
            "late": .bool(alert.late),
            "lateBySeconds": alert.lateBySeconds.map(JSONValue.double) ?? .null,
        ])
    }

    /// Compact JSON with sorted keys.
    public static func data(_ alert: Alert) -> Data {
        jsonValue(alert).canonicalData()
    }

    static func eventValue(_ event: AlertEvent) -> JSONValue {
        .object([
            "id": .string(event.id),
            "time": time(event.time),
            "errorCode": event.errorCode.map(JSONValue.int) ?? .null,
            "app": event.app.map(JSONValue.string) ?? .null,
            "ipAddress": event.ipAddress.map(JSONValue.string) ?? .null,
            "location": event.location.map(JSONValue.string) ?? .null,
            "device": event.device.map(JSONValue.string) ?? .null,
        ])
    }

    static func time(_ date: Date) -> JSONValue {
        .string(GraphTimestamp.alertText(date))
    }
}
