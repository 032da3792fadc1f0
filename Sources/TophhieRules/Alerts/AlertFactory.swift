import Foundation
import TophhieJSON

/// Builds alerts: the readable event lines, the summary, the lateness and the stable id.
enum AlertFactory {
    /// The id: FNV-1a-128 over the rule id, the group and the sorted event ids.
    static func alertID(ruleID: String, group: [AlertGroupValue], eventIDs: [String]) -> String {
        var canonical = "tophhie-alert/v1\n\(ruleID)\n"
        for value in group { canonical += "\(value.field)=\(value.value.lowercased())\n" }
        canonical += eventIDs.sorted().joined(separator: ",")
        return StableHash.fnv1a128(canonical)
    }

    /// An alert shows at most this many events: the first and the last halves of them.
    /// `eventCount` tells how many there were; 10,000 failures must not make a 2 MB webhook.
    static let maxShownEvents = 50

    /// The events an alert shows: all of them, or the first and last `maxShownEvents / 2`.
    static func shown(_ events: [AlertEvent]) -> [AlertEvent] {
        guard events.count > maxShownEvents else { return events }
        return Array(events.prefix(maxShownEvents / 2) + events.suffix(maxShownEvents / 2))
    }

    static func make(metadata: RuleMetadata, options: RuleEngineOptions, group: [AlertGroupValue], events: [AlertEvent], eventCount: Int, windowClose: Date, now: Date, lateGrace: TimeInterval, summary: String) -> Alert {
        let first = events.first!.time, last = events.last!.time
        let late = now.timeIntervalSince(windowClose) > lateGrace
        let level = options.level ?? metadata.level
        return Alert(
            id: alertID(ruleID: metadata.id, group: group, eventIDs: events.map(\.id)),
            rule: AlertRule(id: metadata.id, title: metadata.title, level: metadata.level, tags: metadata.tags, author: metadata.author, description: metadata.description),
            level: level, summary: summary, group: group, events: shown(events), eventCount: max(eventCount, events.count),
            firstEventTime: first, lastEventTime: last, detectedAt: now,
            late: late, lateBySeconds: late ? (now.timeIntervalSince(last) * 1000).rounded() / 1000 : nil)
    }

    /// The display paths interned once, so building an event line reads the event by slot.
    private static let slots = EnginePlan.displayPaths.map { FieldSlot.intern(path: $0) }

    /// An event's line: read by slot, the error code as a number where it is one (what its text
    /// would parse to), each travel and first-seen match builds one.
    static func alertEvent(_ event: any RuleEvent) -> AlertEvent {
        var places: JoinedTextMemo?, devices: JoinedTextMemo?
        return alertEvent(event, places: &places, devices: &devices)
    }

    /// `alertEvent(_:)`, its location and device lines taken from the memos when their parts
    /// were joined lately.
    static func alertEvent(_ event: any RuleEvent, places: inout JoinedTextMemo?, devices: inout JoinedTextMemo?) -> AlertEvent {
        func text(_ i: Int) -> String? { event.text(slot: slots[i]) }
        let errorCode: Int64?
        switch event.field(slot: slots[0]) {
        case .int(let i)?: errorCode = i
        case .string(let s)?: errorCode = Int64(s)
        case let value?: errorCode = value.scalarText.flatMap { Int64($0) }
        case nil: errorCode = nil
        }
        return AlertEvent(id: event.eventID, time: event.eventTime, errorCode: errorCode, app: nonEmpty(text(1)), ipAddress: nonEmpty(text(2)),
                          location: joined(text(3), text(4), by: ", ", memo: &places),
                          device: joined(text(5), text(6), by: " on ", memo: &devices))
    }

    static func alertEvent(_ stored: EngineState.StoredEvent) -> AlertEvent {
        let paths = EnginePlan.displayPaths
        return alertEvent(id: stored.id, time: stored.time, errorCode: stored.values[paths[0]].flatMap { Int64($0) },
                          app: stored.values[paths[1]], ipAddress: stored.values[paths[2]], city: stored.values[paths[3]],
                          country: stored.values[paths[4]], browser: stored.values[paths[5]], os: stored.values[paths[6]])
    }

    /// The line from the display fields' texts (`EnginePlan.displayPaths`): empty texts are none,
    /// "City, Country", "Browser on OS".
    static func alertEvent(id: String, time: Date, errorCode: Int64?, app: String?, ipAddress: String?,
                           city: String?, country: String?, browser: String?, os: String?) -> AlertEvent {
        AlertEvent(id: id, time: time, errorCode: errorCode, app: nonEmpty(app), ipAddress: nonEmpty(ipAddress),
                   location: joined(city, country, by: ", "), device: joined(browser, os, by: " on "))
    }

    /// Takes its text over: handing back a borrowed one copied it (a retain and a release).
    private static func nonEmpty(_ s: consuming String?) -> String? { s?.isEmpty == false ? s : nil }

    /// Both texts with `separator` between them, or the one that is not empty, or none.
    private static func joined(_ first: String?, _ second: String?, by separator: String) -> String? {
        var none: JoinedTextMemo?
        return joined(first, second, by: separator, memo: &none)
    }

    /// `joined(_:_:by:)`, from `memo` when it has one.
    private static func joined(_ first: consuming String?, _ second: consuming String?, by separator: String, memo: inout JoinedTextMemo?) -> String? {
        switch (nonEmpty(first), nonEmpty(second)) {
        case let (a?, b?): memo?.value(a, b) { concatenation($0, separator, $1) } ?? concatenation(a, separator, b)
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    /// `a + separator + b`, its bytes copied once into the result's buffer: the two `+`
    /// made a string between and grew it, most of the cost of a located sign-in's line (which
    /// travel builds for every one).
    private static func concatenation(_ a: String, _ separator: String, _ b: String) -> String {
        var a = a, separator = separator, b = b
        return a.withUTF8 { first in
            separator.withUTF8 { middle in
                b.withUTF8 { last in
                    String(unsafeUninitializedCapacity: first.count + middle.count + last.count) { buffer in
                        var at = 0
                        func put(_ part: UnsafeBufferPointer<UInt8>) {
                            guard let start = part.baseAddress, !part.isEmpty else { return }
                            (buffer.baseAddress! + at).initialize(from: start, count: part.count)
                            at += part.count
                        }
                        put(first)
                        put(middle)
                        put(last)
                        return at
                    }
                }
            }
        }
    }

    static func singleSummary(_ event: AlertEvent) -> String {
        var parts: [String] = []
        if let code = event.errorCode { parts.append("error \(code)") }
        if let app = event.app { parts.append(app) }
        if let ip = event.ipAddress { parts.append("from \(ip)") }
        if let location = event.location { parts.append("(\(location))") }
        return parts.isEmpty ? "matched" : parts.joined(separator: " ")
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        if s < 120 { return "\(s)s" }
        if s < 7200 { return "\(s / 60)m" }
        if s < 172_800 { return String(format: "%.1fh", Double(s) / 3600) }
        return String(format: "%.1fd", Double(s) / 86_400)
    }
}
