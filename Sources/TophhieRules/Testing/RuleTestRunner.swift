import Foundation

/// Runs test cases against a rule set: the "examples are the documentation and the test" check.
public enum RuleTestRunner {
    /// The outcome of one case.
    public struct Result: Sendable {
        public var file: String
        public var rule: String
        public var caseName: String
        public var line: Int
        /// The sorted event ids of each expected alert.
        public var expected: [[String]]
        /// The sorted event ids of each alert that fired for the rule.
        public var fired: [[String]]
        public var passed: Bool { expected == fired }
    }

    /// Runs every case of `file`; each case starts from an empty state.
    /// - Parameter engine: the evaluator that runs the rules (the plain one unless given).
    public static func run(_ file: RuleTestFile, rules: RuleSet, engine: (any RuleEvaluator)? = nil) -> [Result] {
        let engine = engine ?? PlainEvaluator(rules: rules)
        return file.cases.map { testCase in
            var state = EngineState()
            var fired: [[String]] = []
            for poll in testCase.polls {
                let outcome = engine.evaluate(state, events: poll.events, now: poll.at, alertOnlyAfter: testCase.alertAfter)
                state = outcome.state
                fired += outcome.alerts.filter { $0.rule.id == file.rule }.map { $0.events.map(\.id).sorted() }
            }
            return Result(file: file.file, rule: file.rule, caseName: testCase.name, line: testCase.line,
                          expected: testCase.expected.sorted { $0.lexicographicallyPrecedes($1) },
                          fired: fired.sorted { $0.lexicographicallyPrecedes($1) })
        }
    }
}
