import Foundation
import TophhieJSON

/// The one JSON shape of an alert, shared by `replay --format json`, stdout JSON lines and
/// webhook bodies: sorted keys, times as `GraphTimestamp.alertText` (UTC, milliseconds).
///
/// ```json
/// {"author":…,"detectedAt":"…","eventDetails":[{"app":…,"device":…,"errorCode":50126,"id":"…",
///  "ipAddress":…,"location":"City, CC","time":"…"}],"eventCount":2,"events":["id1","id2"],
///  "firstEventTime":"…","group":{"userId":"…"},"id":"<32 hex>","kind":"detection",
///  "late":false,"lastEventTime":"…","lateBySeconds":10800,"level":"high",
///  "rule":{"author":…,"description":…,"id":"failure-burst","level":"medium","tags":[…],"title":"…"},
///  "summary":"…","summary_technical":"…","response":{"steps":["revoke every session…","…"]}}
/// ```
/// `summary` is the sentence a person reads; `summary_technical` the rule's own terms, when
/// they differ.
/// `response` is there only on alerts that mean a possible takeover (`AlertResponse`).
/// Absent optional values are omitted, never `null`.
public enum AlertJSON {
    /// The alert as a JSON value.
    public static func value(_ alert: Alert) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(alert.id),
            "kind": .string(alert.kind.rawValue),
            "level": .string(alert.level.rawValue),
            "summary": .string(alert.sentence),
            "group": .object(Dictionary(alert.group.map { ($0.field, JSONValue.string($0.value)) }, uniquingKeysWith: { a, _ in a })),
            "events": .array(alert.events.map { .string($0.id) }),
            "eventDetails": .array(alert.events.map(event)),
            "eventCount": .int(Int64(alert.eventCount)),
            "firstEventTime": .string(GraphTimestamp.alertText(alert.firstEventTime)),
            "lastEventTime": .string(GraphTimestamp.alertText(alert.lastEventTime)),
            "detectedAt": .string(GraphTimestamp.alertText(alert.detectedAt)),
            "late": .bool(alert.late),
        ]
        var rule: [String: JSONValue] = [
            "id": .string(alert.rule.id),
            "title": .string(alert.rule.title),
            "level": .string(alert.rule.level.rawValue),
            "tags": .array(alert.rule.tags.map { .string($0) }),
        ]
        if let author = alert.rule.author { rule["author"] = .string(author); object["author"] = .string(author) }
        if let description = alert.rule.description { rule["description"] = .string(description) }
        object["rule"] = .object(rule)
        if alert.summary != alert.sentence { object["summary_technical"] = .string(alert.summary) }
        if let late = alert.lateBySeconds { object["lateBySeconds"] = number(late) }
        if let resolves = alert.resolves { object["resolves"] = .string(resolves) }
        if alert.learning == true { object["learning"] = .bool(true) }
        if let episode = alert.episodeID, let reminder = alert.reminder {
            object["episode"] = .object(["id": .string(episode), "reminder": .int(Int64(reminder))])
            if let uses = alert.usesSinceLastAlert { object["usesSinceLastAlert"] = .int(Int64(uses)) }
        }
        if let steps = AlertResponse.steps(for: alert) { object["response"] = .object(["steps": .array(steps.map(JSONValue.string))]) }
        return .object(object)
    }

    /// The alert as one line of compact JSON with sorted keys (no trailing newline).
    public static func line(_ alert: Alert) -> String {
        String(decoding: value(alert).canonicalData(), as: UTF8.self)
    }

    static func event(_ event: AlertEvent) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(event.id), "time": .string(GraphTimestamp.alertText(event.time))]
        if let code = event.errorCode { object["errorCode"] = .int(code) }
        if let app = event.app { object["app"] = .string(app) }
        if let ip = event.ipAddress { object["ipAddress"] = .string(ip) }
        if let location = event.location { object["location"] = .string(location) }
        if let device = event.device { object["device"] = .string(device) }
        return .object(object)
    }

    static func number(_ d: Double) -> JSONValue {
        d.rounded() == d && abs(d) < 9e15 ? .int(Int64(d)) : .double(d)
    }
}
