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
        // Names are written with their quotes, colon and leading comma as one static piece, and
        // numbers without making their text: piece by piece through `String.utf8` they were a
        // third of writing a line.
        func put(_ piece: StaticString) { piece.withUTF8Buffer { out.append(contentsOf: $0) } }
        func text(_ value: String) { JSONWriter.writeString(value, into: &out) }
        func integer(_ value: Int) { JSONWriter.writeInteger(Int64(value), into: &out) }
        func time(_ date: Date) { AlertJSON.writeTime(date, into: &out) }
        // Arrays of texts written here, not by JSONWriter's generic writeArray: called from
        // another module it went unspecialised, a value-witness copy of every item, and was
        // half of writing an alert-heavy replay's lines.
        func texts(_ values: [String]) {
            out.append(0x5B)
            for index in values.indices {
                if index > 0 { out.append(0x2C) }
                text(values[index])
            }
            out.append(0x5D)
        }
        // `account` and `author` sort before `detectedAt`, which every alert has: the members
        // after it start with a comma.
        out.append(0x7B)
        if let account = alert.account {
            put(#""account":{"name":"#); text(account.name)
            if let upn = account.userPrincipalName { put(#","userPrincipalName":"#); text(upn) }
            put("},")
        }
        if let author = alert.rule.author { put(#""author":"#); text(author); out.append(0x2C) }
        put(#""detectedAt":"#); time(alert.detectedAt)
        if let episode = alert.episodeID, let reminder = alert.reminder {
            put(#","episode":{"id":"#); text(episode)
            put(#","reminder":"#); integer(reminder); out.append(0x7D)
        }
        put(#","eventCount":"#); integer(alert.eventCount)
        put(#","eventDetails":["#)
        for index in alert.events.indices {
            if index > 0 { out.append(0x2C) }
            writeEvent(alert.events[index], into: &out)
        }
        put(#"],"events":["#)
        for index in alert.events.indices {
            if index > 0 { out.append(0x2C) }
            text(alert.events[index].id)
        }
        put(#"],"firstEventTime":"#); time(alert.firstEventTime)
        put(#","group":{"#)
        // The first value of each field, fields sorted by their bytes, as `writeObject` writes a dictionary.
        var group: [(field: String, value: String)] = []
        for value in alert.group where !group.contains(where: { $0.field == value.field }) { group.append((value.field, value.value)) }
        group.sort { JSONWriter.precedes($0.field, $1.field) }
        for index in group.indices {
            if index > 0 { out.append(0x2C) }
            text(group[index].field)
            out.append(0x3A)
            text(group[index].value)
        }
        put(#"},"id":"#); text(alert.id)
        put(#","kind":"#); text(alert.kind.rawValue)
        put(#","lastEventTime":"#); time(alert.lastEventTime)
        put(alert.late ? #","late":true"# : #","late":false"#)
        if let late = alert.lateBySeconds { put(#","lateBySeconds":"#); JSONWriter.write(number(late), into: &out) }
        if alert.learning == true { put(#","learning":true"#) }
        put(#","level":"#); text(alert.level.rawValue)
        if let resolves = alert.resolves { put(#","resolves":"#); text(resolves) }
        if let steps = AlertResponse.steps(for: alert) {
            put(#","response":{"steps":"#)
            texts(steps)
            out.append(0x7D)
        }
        // The rule's members: `id`, `level`, `tags` and `title` always, after its optional two.
        put(#","rule":{"#)
        if let author = alert.rule.author { put(#""author":"#); text(author); out.append(0x2C) }
        if let description = alert.rule.description { put(#""description":"#); text(description); out.append(0x2C) }
        put(#""id":"#); text(alert.rule.id)
        put(#","level":"#); text(alert.rule.level.rawValue)
        put(#","tags":"#); texts(alert.rule.tags)
        put(#","title":"#); text(alert.rule.title)
        put(#"},"summary":"#); text(alert.sentence)
        if alert.summary != alert.sentence { put(#","summary_technical":"#); text(alert.summary) }
        if alert.episodeID != nil, alert.reminder != nil, let uses = alert.usesSinceLastAlert { put(#","usesSinceLastAlert":"#); integer(uses) }
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
        func put(_ piece: StaticString) { piece.withUTF8Buffer { out.append(contentsOf: $0) } }
        out.append(0x7B)
        if let app = event.app { put(#""app":"#); JSONWriter.writeString(app, into: &out); out.append(0x2C) }
        if let device = event.device { put(#""device":"#); JSONWriter.writeString(device, into: &out); out.append(0x2C) }
        if let code = event.errorCode { put(#""errorCode":"#); JSONWriter.writeInteger(code, into: &out); out.append(0x2C) }
        put(#""id":"#); JSONWriter.writeString(event.id, into: &out)
        if let ip = event.ipAddress { put(#","ipAddress":"#); JSONWriter.writeString(ip, into: &out) }
        if let location = event.location { put(#","location":"#); JSONWriter.writeString(location, into: &out) }
        put(#","time":"#); writeTime(event.time, into: &out)
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
