import Foundation
import TophhieJSON

/// The one JSON shape of an alert, shared by `replay --format json`, stdout JSON lines and
/// webhook bodies: sorted keys, times as `GraphTimestamp.alertText` (UTC, milliseconds).
///
/// ```json
/// {"account":{"name":"jane","userPrincipalName":"jane@contoso.com"},"author":…,"detectedAt":"…","eventDetails":[{"app":…,"device":…,"errorCode":50126,"id":"…",
///  "ipAddress":…,"location":"City, CC","time":"…"}],"eventCount":2,"events":["id1","id2"],
///  "firstEventTime":"…","group":{"userId":"…"},"id":"<32 hex>","kind":"detection",
///  "late":false,"lastEventTime":"…","lateBySeconds":10800,"level":"high",
///  "rule":{"author":…,"description":…,"id":"failure-burst","level":"medium","tags":[…],"title":"…"},
///  "summary":"…","summary_technical":"…","response":{"steps":["revoke every session…","…"]}}
/// ```
/// `summary` is the sentence a person reads; `summary_technical` the rule's own terms, when
/// they differ.
/// `response` is there only on alerts that mean a possible takeover (`AlertResponse`).
/// `account` only when the agent watches several people (`Alert.account`).
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
        if let account = alert.account { object["account"] = accountValue(account) }
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

    /// The alert as one line of compact JSON with sorted keys (no trailing newline): the bytes
    /// `value(alert).canonicalData()` holds, written straight from the alert (`write`).
    public static func line(_ alert: Alert) -> String {
        String(decoding: lineBytes(alert), as: UTF8.self)
    }

    /// `line(alert)`'s bytes.
    public static func lineBytes(_ alert: Alert) -> [UInt8] {
        var out: [UInt8] = []
        // A SigmaHQ alert's line is about 1.1 KB: reserved once, not grown twice.
        out.reserveCapacity(1536 + alert.events.count * 320)
        write(alert, into: &out)
        return out
    }

    /// Appends the alert's line to `out` without building its tree: replay writes an alert per
    /// matching sign-in, and a tree per alert line was a large part of an alert-heavy replay.
    /// Members in the order `canonicalData` sorts them (by their UTF-8 bytes), so the bytes are
    /// the same.
    public static func write(_ alert: Alert, into out: inout [UInt8]) {
        var first = true
        func key(_ name: StaticString) {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(0x22)
            out.append(0x3A)
        }
        func text(_ value: String) { JSONWriter.writeString(value, into: &out) }
        func integer(_ value: Int64) { out.append(contentsOf: String(value).utf8) }
        func time(_ date: Date) { AlertJSON.writeTime(date, into: &out) }
        // Arrays of texts written here, not by JSONWriter's generic writeArray: called from
        // another module it went unspecialised, a value-witness copy of every item, and was
        // half of writing an alert-heavy replay's lines.
        func texts(_ values: [String]) {
            out.append(0x5B)
            for index in values.indices {
                if index > 0 { out.append(0x2C) }
                JSONWriter.writeString(values[index], into: &out)
            }
            out.append(0x5D)
        }
        out.append(0x7B)
        if let account = alert.account {
            key("account"); out.append(contentsOf: #"{"name":"#.utf8); text(account.name)
            if let upn = account.userPrincipalName { out.append(contentsOf: #","userPrincipalName":"#.utf8); text(upn) }
            out.append(0x7D)
        }
        if let author = alert.rule.author { key("author"); text(author) }
        key("detectedAt"); time(alert.detectedAt)
        if let episode = alert.episodeID, let reminder = alert.reminder {
            key("episode"); out.append(contentsOf: #"{"id":"#.utf8); text(episode)
            out.append(contentsOf: #","reminder":"#.utf8); integer(Int64(reminder)); out.append(0x7D)
        }
        key("eventCount"); integer(Int64(alert.eventCount))
        key("eventDetails")
        out.append(0x5B)
        for index in alert.events.indices {
            if index > 0 { out.append(0x2C) }
            writeEvent(alert.events[index], into: &out)
        }
        out.append(0x5D)
        key("events")
        out.append(0x5B)
        for index in alert.events.indices {
            if index > 0 { out.append(0x2C) }
            JSONWriter.writeString(alert.events[index].id, into: &out)
        }
        out.append(0x5D)
        key("firstEventTime"); time(alert.firstEventTime)
        key("group")
        // The first value of each field, fields sorted by their bytes, as `writeObject` writes a dictionary.
        var group: [(field: String, value: String)] = []
        for value in alert.group where !group.contains(where: { $0.field == value.field }) { group.append((value.field, value.value)) }
        group.sort { JSONWriter.precedes($0.field, $1.field) }
        out.append(0x7B)
        for index in group.indices {
            if index > 0 { out.append(0x2C) }
            JSONWriter.writeString(group[index].field, into: &out)
            out.append(0x3A)
            JSONWriter.writeString(group[index].value, into: &out)
        }
        out.append(0x7D)
        key("id"); text(alert.id)
        key("kind"); text(alert.kind.rawValue)
        key("lastEventTime"); time(alert.lastEventTime)
        key("late"); out.append(contentsOf: alert.late ? "true".utf8 : "false".utf8)
        if let late = alert.lateBySeconds { key("lateBySeconds"); JSONWriter.write(number(late), into: &out) }
        if alert.learning == true { key("learning"); out.append(contentsOf: "true".utf8) }
        key("level"); text(alert.level.rawValue)
        if let resolves = alert.resolves { key("resolves"); text(resolves) }
        if let steps = AlertResponse.steps(for: alert) {
            key("response"); out.append(contentsOf: #"{"steps":"#.utf8)
            texts(steps)
            out.append(0x7D)
        }
        key("rule")
        var ruleFirst = true
        func ruleKey(_ name: String) {
            out.append(contentsOf: ruleFirst ? "{\"".utf8 : ",\"".utf8); out.append(contentsOf: name.utf8); out.append(contentsOf: "\":".utf8)
            ruleFirst = false
        }
        if let author = alert.rule.author { ruleKey("author"); text(author) }
        if let description = alert.rule.description { ruleKey("description"); text(description) }
        ruleKey("id"); text(alert.rule.id)
        ruleKey("level"); text(alert.rule.level.rawValue)
        ruleKey("tags"); texts(alert.rule.tags)
        ruleKey("title"); text(alert.rule.title)
        out.append(0x7D)
        key("summary"); text(alert.sentence)
        if alert.summary != alert.sentence { key("summary_technical"); text(alert.summary) }
        if alert.episodeID != nil, alert.reminder != nil, let uses = alert.usesSinceLastAlert { key("usesSinceLastAlert"); integer(Int64(uses)) }
        out.append(0x7D)
    }

    /// A time as `GraphTimestamp.alertText` writes it, quoted: digits and `-:.TZ`, which JSON
    /// writes as they are.
    static func writeTime(_ date: Date, into out: inout [UInt8]) {
        out.append(0x22)
        GraphTimestamp.appendAlertText(date, to: &out)
        out.append(0x22)
    }

    /// One of `eventDetails`, its members in sorted order, as `event(_:)` gives them.
    static func writeEvent(_ event: AlertEvent, into out: inout [UInt8]) {
        out.append(0x7B)
        if let app = event.app { out.append(contentsOf: #""app":"#.utf8); JSONWriter.writeString(app, into: &out); out.append(0x2C) }
        if let device = event.device { out.append(contentsOf: #""device":"#.utf8); JSONWriter.writeString(device, into: &out); out.append(0x2C) }
        if let code = event.errorCode { out.append(contentsOf: #""errorCode":"#.utf8); out.append(contentsOf: String(code).utf8); out.append(0x2C) }
        out.append(contentsOf: #""id":"#.utf8); JSONWriter.writeString(event.id, into: &out)
        if let ip = event.ipAddress { out.append(contentsOf: #","ipAddress":"#.utf8); JSONWriter.writeString(ip, into: &out) }
        if let location = event.location { out.append(contentsOf: #","location":"#.utf8); JSONWriter.writeString(location, into: &out) }
        out.append(contentsOf: #","time":"#.utf8); writeTime(event.time, into: &out)
        out.append(0x7D)
    }

    /// `{"name":…,"userPrincipalName":…}`, the principal name omitted when unknown.
    static func accountValue(_ account: AlertAccount) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(account.name)]
        if let upn = account.userPrincipalName { object["userPrincipalName"] = .string(upn) }
        return .object(object)
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
