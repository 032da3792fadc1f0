import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieSimulator
@testable import TophhieAgent

/// A new account's first poll reads two days of history: it alerts on none of it, and its line
/// says the place rules are still learning, with the counts so far; the next poll still tells of
/// a country never signed in from.
@Suite(.timeLimit(.minutes(20))) struct PlaceLearningPollTests {
    static let placeRules = """
    title: Success
    id: success
    name: success
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 0}, condition: selection}
    ---
    title: New country
    id: new-country
    correlation:
        type: first_seen
        rules: [success]
        group-by: [userId]
        fields: [location.countryOrRegion]
        learning: {period: 5d, events: 10, alert: lower}
    level: medium
    """

    @Test func theFirstPollIsTheBaselineAndSaysTheRulesAreLearning() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle(rules: Self.placeRules)
            let now = harness.clock.now()
            // Two days of London, and a sign-in from Lagos an hour ago: history, not news.
            let history = [-2 * 86_400.0 - 60, -86_400, -7200].map { harness.factory.signIn(at: now.addingTimeInterval($0), place: .london) }
                + [harness.factory.signIn(at: now.addingTimeInterval(-3600), place: .lagos)]
            await harness.tenant.addSignIns(history, latencySeconds: 0)
            let first = try await cycle.run(now: now)
            #expect(first.outcome == .succeeded)
            #expect(first.alerts.isEmpty, "\(first.alerts.map(\.summary))")
            #expect(first.summary.contains("place rules learning until at least \(GraphTimestamp.filterText(now.addingTimeInterval(3 * 86_400 - 60)))"), "\(first.summary)")
            #expect(first.summary.contains("(2 of 5 days, 4 of 10 of your own successes so far)"), "\(first.summary)")
            // `status` says the same, from the state the poll left.
            let health = await AgentHealth.read(stateDirectory: harness.stateDirectory, notifiers: [])
            #expect(health.placeLearning.map { first.summary.contains($0) } == true, "\(String(describing: health.placeLearning))")
            #expect(health.jsonValue.value(atPath: "placeLearning")?.stringValue == health.placeLearning)
            // And as a span, for the report's timeline: from the oldest sign-in learned to the bound.
            let period = try #require(try StateStore(stateDirectory: harness.stateDirectory).load().placeLearningPeriod)
            // (Graph's times are kept to the millisecond.)
            #expect(abs(period.start.timeIntervalSince(now.addingTimeInterval(-2 * 86_400 - 60))) < 1, "\(period)")
            #expect(abs(period.end.timeIntervalSince(now.addingTimeInterval(3 * 86_400 - 60))) < 1, "\(period)")
            // Then Moscow: a country never signed in from, told although learning goes on.
            await harness.tenant.addSignIns([harness.factory.signIn(at: now.addingTimeInterval(60), place: .moscow)], latencySeconds: 0)
            harness.clock.advance(by: 300)
            let second = try await cycle.run(now: harness.clock.now())
            let alert = try #require(second.alerts.first { $0.rule.id == "new-country" })
            #expect(alert.learning == true && alert.level == .low)
        }
    }
}
