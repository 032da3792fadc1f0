import Testing
import TophhieTestSupport
@testable import TophhieRules

/// Each problem in a rule file is reported at its exact line and column.
@Suite(.timeLimit(.minutes(20))) struct LoaderDiagnosticsTests {
    static let header = "title: T\nid: t\nlogsource: {product: azure, service: signinlogs}\n"

    @Test(arguments: [
        // (rule text after the header, line, column, message fragment)
        ("detection:\n    selection:\n        ResultType: 1\n    condition: selection and\n", 7, 29, "condition: the condition ends"),
        ("detection:\n    selection:\n        ResultType: 1\n    condition: 'selection or (x'\n", 7, 32, "never closed"),
        ("detection:\n    selection:\n        ResultType: 1\n    condition: selectoin\n", 7, 16, "'selectoin', which is not a search identifier"),
        ("detection:\n    selection:\n        ResultType|contians: 1\n    condition: selection\n", 6, 9, "unknown modifier 'contians'"),
        ("detection:\n    selection:\n        ResultType|re: '(x'\n    condition: selection\n", 6, 24, "does not compile"),
        ("detection:\n    selection:\n        ResultType: 1\n", 4, 1, "no 'condition'"),
        ("detection:\n    selection:\n        ResultType: 1\n    condition: 1 of filter*\n", 7, 16, "matches no search identifier"),
        ("level: severe\ndetection:\n    selection:\n        ResultType: 1\n    condition: selection\n", 4, 8, "'level' must be one of"),
        ("detection:\n    selection:\n        ResultType: [1, {a: b}]\n    condition: selection\n", 6, 25, "must be plain values"),
        ("detection:\n  selection:\n    ResultType: 1\n   bad: 2\n", 7, 4, "indentation"),
    ])
    func locatedErrors(_ body: String, _ line: Int, _ column: Int, _ fragment: String) {
        let set = loadRules(LoaderDiagnosticsTests.header + body, file: "broken.yml")
        let errors = set.diagnostics.filter { $0.severity == .error }
        #expect(!errors.isEmpty)
        #expect(set.detections.isEmpty)
        guard let error = errors.first else { return }
        #expect(error.file == "broken.yml")
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.message.contains(fragment), "\(error.message)")
        #expect(error.description.hasPrefix("broken.yml:\(line):\(column): error: "))
    }

    @Test(arguments: [
        ("correlation:\n    type: event_sum\n    rules: [a]\n", 5, 11, "unknown correlation type"),
        ("correlation:\n    type: event_count\n    rules: [a]\n    group-by: [userId]\n    timespan: 10 minutes\n    condition: {gte: 5}\n", 8, 15, "duration"),
        ("correlation:\n    type: event_count\n    rules: [a]\n    group-by: [userId]\n    timespan: 10m\n    condition: {most: 5}\n", 9, 17, "unknown condition operator"),
        ("correlation:\n    type: value_count\n    rules: [a]\n    group-by: [userId]\n    timespan: 10m\n    condition: {gte: 5}\n", 9, 16, "needs 'field'"),
        ("correlation:\n    type: event_count\n    rules: [nothere]\n    group-by: [userId]\n    timespan: 10m\n    condition: {gte: 5}\n", 1, 1, "references 'nothere'"),
    ])
    func correlationErrors(_ body: String, _ line: Int, _ column: Int, _ fragment: String) {
        let set = loadRules("title: C\nid: c\n" + "level: high\n" + body.replacingOccurrences(of: "correlation:", with: "correlation:"), file: "c.yml")
        let error = set.diagnostics.first { $0.severity == .error }
        #expect(set.correlations.isEmpty)
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.message.contains(fragment) == true, "\(String(describing: error?.message))")
    }

    @Test func duplicateIDsAndCyclesAreErrors() {
        let set = loadRules("""
        title: A
        id: same
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 1}, condition: selection}
        ---
        title: B
        id: same
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 2}, condition: selection}
        ---
        title: Loop
        id: loop
        correlation: {type: event_count, rules: [loop], group-by: [userId], timespan: 1m, condition: {gte: 1}}
        """)
        #expect(set.detections.count == 1)
        #expect(set.correlations.isEmpty)
        #expect(set.diagnostics.contains { $0.message.contains("already used") && $0.line == 6 })
        #expect(set.diagnostics.contains { $0.message.contains("references itself") })
    }

    /// A misspelt field loads, for the agent, as an error naming the field it was likely meant
    /// to be; a rule that means an unknown field says so; replay over other rule sets warns.
    @Test func aValueTestOnAFieldNoVersionHasIsAnErrorForTheAgent() {
        let rule = LoaderDiagnosticsTests.header + "detection: {selection: {deviceDetail.operatingSystm: Linux}, condition: selection}\n"
        let agent = RuleLoader.load([RuleSource(path: "t.yml", text: rule)], refuseUnknownFields: true)
        #expect(agent.detections.isEmpty)
        #expect(agent.diagnostics.map(\.description) == ["t.yml:4:25: error: field 'deviceDetail.operatingSystm' does not exist in the Graph signIn resource (beta or v1.0), so this rule could never fire; did you mean 'deviceDetail.operatingSystem'? set 'tophhie: {allow-unknown-fields: true}' if the rule means it"])
        let meant = RuleLoader.load([RuleSource(path: "t.yml", text: rule + "tophhie: {allow-unknown-fields: true}\n")], refuseUnknownFields: true)
        #expect(meant.detections.count == 1)
        #expect(meant.diagnostics.map(\.severity) == [.warning])
        let replay = RuleLoader.load([RuleSource(path: "t.yml", text: rule)])
        #expect(replay.detections.count == 1 && replay.diagnostics.map(\.severity) == [.warning])
    }

    /// A rule would run without what it meant: an unknown engine setting is an error, with the
    /// setting it is a letter or two from.
    @Test func unknownEngineSettingsAreErrorsNamingTheNearestOne() {
        let set = loadRules(LoaderDiagnosticsTests.header + "detection: {selection: {ResultType: 1}, condition: selection}\ntophhie:\n    suppress: 2h\n    level: critical\n    colour: red\n")
        #expect(set.detections.isEmpty)
        #expect(set.diagnostics.contains { $0.severity == .error && $0.message == "unknown engine setting 'tophhie.colour' (known: suppress, group-by, level, summary, allow-unknown-fields)" && $0.line == 8 })
        let misspelt = loadRules(LoaderDiagnosticsTests.header + "detection: {selection: {ResultType: 1}, condition: selection}\ntophhie:\n    supress: 30m\n")
        #expect(misspelt.detections.isEmpty)
        #expect(misspelt.diagnostics.map(\.message) == ["unknown engine setting 'tophhie.supress': did you mean 'suppress'? (known: suppress, group-by, level, summary, allow-unknown-fields)"])
        let known = loadRules(LoaderDiagnosticsTests.header + "detection: {selection: {ResultType: 1}, condition: selection}\ntophhie:\n    suppress: 2h\n    level: critical\n")
        #expect(known.detections.first?.options == RuleEngineOptions(suppress: RuleDuration(seconds: 7200, text: "2h"), level: .critical))
    }

    /// `levle: high` would run the rule as medium without a word: a key a letter or two from one
    /// Sigma defines is an error; a key of the rule's own that is not close to one loads.
    @Test(arguments: [("levle: high\n", "unknown key 'levle': did you mean 'level'?", 4),
                      ("falsepositive:\n    - none\n", "unknown key 'falsepositive': did you mean 'falsepositives'?", 4),
                      ("detecton: {x: 1}\n", "unknown key 'detecton': did you mean 'detection'?", 4)])
    func aMisspeltTopLevelKeyIsAnError(_ extra: String, _ message: String, _ line: Int) {
        let set = loadRules(LoaderDiagnosticsTests.header + extra + "detection: {selection: {ResultType: 1}, condition: selection}\n")
        #expect(set.detections.isEmpty)
        #expect(set.diagnostics.contains { $0.severity == .error && $0.message == message && $0.line == line }, "\(set.diagnostics)")
    }

    @Test func aKeyOfTheRulesOwnLoads() {
        let set = loadRules(LoaderDiagnosticsTests.header + "note: checked by the team\nowner: secops\ndetection: {selection: {ResultType: 1}, condition: selection}\n")
        #expect(set.detections.count == 1)
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
    }
}
