import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// A batch's stored events join the stored events in place: an update within the batch leaves
/// only its latest version, and a batch that reaches back before the last stored event is
/// merged in time order, not appended.
@Suite struct StoredEventsTests {
    static func failed(_ minutes: Double, id: String, city: String = "London") -> JSONRuleEvent {
        SignIn.at(minutes, id: id, ["status": .object(["errorCode": .int(50126)]), "location": .object(["city": .string(city)])])
    }

    /// Five failures, one of them published twice in the batch with other content: a burst of
    /// five distinct sign-ins, not six.
    @Test func anUpdateWithinABatchIsStoredOnce() throws {
        let engine = PlainEvaluator(rules: loadRules(EpisodeAndUpdateTests.packRules))
        let events: [any RuleEvent] = [
            Self.failed(0, id: "f1"), Self.failed(1, id: "f2"), Self.failed(2, id: "f3"),
            Self.failed(3, id: "f4"), Self.failed(4, id: "f5"), Self.failed(4.5, id: "f3", city: "Leeds"),
        ]
        let outcome = engine.evaluate(EngineState(), events: events, now: time(30))
        #expect(outcome.state.recent.map(\.id).sorted() == ["f1", "f2", "f3", "f4", "f5"])
        let burst = try #require(outcome.alerts.first { $0.rule.id == "burst" })
        #expect(burst.eventCount == 5)
        #expect(Set(burst.events.map(\.id)).count == burst.events.count)
    }

    /// A second poll holding a failure from before the first poll's last: the stored events
    /// stay in time order (a checkpoint cuts them by time from the front).
    @Test func aBatchReachingBackIsMergedInTimeOrder() {
        let engine = PlainEvaluator(rules: loadRules(EpisodeAndUpdateTests.packRules))
        let first = engine.evaluate(EngineState(), events: [Self.failed(0, id: "a"), Self.failed(5, id: "b"), Self.failed(9, id: "c")], now: time(10))
        let second = engine.evaluate(first.state, events: [Self.failed(7, id: "late"), Self.failed(11, id: "d")], now: time(12))
        let stored = second.state.recent.map { ($0.time, $0.id) }
        #expect(stored.map(\.1) == ["a", "b", "late", "c", "d"])
        #expect(zip(stored, stored.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
