import Foundation
import TophhieAgent
import TophhieRules
import TophhieRulesFast

/// `tophhie-watch rules test [PATH…]`: runs every rule's test cases.
enum RulesTestCommand: CLICommand {
    struct Options: OptionGroup {
        var verbose: Option<Bool> = .flag("verbose", help: "list passing cases too")
    }

    static let about = CommandAbout(
        path: ["rules", "test"],
        summary: "Run the rules' test cases (*.tests.yml) and report any mismatch.",
        positionals: "[PATH…]",
        positionalKind: .path,
        discussion: """
        Loads every rule under PATH (default $TOPHHIE_RULES, ./rules, the installed rules, or the pack built in), then runs each *.tests.yml file beside them:
        each case feeds its events (or polls) to a fresh engine and compares the alerts of the
        file's rule with 'expect'. A mismatch shows which events were expected and which fired.
        The placeholder %tophhie_client_id% is 00000000-0000-4000-8000-0000000c11d0 here.

        Exit status: 0 when every case passes, 1 on any mismatch, 2 when rules or tests do not load.

        examples:
          tophhie-watch rules test
          tophhie-watch rules test rules/failure-burst.yml rules/failure-burst.tests.yml
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let paths = options.positionals.isEmpty ? ConnectionOptions.defaultRulePaths(io) : options.positionals
        let set = RuleLoader.load(try RuleFiles.read(paths), placeholders: .testing, refuseUnknownFields: true)
        let testSources = try RuleFiles.read(paths, select: RuleSource.isTestFile)
        for diagnostic in set.diagnostics where diagnostic.severity == .error {
            io.err(ControlCharacterEscaping.escape(diagnostic.description) + "\n")
        }
        if set.hasErrors { return .usage }
        let report = RuleTestReport.run(testSources: testSources, rules: set, engine: try EngineChoice.named(in: io, default: .plain))
        for line in report.lines(verbose: options.verbose) { io.out(ControlCharacterEscaping.escape(line) + "\n") }
        if !report.loadErrors.isEmpty { return .usage }
        return report.failed == 0 && report.passed > 0 ? .ok : .failure
    }
}

/// The results of running test files against a rule set, as lines a person reads.
struct RuleTestReport {
    var results: [RuleTestRunner.Result] = []
    var loadErrors: [String] = []
    var passed: Int { results.filter(\.passed).count }
    var failed: Int { results.count - passed }

    static func run(testSources: [RuleSource], rules: RuleSet, engine choice: EngineChoice = .plain) -> RuleTestReport {
        var report = RuleTestReport()
        let engine = choice.evaluator(rules: rules)
        let known = Set(rules.detections.map(\.metadata.id) + rules.correlations.map(\.metadata.id))
        for source in testSources {
            do {
                let file = try RuleTestFile(source: source)
                guard known.contains(file.rule) else {
                    report.loadErrors.append("\(source.path):1:1: error: rule '\(file.rule)' is not among the loaded rules")
                    continue
                }
                report.results += RuleTestRunner.run(file, rules: rules, engine: engine)
            } catch let error as RuleTestFileError {
                report.loadErrors.append(error.description)
            } catch {
                report.loadErrors.append("\(source.path): \(error)")
            }
        }
        return report
    }

    func lines(verbose: Bool) -> [String] {
        var lines = loadErrors
        func show(_ alerts: [[String]]) -> String {
            alerts.isEmpty ? "nothing" : alerts.map { "[" + $0.joined(separator: ", ") + "]" }.joined(separator: " ")
        }
        for result in results {
            if result.passed {
                if verbose { lines.append("PASS \(result.file):\(result.line): \(result.rule): \(result.caseName)") }
            } else {
                lines.append("FAIL \(result.file):\(result.line): \(result.rule): \(result.caseName)")
                lines.append("  expected: \(show(result.expected))")
                lines.append("  fired:    \(show(result.fired))")
            }
        }
        let files = Set(results.map(\.file)).count
        lines.append("\(results.count) case(s) in \(files) file(s): \(passed) passed, \(failed) failed" + (loadErrors.isEmpty ? "" : "; \(loadErrors.count) file(s) did not load"))
        return lines
    }
}
