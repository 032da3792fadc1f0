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
        write(alert, into: &out, rules: AlertRuleLines())
    }

    /// `write(alert, into:)`, the pieces the line takes from its rule written once for the
    /// alerts of one rule that follow one another (`AlertRuleLines`).
    public static func write(_ alert: Alert, into out: inout [UInt8], rules: AlertRuleLines) {
        rules.hold(alert.rule)
        // Piece by piece on the stack (`JSONChunkWriter`): appended to the array one by one, the
        // pieces cost more than their bytes. Names are written with their quotes, colon and
        // leading comma as one static piece, and numbers without making their text.
        JSONChunkWriter.appending(to: &out) { out in
            // Arrays of texts written here, not by JSONWriter's generic writeArray: called from
            // another module it went unspecialised, a value-witness copy of every item.
            func texts(_ values: [String]) {
                out.put(0x5B)
                for index in values.indices {
                    if index > 0 { out.put(0x2C) }
                    out.string(values[index])
                }
                out.put(0x5D)
            }
            // `account` and `author` sort before `detectedAt`, which every alert has: the members
            // after it start with a comma.
            out.put(0x7B)
            if let account = alert.account {
                out.put(#""account":{"name":"#); out.string(account.name)
                if let upn = account.userPrincipalName { out.put(#","userPrincipalName":"#); out.string(upn) }
                out.put("},")
            }
            out.put(rules.author)
            out.put(#""detectedAt":"#); out.time(alert.detectedAt)
            if let episode = alert.episodeID, let reminder = alert.reminder {
                out.put(#","episode":{"id":"#); out.string(episode)
                out.put(#","reminder":"#); out.integer(Int64(reminder)); out.put(0x7D)
            }
            out.put(#","eventCount":"#); out.integer(Int64(alert.eventCount))
            out.put(#","eventDetails":["#)
            for index in alert.events.indices {
                if index > 0 { out.put(0x2C) }
                writeEvent(alert.events[index], into: &out)
            }
            out.put(#"],"events":["#)
            for index in alert.events.indices {
                if index > 0 { out.put(0x2C) }
                out.string(alert.events[index].id)
            }
            out.put(#"],"firstEventTime":"#); out.time(alert.firstEventTime)
            out.put(#","group":{"#)
            for (position, index) in rules.order(of: alert.group).enumerated() {
                if position > 0 { out.put(0x2C) }
                out.string(alert.group[index].field)
                out.put(0x3A)
                out.string(alert.group[index].value)
            }
            out.put(#"},"id":"#); out.string(alert.id)
            out.put(#","kind":"#); out.string(alert.kind.rawValue)
            out.put(#","lastEventTime":"#); out.time(alert.lastEventTime)
            out.put(alert.late ? #","late":true"# : #","late":false"#)
            if let late = alert.lateBySeconds {
                out.put(#","lateBySeconds":"#)
                writeSeconds(late, into: &out)
            }
            if alert.learning == true { out.put(#","learning":true"#) }
            out.put(#","level":"#); out.string(alert.level.rawValue)
            if let resolves = alert.resolves { out.put(#","resolves":"#); out.string(resolves) }
            // `AlertResponse.steps(for:)`, the rule looked up once.
            if alert.kind == .detection && rules.takeover {
                out.put(#","response":{"steps":"#)
                texts(AlertResponse.steps)
                out.put(0x7D)
            }
            out.put(rules.object)
            out.put(#","summary":"#); out.string(alert.sentence)
            if alert.summary != alert.sentence { out.put(#","summary_technical":"#); out.string(alert.summary) }
            if alert.episodeID != nil, alert.reminder != nil, let uses = alert.usesSinceLastAlert { out.put(#","usesSinceLastAlert":"#); out.integer(Int64(uses)) }
            out.put(0x7D)
        }
    }

    /// One of `eventDetails`, its members in sorted order, as `event(_:)` gives them.
    static func writeEvent(_ event: AlertEvent, into out: inout JSONChunkWriter) {
        out.put(0x7B)
        if let app = event.app { out.put(#""app":"#); out.string(app); out.put(0x2C) }
        if let device = event.device { out.put(#""device":"#); out.string(device); out.put(0x2C) }
        if let code = event.errorCode { out.put(#""errorCode":"#); out.integer(code); out.put(0x2C) }
        out.put(#""id":"#); out.string(event.id)
        if let ip = event.ipAddress { out.put(#","ipAddress":"#); out.string(ip) }
        if let location = event.location { out.put(#","location":"#); out.string(location) }
        out.put(#","time":"#); out.time(event.time)
        out.put(0x7D)
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

    /// `number(seconds)` as `JSONWriter` writes it: a count of whole milliseconds (what
    /// `lateBySeconds` holds) written from its digits, any other through `JSONWriter`.
    static func writeSeconds(_ seconds: Double, into out: inout JSONChunkWriter) {
        let millis = (seconds * 1000).rounded()
        // Below 10^12 s a whole count of milliseconds is exact, and the shortest text that reads
        // back as it is its digits with the point three from the end (0.001 and up, no exponent).
        guard abs(millis) < 1e15, millis / 1000 == seconds else {
            var number: [UInt8] = []
            JSONWriter.write(AlertJSON.number(seconds), into: &number)
            return out.put(number)
        }
        let whole = Int64(millis)
        if whole < 0 { out.put(UInt8(ascii: "-")) }
        out.integer(Int64(whole.magnitude / 1000))
        var fraction = Int(whole.magnitude % 1000)
        guard fraction > 0 else { return }
        out.put(UInt8(ascii: "."))
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        // Leading zeros of the fraction ("0.05"), then its digits.
        var scale = 1
        for _ in 1..<digits { scale *= 10 }
        while scale > fraction {
            out.put(UInt8(ascii: "0"))
            scale /= 10
        }
        out.integer(Int64(fraction))
    }

    static func number(_ d: Double) -> JSONValue {
        d.rounded() == d && abs(d) < 9e15 ? .int(Int64(d)) : .double(d)
    }
}
