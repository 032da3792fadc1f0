import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

@Suite struct PackAgreementTests {
    /// Every rule's alerts, not only the rule under test's event ids: the same from both evaluators.
    @Test func theReferenceGivesTheEnginesAlertsOnEveryCase() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules]), placeholders: .testing)
        let engine = Engine(rules: set), reference = PlainEvaluator(rules: set)
        var alerts = 0
        for source in try RuleSource.read(paths: [RepoPaths.rules], select: RuleSource.isTestFile) {
            for testCase in try RuleTestFile(source: source).cases {
                var fastState = EngineState(), referenceState = EngineState()
                for poll in testCase.polls {
                    let fast = engine.evaluate(fastState, events: poll.events, now: poll.at, alertOnlyAfter: testCase.alertAfter)
                    let expected = reference.evaluate(referenceState, events: poll.events, now: poll.at, alertOnlyAfter: testCase.alertAfter)
                    #expect(ReferenceDifferentialTests.difference(fast, expected) == nil, "\(source.path): \(testCase.name)")
                    alerts += expected.alerts.count
                    (fastState, referenceState) = (fast.state, expected.state)
                }
            }
        }
        #expect(alerts >= 30)
    }
}
