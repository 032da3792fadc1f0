import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules

/// The default pack in rules/: every rule loads cleanly and passes its own test cases.
@Suite(.timeLimit(.minutes(20))) struct RulePackTests {
    static let expectedIDs = ["account-lockout", "agent-token-elsewhere", "ca-blocked-burst", "device-code-sign-in", "disabled-account", "failure-burst",
                              "first-factor-new-place", "impossible-travel", "legacy-auth", "mfa-denied-by-user", "mfa-fatigue",
                              "new-country", "new-device", "risky-sign-in", "ropc-or-legacy-agent", "single-factor-from-new-place",
                              "success-after-failures", "sustained-failure", "token-from-new-place"]

    @Test func everyRuleLoadsWithItsFileNameAsID() throws {
        let sources = try RuleSource.read(paths: [RepoPaths.rules])
        let set = RuleLoader.load(sources)
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        let fileNames = sources.map { (($0.path as NSString).lastPathComponent as NSString).deletingPathExtension }.sorted()
        #expect(fileNames == RulePackTests.expectedIDs)
        let ids = Set(set.detections.map(\.metadata.id) + set.correlations.map(\.metadata.id))
        for id in RulePackTests.expectedIDs { #expect(ids.contains(id), "rule id \(id)") }
    }

    @Test func everyCasePasses() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules]), placeholders: .testing)
        let tests = try RuleSource.read(paths: [RepoPaths.rules], select: RuleSource.isTestFile)
        #expect(tests.count == RulePackTests.expectedIDs.count, "each rule has a tests file")
        var total = 0
        for source in tests {
            let file = try RuleTestFile(source: source)
            let results = RuleTestRunner.run(file, rules: set)
            total += results.count
            #expect(results.contains { !$0.expected.isEmpty } && results.contains { $0.expected.isEmpty }, "\(source.path) has cases that fire and cases that must not")
            for result in results {
                #expect(result.passed, "\(result.file):\(result.line) \(result.caseName): expected \(result.expected), fired \(result.fired)")
            }
        }
        #expect(total >= 30)
    }

    @Test func aWrongExpectationIsReported() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules]))
        let text = """
        rule: account-lockout
        cases:
            - name: wrong on purpose
              events:
                  - {id: l1, createdDateTime: "2024-05-01T10:00:00Z", status: {errorCode: 50053}}
              expect: []
        """
        let results = RuleTestRunner.run(try RuleTestFile(source: RuleSource(path: "x.tests.yml", text: text)), rules: set)
        #expect(results.count == 1 && !results[0].passed && results[0].fired == [["l1"]])
    }
}
