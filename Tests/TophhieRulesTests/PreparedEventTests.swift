import Foundation
import Testing
@testable import TophhieRules

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
        let own = try #require(EventGroup(events[0], slots: slots, keys: &keys))
        #expect(prepared[0].sharedGroup == .some(own.hashed))
        #expect(own.key == "7c1f0c4e-0000-4000-8000-000000000398")
        #expect(prepared[1].sharedGroup == .some(nil), "no user: no group")
        #expect(prepared[2].sharedGroup == nil, "a sign-in no first-seen or travel rule takes")
    }
}
