import Foundation
import Testing
import TophhieTestSupport
@testable import TophhieRules

/// `Alert.sortInOutputOrder`: the order a stable sort by `precedesInOutput` gives, each alert
/// moved into its place.
@Suite struct AlertOrderTests {
    static let at = Date(timeIntervalSince1970: 1_788_000_000)

    static func alert(id: String, rule: String, second: Int, summary: String) -> Alert {
        let time = at.addingTimeInterval(TimeInterval(second))
        return Alert(id: id, rule: AlertRule(id: rule, title: rule, level: .medium), level: .medium, summary: summary, group: [],
                     events: [AlertEvent(id: "e-\(summary)", time: time)], firstEventTime: time, lastEventTime: time, detectedAt: time, late: false)
    }

    @Test func alertsAreMovedIntoTheOrderAStableSortGives() {
        var generator = SeededGenerator(seed: 118)
        for size in [0, 1, 2, 3, 7, 64, 500] {
            // Few times, rules and ids, so many alerts tie on some or all of them (told apart by
            // their summaries, which a stable sort keeps in the order given).
            let alerts = (0..<size).map { n in
                Self.alert(id: "id\(Int.random(in: 0..<4, using: &generator))", rule: "rule\(Int.random(in: 0..<3, using: &generator))",
                           second: Int.random(in: 0..<5, using: &generator), summary: "\(n)")
            }
            var moved = alerts
            Alert.sortInOutputOrder(&moved)
            #expect(moved.map(\.summary) == alerts.sorted(by: Alert.precedesInOutput).map(\.summary), "\(size)")
        }
    }
}
