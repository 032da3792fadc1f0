import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// The texts shared by the rules matched against one event belong to that event only.
@Suite struct SlotTextsTests {
    @Test func textsAreTheEventsOwnAndAreForgottenAtTheNextEvent() {
        let slot = FieldSlot.intern(["status"])
        let texts = SlotTexts()
        texts.next()
        let first = JSONValue.object(["errorCode": .int(0), "failureReason": .string("Other")])
        #expect(texts.texts(first, slot: slot, fold: false) == [#"{"errorCode":0,"failureReason":"Other"}"#])
        #expect(texts.texts(first, slot: slot, fold: true) == [#"{"errorcode":0,"failurereason":"other"}"#])
        texts.next()
        let second = JSONValue.array([.string("A"), .array([.int(1)])])
        #expect(texts.texts(second, slot: slot, fold: true) == ["a", "[1]"])
        #expect(texts.texts(second, slot: slot, fold: false) == ["A", "[1]"])
    }

    /// A scalar's texts reuse the last event's array: each event still gets its own texts (what
    /// `FieldCondition.texts` gives), and texts a caller kept from an earlier event stay as they were.
    @Test func scalarTextsAreEachEventsOwnThoughTheirArrayIsReused() {
        let slot = FieldSlot.intern(["appDisplayName"])
        let texts = SlotTexts()
        var kept: [[String]] = []
        for value in [JSONValue.string("First App"), .null, .int(5), .bool(true), .double(2.5), .string("Z"), .array([.string("B")]), .string("Last")] {
            texts.next()
            let raw = texts.texts(value, slot: slot, fold: false)
            let folded = texts.texts(value, slot: slot, fold: true)
            #expect(raw == FieldCondition.texts(value), "\(value)")
            #expect(folded == FieldCondition.texts(value).map { $0.lowercased() }, "\(value)")
            kept.append(raw)
        }
        #expect(kept == [["First App"], [], ["5"], ["true"], ["2.5"], ["Z"], ["B"], ["Last"]])
    }

    @Test func aRuleSetMatchesTheSameThroughSharedTexts() throws {
        // Two rules reading one object field, one of them case-sensitively: each must see what it
        // would see alone.
        let text = """
        title: One
        id: one
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                Status|contains: 'FAILUREREASON'
            condition: selection
        ---
        title: Two
        id: two
        logsource: {product: azure, service: signinlogs}
        detection:
            selection:
                Status|contains|cased: 'FAILUREREASON'
            condition: selection
        """
        let set = RuleLoader.load([RuleSource(path: "two.yml", text: text)])
        #expect(!set.hasErrors, "\(set.diagnostics)")
        let event = JSONRuleEvent(eventID: "e", eventTime: Date(timeIntervalSince1970: 0),
                                  json: .object(["id": .string("e"), "status": .object(["failureReason": .string("x")])]))
        #expect(DetectionMatches(rules: set).matches([event]).map(\.ruleID) == ["one"])
    }
}

/// `SlotEvent.text(slot:)` hands a slot's string over without copying the value first; it must
/// give what `field(slot:)?.scalarText` gives for every kind of value, and for absent fields.
@Suite struct SlotEventTextTests {
    @Test func aSlotsTextIsItsValuesScalarText() throws {
        let names = ["s", "long", "i", "d", "t", "f", "n", "a", "o", "empty", "absent"]
        let layout = EventLayout(slots: names.map { FieldSlot.intern(["v", $0]) } + [FieldSlot.intern(["unread"])])
        let text = #"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","v":{"s":"Leeds","long":"a sign-in's long value past fifteen bytes","i":50126,"d":47.68050003051758,"t":true,"f":false,"n":null,"a":["x"],"o":{"k":1},"empty":""}}"#
        let event = try layout.event(Array(text.utf8))
        var texts = 0
        for name in names + ["never interned"] {
            let slot = FieldSlot.intern(["v", name])
            #expect(event.text(slot: slot) == event.field(slot: slot)?.scalarText, "\(name)")
            if event.text(slot: slot) != nil { texts += 1 }
        }
        #expect(texts == 7, "string, long string, integer, fraction, true, false and the empty string have texts")
        #expect(event.text(slot: FieldSlot.intern(["unread"])) == nil)
        #expect(event.text(slot: FieldSlot.intern(["v", "long"])) == "a sign-in's long value past fifteen bytes")
        #expect(event.text(slot: FieldSlot.intern(["v", "i"])) == "50126")
    }

    /// A record read into slots names what is wrong with its id or time, as the whole-record
    /// reader does; an id written as a number is its text.
    @Test func aRecordWithoutAnIDOrATimeIsRefusedWithItsReason() throws {
        let layout = EventLayout(slots: [])
        func message(_ text: String) -> String? {
            do { _ = try layout.event(Array(text.utf8)); return nil } catch { return "\(error)" }
        }
        #expect(message(#"{"createdDateTime":"2024-05-01T10:00:00Z"}"#) == "a sign-in has no 'id'")
        #expect(message(#"{"id":"","createdDateTime":"2024-05-01T10:00:00Z"}"#) == "a sign-in has no 'id'")
        #expect(message(#"{"id":"x"}"#) == "sign-in 'x' has no 'createdDateTime'")
        #expect(message(#"{"id":"x","createdDateTime":1714557600}"#) == "sign-in 'x' has no 'createdDateTime'")
        #expect(message(#"{"id":"x","createdDateTime":"May 1st"}"#)
                == "sign-in 'x' has createdDateTime 'May 1st', which is not an ISO 8601 time such as 2024-05-01T10:00:00Z")
        let numbered = try layout.event(Array(#"{"id":42,"createdDateTime":"2024-05-01T10:00:00Z"}"#.utf8))
        #expect(numbered.eventID == "42")
        #expect(numbered.eventTime == Date(timeIntervalSince1970: 1_714_557_600))
    }
}
