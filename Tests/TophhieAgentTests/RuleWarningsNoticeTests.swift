import Foundation
import Testing
import TophhieRules
@testable import TophhieAgent

/// Rules that loaded with warnings are told through the notifiers (whatever `--quiet` hides from
/// the log), once per change of the warnings, and not at all when there are none.
@Suite(.timeLimit(.minutes(20))) struct RuleWarningsNoticeTests {
    @Test func warningsAreToldOncePerChange() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            var cycle = try harness.cycle()
            let start = harness.clock.now()
            func told(at minutes: Double) async throws -> [Alert] {
                let before = await harness.recorder.delivered.count
                _ = try await cycle.run(now: start.addingTimeInterval(minutes * 60))
                return await harness.recorder.delivered.dropFirst(before).filter { $0.rule.id == "tophhie.notice.rules-warnings" }
            }
            #expect(try await told(at: 0).isEmpty, "no warnings, no notice")
            cycle.ruleWarnings = ["rules/new-device.yml:9:9: warning: field 'deviceDetail.trustType' (Graph 'deviceDetail.trustType') exists only in the Graph beta signIn, and graph.api is v1.0: live events never carry it, so this selection cannot match them"]
            let first = try await told(at: 5)
            #expect(first.count == 1)
            #expect(first.first?.summary == "Some rules may never fire as written; 'tophhie-watch rules check --strict' lists them: 1 warning: \(cycle.ruleWarnings[0])")
            #expect(try await told(at: 10).isEmpty, "the same warnings are not told again")
            cycle.ruleWarnings.append("rules/x.yml:4:5: warning: search 'keywords' is a keyword: it matches text anywhere in the sign-in")
            #expect(try await told(at: 15).count == 1, "a changed set is told")
            cycle.ruleWarnings = []
            #expect(try await told(at: 20).isEmpty)
        }
    }
}
