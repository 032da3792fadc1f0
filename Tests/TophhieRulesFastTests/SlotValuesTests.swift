import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// A sign-in's slot values hold what was written into them, and a fill that fails gives none.
@Suite struct SlotValuesTests {
    @Test func valuesReadBackAsWritten() {
        let written: [JSONValue?] = [.string("0000735f-5e1d"), nil, .int(50126), .double(51.5), .bool(true), .null,
                                     .array([.string("a")]), .object(["k": .string("v")]), .string(String(repeating: "é", count: 40))]
        let values = SlotValues.make(count: written.count) { slots in
            for (place, value) in written.enumerated() { slots[place] = value }
        }
        #expect(values.count == written.count)
        for place in written.indices { #expect(values[place] == written[place]) }
        #expect(values.withValues { Array($0) } == written)
    }

    @Test func unfilledSlotsAreNil() {
        let values = SlotValues.make(count: 3) { $0[1] = .string("x") }
        #expect(values.withValues { Array($0) } == [nil, .string("x"), nil])
        #expect(SlotValues.make(count: 0) { _ in }.count == 0)
    }

    struct Refused: Error, Equatable {}

    @Test func aFillThatFailsThrowsItsError() {
        #expect(throws: Refused()) {
            _ = try SlotValues.make(count: 2) { slots in
                slots[0] = .string("half written, then freed")
                throw Refused()
            }
        }
    }

    /// A sign-in read into slots gives each slot's value as the parser's own list does.
    @Test func aSignInReadIntoSlotsHoldsWhatTheParserReads() throws {
        let layout = EventLayout(slots: [FieldSlot.intern(["status", "errorCode"]), FieldSlot.intern(["location", "city"]), FieldSlot.intern(["appDisplayName"])])
        let record = #"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","status":{"errorCode":50126},"location":{"city":"Évora"},"appDisplayName":null}"#
        let bytes = Array(record.utf8)
        let event = try layout.event(bytes)
        let streamed = try bytes.withUnsafeBytes { try layout.event($0, from: 0, order: layout.memberOrder(), texts: layout.repeatedTexts()) }
        let parsed = try JSONValue.parseSlots(bytes, layout: layout.json)
        #expect(event.values.withValues { Array($0) } == parsed)
        #expect(streamed.event.values.withValues { Array($0) } == parsed)
        #expect(streamed.end == bytes.count)
        #expect(event.eventID == "a1")
        #expect(event.text(slot: FieldSlot.intern(["location", "city"])) == "Évora")
    }

    /// Paths read beside a layout's slots, in the same walk, come to what the parser reads at
    /// them, the ones among the slots included; the event is the one read without them, and
    /// holds none of them; a record that is not JSON throws as it does without them.
    @Test func pathsReadBesideTheSlotsAreWhatTheParserReadsAndNotKept() throws {
        let layout = EventLayout(slots: [FieldSlot.intern(["status", "errorCode"]), FieldSlot.intern(["location", "city"])])
        let other = layout.alsoReading([["id"], ["status", "errorCode"], ["location", "geoCoordinates", "latitude"], ["appDisplayName"], ["missing"]])
        let record = #"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","status":{"errorCode":50126},"location":{"city":"Évora","geoCoordinates":{"latitude":38.57}},"appDisplayName":"Teams"}"#
        let bytes = Array(record.utf8)
        var taken: [JSONValue?] = []
        let read = try bytes.withUnsafeBytes { raw in
            try layout.event(raw, from: 0, alsoReading: other, order: other.memberOrder(), texts: other.repeatedTexts()) { taken = $0 }
        }
        #expect(taken == [.string("a1"), .int(50126), .double(38.57), .string("Teams"), nil])
        #expect(read.end == bytes.count)
        let plain = try layout.event(bytes)
        #expect(read.event.values.count == layout.slots.count)
        #expect(read.event.values.withValues { Array($0) } == plain.values.withValues { Array($0) })
        #expect(read.event.eventTime == plain.eventTime && read.event.revision == plain.revision)
        let broken = Array(#"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","appDisplayName":"Teams",}"#.utf8)
        let error = #expect(throws: SignInEventError.self) {
            _ = try broken.withUnsafeBytes { try layout.event($0, from: 0, alsoReading: other) { _ in } }
        }
        #expect(error?.message == "not a valid sign-in object (invalid JSON at byte 77: expected a member name in quotes)")
    }

    /// A record already parsed (a mapped export's) gives each slot the value at its path, as its
    /// bytes read into slots do: paths that share their first names, paths through arrays, a
    /// member that is not an object, and one that is absent.
    @Test func aParsedRecordGivesEachSlotTheValueAtItsPath() throws {
        let paths: [[String]] = [["status", "errorCode"], ["location", "city"], ["location", "geoCoordinates", "latitude"], ["location"],
                                 ["appDisplayName"], ["authenticationDetails", "succeeded"], ["authenticationDetails", "0", "authenticationMethod"],
                                 ["deviceDetail", "browser"], ["ipAddress", "nothing"], ["riskEventTypes"]]
        let layout = EventLayout(slots: paths.map { FieldSlot.intern($0) })
        let record = #"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","status":{"errorCode":50126},"location":{"city":"Évora","geoCoordinates":{"latitude":38.5}},"appDisplayName":null,"authenticationDetails":[{"succeeded":true,"authenticationMethod":"Password"},{"succeeded":false}],"ipAddress":"192.0.2.1","riskEventTypes":[]}"#
        let fromJSON = try layout.event(json: try JSONValue.parse(Data(record.utf8)))
        let fromBytes = try layout.event(Array(record.utf8))
        #expect(fromJSON.values.withValues { Array($0) } == fromBytes.values.withValues { Array($0) })
        #expect(fromJSON.text(slot: FieldSlot.intern(["location", "city"])) == "Évora")
        #expect(fromJSON.values.withValues { $0.compactMap { $0 }.count } == 10)
    }

    /// An event points into its layout without holding it: its values hold the layout, which
    /// lives as long as they do, whoever else lets it go.
    @Test func anEventsValuesKeepItsLayout() throws {
        let city = FieldSlot.intern(["location", "city"])
        weak var dropped: EventLayout?
        var event: SlotEvent? = try {
            let layout = EventLayout(slots: [city])
            dropped = layout
            return try layout.event(Array(#"{"id":"a1","createdDateTime":"2024-03-20T05:01:49Z","location":{"city":"Évora"}}"#.utf8))
        }()
        #expect(dropped != nil)
        #expect(event?.text(slot: city) == "Évora")
        event = nil
        #expect(dropped == nil)
    }
}
