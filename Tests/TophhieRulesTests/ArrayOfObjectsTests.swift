import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// A condition on a field of an array of objects (`appliedConditionalAccessPolicies.result`)
/// holds when any element's value satisfies it: in the engine, through a sign-in read into
/// slots, and in the reference evaluator.
@Suite struct ArrayOfObjectsTests {
    static let rules = """
    title: A Conditional Access policy failed
    id: ca-policy-failed
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            appliedConditionalAccessPolicies.result: failure
        condition: selection
    level: medium
    ---
    title: Blocked by a named policy
    id: blocked-by-legacy-policy
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            appliedConditionalAccessPolicies.displayName|contains: legacy
            appliedConditionalAccessPolicies.enforcedGrantControls: Block
        condition: selection
    level: medium
    """

    static func signIn(_ id: String, _ policies: String) -> String {
        """
        {"id": "\(id)", "createdDateTime": "2024-05-01T10:00:0\(id.suffix(1))Z", "userId": "u1", "ipAddress": "203.0.113.9",
         "status": {"errorCode": 53003}, "appliedConditionalAccessPolicies": \(policies)}
        """
    }

    static let signIns = [
        signIn("s1", #"[{"displayName": "Require MFA", "result": "success", "enforcedGrantControls": ["Mfa"]}, {"displayName": "Block legacy", "result": "failure", "enforcedGrantControls": ["Block"]}]"#),
        signIn("s2", #"[{"displayName": "Require MFA", "result": "success"}, {"displayName": "Block legacy", "result": "notApplied"}]"#),
        signIn("s3", #"[]"#),
        signIn("s4", #"[{"displayName": "Require MFA", "result": "failure", "enforcedGrantControls": ["Block"]}]"#),
    ]

    static func matched(_ events: [any RuleEvent], _ evaluate: ([any RuleEvent]) -> [Alert]) -> [String] {
        evaluate(events).map { "\($0.rule.id) \($0.events[0].id)" }.sorted()
    }

    @Test func anyElementsValueSatisfiesTheCondition() throws {
        let set = loadRules(Self.rules)
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        let engine = PlainEvaluator(rules: set)
        let now = time(10)
        let trees: [any RuleEvent] = try Self.signIns.map { try SignIn.event($0) }
        let expected = ["blocked-by-legacy-policy s1", "ca-policy-failed s1", "ca-policy-failed s4"]
        #expect(Self.matched(trees) { engine.evaluate(EngineState(), events: $0, now: now).alerts } == expected)
    }

    @Test func theFieldsOfAnAppliedPolicyAreV1Fields() {
        for field in ["id", "displayName", "enforcedGrantControls", "enforcedSessionControls", "result"] {
            #expect(SignInFieldCatalog.resolve("appliedConditionalAccessPolicies.\(field)").warning == nil, "\(field)")
        }
        #expect(SignInFieldCatalog.resolve("appliedConditionalAccessPolicies.resultt").warning != nil)
    }
}
