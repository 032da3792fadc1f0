import Foundation
import Testing
import TophhieJSON
@testable import TophhieRules

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
