import Foundation
import TophhieJSON

/// Builds alerts: the readable event lines, the summary, the lateness and the stable id.
package enum AlertFactory {
    /// The id: FNV-1a-128 over the rule id, the group and the sorted event ids.
    /// The canonical text is `tophhie-alert/v1\n<rule>\n`, then `<field>=<value lowered>\n` for
    /// each group value, then the event ids sorted and joined by commas. Hashed piece by piece:
    /// building the text was a seventh of making an alert-heavy replay's alerts.
    package static func alertID(ruleID: String, group: [AlertGroupValue], eventIDs: [String]) -> String {
        alertID(ruleID: ruleID, group: group, sortedIDs: eventIDs.count > 1 ? eventIDs.sorted() : eventIDs)
    }

    /// `alertID` of one event's alert, without an array of its one id.
    package static func alertID(ruleID: String, group: [AlertGroupValue], events: [AlertEvent]) -> String {
        events.count == 1 ? alertID(ruleID: ruleID, group: group, sortedIDs: CollectionOfOne(events[0].id)) : alertID(ruleID: ruleID, group: group, eventIDs: events.map(\.id))
    }

    private static func alertID<IDs: Collection<String>>(ruleID: String, group: [AlertGroupValue], sortedIDs ids: IDs) -> String {
        var state = StableHash.State()
        state.add("tophhie-alert/v1\n".utf8)
        state.add(ruleID.utf8)
        state.add(UInt8(ascii: "\n"))
        for value in group {
            state.add(value.field.utf8)
            state.add(UInt8(ascii: "="))
            state.addLowered(value.value)
            state.add(UInt8(ascii: "\n"))
        }
        for (index, id) in ids.enumerated() {
            if index > 0 { state.add(UInt8(ascii: ",")) }
            state.add(id.utf8)
        }
        return state.digest
    }

    /// A reminder's id: derived from its episode's first alert and its number, so a crash
    /// replays it into the same id and the outbox delivers it once.
    package static func reminderID(episodeID: String, number: Int) -> String {
        StableHash.fnv1a128("tophhie-alert/v1/reminder\n\(episodeID)\n\(number)")
    }

    /// The candidate's alert as the reminder of its episode: its own id, the episode's, the
    /// number and the uses since the last alert, told in the summary too.
    package static func reminding(_ alert: Alert, episodeID: String, number: Int, uses: Int) -> Alert {
        var reminder = alert
        reminder.id = reminderID(episodeID: episodeID, number: number)
        reminder.episodeID = episodeID
        reminder.reminder = number
        reminder.usesSinceLastAlert = uses
        reminder.summary = "still going on (reminder \(number), \(uses) since the last alert): " + alert.summary
        reminder.sentence = "Still going on (reminder \(number), \(uses) more since the last alert). " + alert.sentence
        return reminder
    }

    /// An alert shows at most this many events: the first and the last halves of them.
    /// `eventCount` tells how many there were; 10,000 failures must not make a 2 MB webhook.
    package static let maxShownEvents = 50

    /// The events an alert shows: all of them, or the first and last `maxShownEvents / 2`.
    static func shown(_ events: [AlertEvent]) -> [AlertEvent] {
        guard events.count > maxShownEvents else { return events }
        return Array(events.prefix(maxShownEvents / 2) + events.suffix(maxShownEvents / 2))
    }

    /// - Parameter learning: a place rule alerting while it learns: marked, and one level lower.
    package static func make(metadata: RuleMetadata, options: RuleEngineOptions, group: [AlertGroupValue], events: [AlertEvent], eventCount: Int, windowClose: Date, now: Date, lateGrace: TimeInterval, summary: String,
                             learning: Bool = false) -> Alert {
        let first = events.first!.time, last = events.last!.time
        let late = now.timeIntervalSince(windowClose) > lateGrace
        let level = options.level ?? metadata.level
        var alert = Alert(
            id: alertID(ruleID: metadata.id, group: group, events: events),
            rule: AlertRule(id: metadata.id, title: metadata.title, level: metadata.level, tags: metadata.tags, author: metadata.author, description: metadata.description),
            level: level, summary: summary, group: group, events: shown(events), eventCount: max(eventCount, events.count),
            firstEventTime: first, lastEventTime: last, detectedAt: now,
            late: late, lateBySeconds: late ? (now.timeIntervalSince(last) * 1000).rounded() / 1000 : nil)
        alert.sentence = (options.summary ?? AlertSentence.plain(forCount: alert.eventCount)).render(alert)
        if learning {
            alert.learning = true
            alert.level = AlertLevel.allCases[max(0, AlertLevel.allCases.firstIndex(of: level)! - 1)]
            alert.summary += " (learning: a place never seen before, while the usual places are still being learned)"
            alert.sentence += " (told one level lower while your usual places are still being learned)"
        }
        return alert
    }

    /// The Graph paths an alert's event line shows, in `alertEvent(id:…)`'s order: what every
    /// evaluator keeps of a stored event.
    package static let displayPaths = [
        "status.errorCode", "appDisplayName", "ipAddress", "location.city", "location.countryOrRegion",
        "deviceDetail.browser", "deviceDetail.operatingSystem",
    ]

    /// An event's line, read by path.
    static func alertEvent(_ event: any RuleEvent) -> AlertEvent {
        let texts = displayPaths.map { event.field($0)?.scalarText }
        return alertEvent(id: event.eventID, time: event.eventTime, errorCode: errorCode(event.field(displayPaths[0])),
                          app: texts[1], ipAddress: texts[2], city: texts[3], country: texts[4], browser: texts[5], os: texts[6])
    }

    /// A stored event's line, from the texts it kept under `displayPaths`.
    static func alertEvent(_ stored: EngineState.StoredEvent) -> AlertEvent {
        let paths = displayPaths
        return alertEvent(id: stored.id, time: stored.time, errorCode: stored.values[paths[0]].flatMap { Int64($0) },
                          app: stored.values[paths[1]], ipAddress: stored.values[paths[2]], city: stored.values[paths[3]],
                          country: stored.values[paths[4]], browser: stored.values[paths[5]], os: stored.values[paths[6]])
    }

    /// The error code as a number where it is one (what its text would parse to).
    package static func errorCode(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let i)?: return i
        case .string(let s)?: return Int64(s)
        case let value?: return value.scalarText.flatMap { Int64($0) }
        case nil: return nil
        }
    }

    /// The line from the display fields' texts (`displayPaths`): empty texts are none,
    /// "City, Country", "Browser on OS".
    package static func alertEvent(id: String, time: Date, errorCode: Int64?, app: String?, ipAddress: String?,
                                   city: String?, country: String?, browser: String?, os: String?) -> AlertEvent {
        AlertEvent(id: id, time: time, errorCode: errorCode, app: nonEmpty(app), ipAddress: nonEmpty(ipAddress),
                   location: joined(city, country, by: ", "), device: joined(browser, os, by: " on "))
    }

    private static func nonEmpty(_ s: String?) -> String? { s?.isEmpty == false ? s : nil }

    /// Both texts with `separator` between them, or the one that is not empty, or none.
    package static func joined(_ first: String?, _ second: String?, by separator: String) -> String? {
        switch (nonEmpty(first), nonEmpty(second)) {
        case let (a?, b?): a + separator + b
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    /// "error 50126 Outlook from 203.0.113.9 (Porto, PT)", the parts there are; "matched" for none.
    package static func singleSummary(_ event: AlertEvent) -> String {
        guard event.errorCode != nil || event.app != nil || event.ipAddress != nil || event.location != nil else { return "matched" }
        return TextAssembly.make { text in
            var parts = 0
            func part(_ before: String, _ value: String, _ after: String = "") {
                if parts > 0 { text.append(" ") }
                parts += 1
                text.append(before)
                text.append(value)
                text.append(after)
            }
            // An error code is a small string, held in place.
            if let code = event.errorCode { part("error ", String(code)) }
            if let app = event.app { part("", app) }
            if let ip = event.ipAddress { part("from ", ip) }
            if let location = event.location { part("(", location, ")") }
        }
    }

    package static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        if s < 120 { return "\(s)s" }
        if s < 7200 { return "\(s / 60)m" }
        if s < 172_800 { return String(format: "%.1fh", Double(s) / 3600) }
        return String(format: "%.1fd", Double(s) / 86_400)
    }
}
