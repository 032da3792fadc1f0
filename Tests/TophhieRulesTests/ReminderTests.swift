import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// A long episode sends one reminder a day of event time, each with its own id.
@Suite(.timeLimit(.minutes(20))) struct ReminderTests {
    static let rules = """
    title: Risky
    id: risky
    logsource: {product: azure, service: signinlogs}
    detection:
        selection: {riskLevelAggregated: high}
        condition: selection
    tophhie: {suppress: 24h, group-by: [userId]}
    """

    /// Uses every hour for 72 hours, in one poll, then each hour in its own poll.
    static let uses = (0..<72).map { SignIn.at(Double($0) * 60, id: String(format: "u%02d", $0), ["riskLevelAggregated": .string("high")]) }

    @Test func aSeventyTwoHourEpisodeGivesItsAlertAndTwoRemindersNamingIt() throws {
        let engine = PlainEvaluator(rules: loadRules(Self.rules))
        let (_, alerts) = engine.process(EngineState(), events: Self.uses, now: time(72 * 60))
        #expect(alerts.map { $0.events.map(\.id) } == [["u00"], ["u24"], ["u48"]])
        let first = try #require(alerts.first)
        #expect(first.episodeID == nil && first.reminder == nil)
        #expect(alerts.dropFirst().map(\.episodeID) == [first.id, first.id])
        #expect(alerts.dropFirst().map(\.reminder) == [1, 2])
        // u01…u24 joined since the first alert, u25…u48 since the first reminder.
        #expect(alerts.dropFirst().map(\.usesSinceLastAlert) == [24, 24])
        #expect(alerts[1].id == AlertFactory.reminderID(episodeID: first.id, number: 1))
        #expect(Set(alerts.map(\.id)).count == 3)
        #expect(alerts[1].summary.hasPrefix("still going on (reminder 1, 24 since the last alert): "))
        let json = AlertJSON.line(alerts[2])
        #expect(json.contains("\"episode\":{\"id\":\"\(first.id)\",\"reminder\":2}"))
        #expect(json.contains("\"usesSinceLastAlert\":24"))
    }

    @Test func pollingHourByHourGivesTheSameAlerts() {
        let engine = PlainEvaluator(rules: loadRules(Self.rules))
        var state = EngineState()
        var ids: [String] = []
        for use in Self.uses {
            let outcome = engine.evaluate(state, events: [use], now: use.eventTime.addingTimeInterval(60))
            state = outcome.state
            ids += outcome.alerts.map(\.id)
        }
        let (_, once) = engine.process(EngineState(), events: Self.uses, now: time(72 * 60))
        #expect(ids == once.map(\.id))
    }
}
