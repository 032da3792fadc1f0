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
        let prepared = Engine(rules: RuleLoader.load([])).prepare(events)
        let before = prepared.map(\.revision)
        #expect(before[0] != nil && before[0] != before[1], "the two contents have revisions of their own")
        for event in prepared { event.workAhead() }
        #expect(prepared.map(\.revision) == before)
        #expect(prepared.map(\.revision) == events.map(\.revision))
    }
}
