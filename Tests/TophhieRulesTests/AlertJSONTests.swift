import Foundation
import Testing
import TophhieJSON
@testable import TophhieRules

/// An alert line is written straight to bytes, without a tree per alert (replay writes one per
/// alert): byte for byte the canonical JSON of the alert's value, which the golden hashes and
/// every receiver have, for every optional member present or absent and text that needs escaping.
@Suite struct AlertJSONTests {
    static let at = Date(timeIntervalSince1970: 1_788_000_000.123)

    static func alert(rule id: String, author: String?, description: String?, events: [AlertEvent], group: [AlertGroupValue],
                      kind: AlertKind = .detection, late: Double? = nil, resolves: String? = nil) -> Alert {
        let rule = AlertRule(id: id, title: "Title \"quoted\"\n", level: .high, tags: ["attack.t1110", "é/ü"], author: author, description: description)
        return Alert(id: "0123456789abcdef0123456789abcdef", kind: kind, rule: rule, level: .medium, summary: "5 failed sign-ins from 203.0.113.9\t\u{7F}\u{202E}",
                     group: group, events: events, firstEventTime: at, lastEventTime: at.addingTimeInterval(61.5), detectedAt: at.addingTimeInterval(3600),
                     late: late != nil, lateBySeconds: late, resolves: resolves)
    }

    static let full = AlertEvent(id: "e1", time: at, errorCode: 50126, app: "Azure Portal", ipAddress: "203.0.113.9", location: "Lagos, NG", device: "Linux \u{1}")
    static let bare = AlertEvent(id: "e2\\", time: at.addingTimeInterval(0.0005), errorCode: nil, app: nil, ipAddress: nil, location: nil, device: nil)

    static var alerts: [Alert] {
        var reminder = alert(rule: "success-after-failures", author: "Tophhie", description: "A success after failures.", events: [full, bare],
                             group: [.init(field: "userId", value: "u1"), .init(field: "ipAddress", value: "203.0.113.9"), .init(field: "userId", value: "later")],
                             late: 10800)
        reminder.episodeID = "episode-1"
        reminder.reminder = 2
        reminder.usesSinceLastAlert = 3
        reminder.learning = true
        // A sentence for people beside the rule's own terms: `summary` and `summary_technical`.
        reminder.sentence = "Still going on (reminder 2, 3 more since the last alert). A sign-in \"succeeded\"\t from 203.0.113.9"
        var usesWithoutEpisode = alert(rule: "failure-burst", author: nil, description: nil, events: [bare], group: [], late: 0.25)
        usesWithoutEpisode.usesSinceLastAlert = 4
        usesWithoutEpisode.learning = false
        // Several people watched: the account, with and without its principal name.
        let janes = reminder.attributed(to: AlertAccount(name: "jane", userPrincipalName: "jane@contoso.com\u{202E}\""), distinguishingID: true)
        let sams = usesWithoutEpisode.attributed(to: AlertAccount(name: "sam"), distinguishingID: true)
        return [
            reminder,
            usesWithoutEpisode,
            janes,
            sams,
            alert(rule: "monitoring", author: nil, description: "d", events: [], group: [.init(field: "b", value: "2"), .init(field: "a", value: "1")], kind: .notice, resolves: "abc"),
            alert(rule: "token-from-new-place", author: "A", description: nil, events: [full], group: [.init(field: "Z", value: "z"), .init(field: "a", value: "")], late: 1e20),
        ]
    }

    @Test func anAlertLineIsTheCanonicalJSONOfItsValue() throws {
        for alert in Self.alerts {
            var bytes: [UInt8] = []
            AlertJSON.write(alert, into: &bytes)
            let canonical = String(decoding: AlertJSON.value(alert).canonicalData(), as: UTF8.self)
            #expect(String(decoding: bytes, as: UTF8.self) == canonical)
            #expect(AlertJSON.line(alert) == canonical)
        }
    }

    /// Lines written one after another with what they take from their rule kept between them:
    /// each as it is alone, whether the rule is the one before or another (a rule alike in all
    /// but one member among them).
    @Test func linesKeepingTheirRulesPiecesAreWrittenAsEachAlone() throws {
        var alerts = Self.alerts + Self.alerts.reversed()
        var retitled = Self.alerts[0]
        retitled.rule.title = "Another title"
        var retagged = Self.alerts[0]
        retagged.rule.tags.append("x")
        var takeover = Self.alerts[0]
        takeover.rule.id = "token-from-new-place"
        alerts += [retitled, Self.alerts[0], retagged, Self.alerts[0], takeover, takeover, Self.alerts[0]]
        let rules = AlertRuleLines()
        for alert in alerts {
            var bytes: [UInt8] = Array("x".utf8)
            AlertJSON.write(alert, into: &bytes, rules: rules)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + String(decoding: AlertJSON.value(alert).canonicalData(), as: UTF8.self))
        }
    }

    /// A group is written as the canonical JSON of its first value of each field, whatever the
    /// order and repeats of its fields, the order worked out or kept from the group before.
    @Test func groupsAreWrittenAsTheirFirstValueOfEachFieldInOrder() {
        let rules = AlertRuleLines()
        let fields = ["userId", "ipAddress", "a", "B", "é", "", "a10", "a9", "Z", "userId", "ipAddress", "x", "y", "z", "w", "v", "u", "t", "s"]
        var state: UInt64 = 20_261_207
        for length in 0...fields.count {
            for _ in 0..<20 {
                var group: [AlertGroupValue] = []
                for n in 0..<length {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    group.append(AlertGroupValue(field: fields[Int((state >> 33) % UInt64(fields.count))], value: "v\(n)"))
                }
                // Written twice with what the line before kept: once worked out, once kept.
                for _ in 0..<2 {
                    var written: [UInt8] = []
                    JSONChunkWriter.appending(to: &written) { out in
                        out.put(0x7B)
                        for (position, index) in rules.order(of: group).enumerated() {
                            if position > 0 { out.put(0x2C) }
                            out.string(group[index].field)
                            out.put(0x3A)
                            out.string(group[index].value)
                        }
                        out.put(0x7D)
                    }
                    let canonical = JSONValue.object(Dictionary(group.map { ($0.field, JSONValue.string($0.value)) }, uniquingKeysWith: { first, _ in first }))
                    #expect(written == canonical.canonicalBytes(), "\(group)")
                }
            }
        }
    }

    /// How late an alert is, written from its milliseconds, reads as the JSON writer writes it:
    /// whole seconds, a fraction with its leading and without its trailing zeros, negative ones,
    /// and times too large or too fine for milliseconds.
    @Test func secondsLateAreWrittenAsTheJSONWriterWritesThem() {
        var values: [Double] = [0, -0.0, 1, 0.001, 0.01, 0.05, 0.1, 0.25, 0.999, 1.5, -0.25, -1.001, 10_800, 5_460_590.609, 5_460_590.6,
                                999_999_999_999.999, 1e12, 1e15, 1e20, 0.0001, 1.0000001, 1.0 / 3]
        var state: UInt64 = 20_261_207
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let millis = Double(Int64(bitPattern: state >> 20) % 10_000_000_000_000)
            values.append((millis / 1000 * 1000).rounded() / 1000)
        }
        for value in values {
            var expected: [UInt8] = [], written: [UInt8] = []
            JSONWriter.write(AlertJSON.number(value), into: &expected)
            JSONChunkWriter.appending(to: &written) { AlertJSON.writeSeconds(value, into: &$0) }
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(value)")
        }
    }
}
