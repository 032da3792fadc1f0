import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// A stored event's values are kept by place under the plan's names, and read and compared as
/// the plain state's path → text table they come from and turn back into.
@Suite struct StoredValuesTests {
    static let names = KeptNames(["appDisplayName", "ipAddress", "userId"])

    @Test func valuesTurnIntoThePathTableOfThePlainState() {
        let values = StoredValues(names: Self.names, texts: ["Outlook", nil, "u1"])
        #expect(values.table == ["appDisplayName": "Outlook", "userId": "u1"])
    }

    @Test func decodedValuesReadByPathAndByThePlansPlaces() throws {
        // Another set of names than the plan's (a state from rules since edited): the plan's
        // places are read through the path, and a name it lacks reads as none.
        let decoded = StoredValues(["userId": "u1", "appDisplayName": "Outlook", "city": "Oslo"])
        #expect(decoded["userId"] == "u1" && decoded["city"] == "Oslo" && decoded["ipAddress"] == nil)
        #expect(decoded.text(at: 0, of: Self.names) == "Outlook")
        #expect(decoded.text(at: 1, of: Self.names) == nil)
        #expect(decoded.text(at: 2, of: Self.names) == "u1")
        #expect(decoded.names !== Self.names)
    }

    /// A plain state's stored events are taken under the plan's names, read by place, when the
    /// plan keeps every path they name; one naming a path the plan lacks keeps its own table.
    @Test func aPlainStatesEventsAreReadUnderThePlansNames() {
        var plain = EngineState()
        plain.recent = [
            EngineState.StoredEvent(id: "a", time: Date(timeIntervalSince1970: 0), rules: ["r"], values: ["userId": "u1", "ipAddress": "10.0.0.1", "appDisplayName": "Outlook"]),
            EngineState.StoredEvent(id: "b", time: Date(timeIntervalSince1970: 1), rules: ["r"], values: ["userId": "u1", "ipAddress": "10.0.0.1"]),
            EngineState.StoredEvent(id: "c", time: Date(timeIntervalSince1970: 2), rules: ["r"], values: ["userId": "u1", "location.city": "Oslo"]),
        ]
        let fast = FastState(plain, names: Self.names)
        #expect(fast.recent[0].values.names === Self.names && fast.recent[1].values.names === Self.names)
        #expect(fast.recent[0].values.text(at: 1, of: Self.names) == "10.0.0.1" && fast.recent[0].values["userId"] == "u1")
        #expect(fast.recent[1].values.text(at: 2, of: Self.names) == "u1" && fast.recent[1].values.text(at: 0, of: Self.names) == nil)
        #expect(fast.recent[2].values.names !== Self.names && fast.recent[2].values["location.city"] == "Oslo")
        #expect(fast.recent[2].values.text(at: 2, of: Self.names) == "u1")
        #expect(fast.plain == plain)
    }

    @Test func valuesAreEqualWhenTheirTablesAre() {
        let kept = StoredValues(names: Self.names, texts: ["Outlook", nil, "u1"])
        #expect(kept == StoredValues(["appDisplayName": "Outlook", "userId": "u1"]))
        #expect(kept == StoredValues(names: KeptNames(["appDisplayName", "ipAddress", "userId"]), texts: ["Outlook", nil, "u1"]))
        #expect(kept != StoredValues(["appDisplayName": "Outlook", "userId": "u2"]))
        #expect(kept != StoredValues(["appDisplayName": "Outlook", "userId": "u1", "ipAddress": ""]))
    }

    /// A window that spans two polls, its first events read back from a written state: the same
    /// alert as when the state stays in memory.
    @Test func aWindowReadsTheEventsOfAStateWrittenAndReadBack() throws {
        let engine = Engine(rules: loadRules(SampleRules.burst))
        let first = (0..<3).map { SignIn.failure(Double($0), id: "f\($0)") }
        let second = (3..<5).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (kept, none) = engine.process(EngineState(), events: first, now: time(3))
        #expect(none.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let read = try JSONDecoder().decode(EngineState.self, from: encoder.encode(kept))
        #expect(read.recent.count == 3 && read == kept)
        let (_, fromMemory) = engine.process(kept, events: first + second, now: time(5))
        let (_, fromFile) = engine.process(read, events: first + second, now: time(5))
        #expect(fromMemory.count == 1 && fromMemory[0].events.map(\.id) == ["f0", "f1", "f2", "f3", "f4"])
        #expect(fromFile.map(AlertJSON.line) == fromMemory.map(AlertJSON.line))
        #expect(fromFile.first?.group == [AlertGroupValue(field: "userId", value: "u1")])
    }

    /// A sign-in read into slots keeps its values, not copies of its texts: read, written and
    /// compared, they are what a copy of its texts gives, and what the same sign-in held whole
    /// (`JSONRuleEvent`) gives.
    @Test func aSlotEventsValuesReadAsItsTextsWould() throws {
        let paths = ["appDisplayName", "deviceDetail.browser", "ipAddress", "status.errorCode", "userId"]
        let names = KeptNames(paths, slots: paths.map { FieldSlot.intern(path: $0) })
        let record = #"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","appDisplayName":"Outlook","deviceDetail":{"browser":null},"ipAddress":"","status":{"errorCode":50126},"userId":"u1"}"#
        let layout = EventLayout(slots: names.slots)
        let slotted = StoredValues(names: names, of: try layout.event(Array(record.utf8)))
        let whole = StoredValues(names: names, of: PathEvent(event: JSONRuleEvent(eventID: "a1", eventTime: Date(timeIntervalSince1970: 0), json: try JSONValue.parse(Data(record.utf8)))))
        let texts: [String?] = ["Outlook", nil, "", "50126", "u1"]
        #expect(slotted.texts == texts)
        #expect(whole.texts == texts)
        #expect(slotted == whole)
        #expect(slotted == StoredValues(names: names, texts: texts))
        for (place, path) in paths.enumerated() {
            #expect(slotted.text(at: place, of: names) == texts[place])
            #expect(slotted[path] == texts[place])
        }
        #expect(slotted.table == ["appDisplayName": "Outlook", "ipAddress": "", "status.errorCode": "50126", "userId": "u1"])
    }
}
