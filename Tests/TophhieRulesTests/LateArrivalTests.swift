import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// Sign-ins Graph publishes after the lookback has passed them: found by a sweep, told once.
@Suite(.timeLimit(.minutes(20))) struct LateArrivalTests {
    var engine: PlainEvaluator { PlainEvaluator(rules: loadRules(EpisodeAndUpdateTests.packRules)) }

    /// A state that has polled every hour for three days.
    func warmState() -> EngineState {
        var state = EngineState()
        for hour in 0...72 {
            state = engine.process(state, events: [], now: time(Double(hour) * 60)).0
        }
        return state
    }

    @Test func aRiskySignInPublishedThreeDaysLateAlertsLateAndIsReported() throws {
        let state = warmState()
        let late = EpisodeAndUpdateTests.risky(60, id: "late1", risk: "high")
        let outcome = engine.evaluate(state, events: [late], now: time(72 * 60 + 10))
        #expect(outcome.alerts.map(\.rule.id) == ["risky"])
        #expect(outcome.alerts.first?.late == true)
        let arrivals = try #require(outcome.lateArrivals)
        #expect(arrivals == LateArrivals(evaluated: 1, unreachable: 0, earliest: time(60), latest: time(60)))
        // The next sweep re-reads it: already processed, nothing to tell.
        let again = engine.evaluate(outcome.state, events: [late], now: time(73 * 60))
        #expect(again.alerts.isEmpty && again.lateArrivals == nil)
    }

    @Test func aBurstPublishedLateCannotBeCountedAndSaysSo() throws {
        let burst = (0..<6).map { SignIn.failure(60 + Double($0), id: "b\($0)") }
        let outcome = engine.evaluate(warmState(), events: burst, now: time(72 * 60 + 10))
        #expect(outcome.alerts.isEmpty)
        let arrivals = try #require(outcome.lateArrivals)
        #expect(arrivals.evaluated == 6 && arrivals.earliest == time(60) && arrivals.latest == time(65))
        #expect(arrivals.sentence(lookback: 86_400) == "6 sign-ins from 2024-05-01T11:00:00.000Z to 2024-05-01T11:05:00.000Z were published after the 24 h lookback had passed them; 6 were evaluated late by the single-event, first-seen and travel rules, but burst and sequence rules could not count them (their windows had closed)")
    }

    @Test func eventsOlderThanTheIDMemoryAreUnreachable() throws {
        var state = EngineState()
        for day in 0...40 { state = engine.process(state, events: [], now: time(Double(day) * 1440)).0 }
        let outcome = engine.evaluate(state, events: [EpisodeAndUpdateTests.risky(60, id: "old", risk: "high")], now: time(40 * 1440 + 5))
        #expect(outcome.alerts.isEmpty)
        #expect(outcome.lateArrivals == LateArrivals(evaluated: 0, unreachable: 1, earliest: time(60), latest: time(60)))
    }

    @Test func aStateFromBeforeTheIDMemoryDoesNotReportWhatItMayHaveSeen() throws {
        var state = warmState()
        // As written by an older version: no idMemoryFrom, ids kept only for the horizon.
        state.idMemoryFrom = nil
        state.seen = [:]
        let outcome = engine.evaluate(state, events: [EpisodeAndUpdateTests.risky(60, id: "maybe-seen", risk: "high")], now: time(72 * 60 + 10))
        #expect(outcome.alerts.isEmpty && outcome.lateArrivals == nil)
        #expect(outcome.state.idMemoryFrom == state.forgottenBefore)
    }

    @Test func anUpdateOfASignInOlderThanTheWindowsDoesNotOpenOneAgain() {
        let burst = (0..<6).map { SignIn.failure(60 + Double($0), id: "b\($0)") }
        let first = engine.evaluate(warmState(), events: burst, now: time(72 * 60 + 10))
        // Graph re-publishes them with a field filled in: still too old for any window.
        let updated = (0..<6).map { SignIn.at(60 + Double($0), id: "b\($0)", ["status": .object(["errorCode": .int(50126)]), "appDisplayName": .string("Azure Portal")]) }
        let second = engine.evaluate(first.state, events: updated, now: time(73 * 60))
        #expect(first.alerts.isEmpty && second.alerts.isEmpty)
        #expect(second.state.recent.isEmpty)
    }
}
