import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

@Suite struct ExactSetsTests {
    /// A long list of exact values matches through sets; every value must get the answer the
    /// walk through the list gives: numbers against numbers and numeric strings, strings in
    /// other cases, lists, objects, booleans, null and absence.
    @Test func aLongListMatchesThroughSetsAsTheWalkDoes() throws {
        let listed: [RuleValue] = [.int(50053), .int(50126), .double(1.5), .string("50057"), .string("IMAP"), .string("Exchange ActiveSync"),
                                   .string("true"), .string("[]"), .int(0), .string("é")]
        let condition = try FieldCondition(sourceField: "x", path: "x", modifiers: [], values: listed, isList: true)
        #expect(FieldMatchPlan(condition).exactSets != nil)
        let values: [JSONValue?] = [
            .int(50053), .int(50054), .double(50053), .double(1.5), .string("50053"), .string("50053.0"), .int(50057),
            .string("50057"), .string("imap"), .string("IMAP4"), .string("exchange activesync"), .bool(true), .bool(false),
            .array([]), .array([.string("x"), .string("Imap")]), .array([.int(50126)]), .object(["a": .int(1)]), .null, nil,
            .int(0), .string("0"), .string("É"), .string(""), .double(0.1),
        ]
        var fired = 0
        for value in values {
            var object: [String: JSONValue] = ["id": .string("e"), "createdDateTime": .string("2024-05-01T10:00:00Z")]
            if let value { object["x"] = value }
            let event = PathEvent(event: JSONRuleEvent(eventID: "e", eventTime: Date(timeIntervalSince1970: 0), json: .object(object)))
            let texts = SlotTexts()
            texts.next()
            let plan = FieldMatchPlan(condition)
            let walked = plan.matchesEach(event, texts)
            let fresh = SlotTexts()
            fresh.next()
            #expect(plan.matches(event, fresh) == walked, "\(String(describing: value))")
            // Through the texts the walk left behind, as the next rule matched against the event reads them.
            #expect(plan.matches(event, texts) == walked, "\(String(describing: value))")
            if walked { fired += 1 }
        }
        #expect(fired >= 10, "the list must match some of the values for the comparison to mean anything")
        // Below the threshold, with a wildcard, or under a modifier that is not a plain equality, no sets.
        #expect(FieldMatchPlan(try FieldCondition(sourceField: "x", path: "x", modifiers: [], values: Array(listed.prefix(3)), isList: true)).exactSets == nil)
        #expect(FieldMatchPlan(try FieldCondition(sourceField: "x", path: "x", modifiers: [], values: listed + [.string("IM*")], isList: true)).exactSets == nil)
        #expect(FieldMatchPlan(try FieldCondition(sourceField: "x", path: "x", modifiers: ["contains"], values: listed, isList: true)).exactSets == nil)
        #expect(FieldMatchPlan(try FieldCondition(sourceField: "x", path: "x", modifiers: ["cased"], values: listed, isList: true)).exactSets == nil)
    }
}
