import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules
@testable import TophhieRulesFast

/// An event the reading thread worked out ahead (`PreparedEvent.workAhead`) gives the engine
/// what it would have worked out itself.
@Suite struct PreparedEventTests {
    @Test func anEventWorkedOutAheadKeepsItsRevision() throws {
        let layout = EventLayout(slots: [FieldSlot.intern(["appDisplayName"])])
        let events: [any RuleEvent] = try ["Azure Portal", "Azure portal"].map { app in
            try layout.event(Array(#"{"id":"a","createdDateTime":"2024-05-01T10:00:00Z","appDisplayName":"\#(app)"}"#.utf8))
        }
        let engine = Engine(rules: RuleLoader.load([]))
        let prepared = engine.prepare(events)
        let before = prepared.map(\.revision)
        #expect(before[0] != nil && before[0] != before[1], "the two contents have revisions of their own")
        engine.workAhead(prepared, until: { false })
        #expect(prepared.map(\.revision) == before)
        #expect(prepared.map(\.revision) == events.map(\.revision))
        // The id with its hash, handed over once.
        let key = try #require(prepared[1].takeIDKey())
        #expect(key == HashedText("a") && key.text == "a")
        #expect(prepared[1].takeIDKey() == nil)
    }
    /// The group a first-seen or travel rule asks for is the one the engine works out itself:
    /// folded, and none for a sign-in without the field; a sign-in no such rule takes gets none
    /// worked out.
    @Test func aGroupWorkedOutAheadIsTheEnginesOwn() throws {
        let engine = Engine(rules: RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules])))
        let slots = try #require(engine.plan.sharedGroupSlots)
        #expect(slots == [FieldSlot.intern(["userId"])])
        let layout = try #require(engine.eventLayout)
        func signIn(_ id: String, _ members: String) throws -> any RuleEvent {
            try layout.event(Array(#"{"id":"\#(id)","createdDateTime":"2024-05-01T10:00:00Z",\#(members)}"#.utf8))
        }
        let events = try [
            signIn("a", #""userId":"7C1F0C4E-0000-4000-8000-000000000398","status":{"errorCode":0}"#),
            signIn("b", #""status":{"errorCode":0}"#),
            signIn("c", #""userId":"u1","status":{"errorCode":12345}"#),
        ]
        let prepared = engine.prepare(events)
        engine.workAhead(prepared, until: { false })
        var keys = GroupKeyCache()
        let own = try #require(EventGroup(fastEvent(events[0]), slots: slots, keys: &keys))
        #expect(prepared[0].sharedGroup == .some(own.hashed))
        #expect(own.key == "7c1f0c4e-0000-4000-8000-000000000398")
        #expect(prepared[1].sharedGroup == .some(nil), "no user: no group")
        #expect(prepared[2].sharedGroup == nil, "a sign-in no first-seen or travel rule takes")
    }

    /// Batches whose matching was left for later (`prepareLater`), matched ahead for none, some
    /// or all of their events before the engine takes them, give the alerts and the state of
    /// batches matched at once: the engine matches what the reading thread had no time for.
    @Test(arguments: [0, 1, 7, 16, 33, Int.max])
    func eventsMatchedLaterGiveWhatEventsMatchedAtOnceGive(_ ahead: Int) throws {
        let pack = try RuleSource.read(paths: [RepoPaths.rules])
        let rules = RuleLoader.load(pack + [RuleSource(path: "extra.yml", text: CheckpointTests.extraRules)])
        let engine = Engine(rules: rules)
        var alerts = 0
        for seed in 1...3 {
            let events = CheckpointTests.history(seed: UInt64(seed), count: 400).sorted { ($0.eventTime, $0.eventID) < ($1.eventTime, $1.eventID) }
            let now = events.last!.eventTime
            var atOnce = engine.beginPass(EngineState(), now: now)
            var later = engine.beginPass(EngineState(), now: now)
            var start = 0
            while start < events.count {
                let batch: [any RuleEvent] = Array(events[start..<min(start + 50, events.count)])
                atOnce.add(prepared: engine.prepare(batch))
                let prepared = engine.prepareLater(batch)
                // Asked for after `ahead` events (tested every 16, as the reading thread is).
                var asked = 0
                engine.workAhead(prepared, until: { defer { asked += 16 }; return asked >= ahead })
                later.add(prepared: prepared)
                atOnce.checkpoint(batch.last!.eventTime)
                later.checkpoint(batch.last!.eventTime)
                start += 50
            }
            let expected = atOnce.finish(), found = later.finish()
            #expect(found.alerts.map(AlertJSON.line) == expected.alerts.map(AlertJSON.line), "seed \(seed)")
            #expect(found.state == expected.state, "seed \(seed)")
            alerts += expected.alerts.count
        }
        #expect(alerts > 20, "the histories must raise alerts for the comparison to mean anything")
    }
}
