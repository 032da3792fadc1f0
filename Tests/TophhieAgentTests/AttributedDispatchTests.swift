import Foundation
import Testing
import TophhieAuth
import TophhieRules
@testable import TophhieAgent

/// What one of several accounts sends says whose it is; what the agent would tell alike for
/// every account (its clock, its rules) goes out once, unattributed (issue 49).
@Suite(.timeLimit(.minutes(20))) struct AttributedDispatchTests {
    /// Keeps what it is given.
    actor RecordingDispatch: AlertDispatch {
        private(set) var appended: [Alert] = []
        func append(_ alerts: [Alert], excluding: Set<String>) async throws -> Int {
            appended += alerts
            return alerts.count
        }
        func deliverPending(budget: TimeInterval?) async -> [DeliveryReport] { [] }
        nonisolated var recoveryNotes: [String] { [] }
        func deliverDirectly(_ alerts: [Alert]) async -> [String] { appended += alerts; return [] }
    }

    @Test func personNoticesAreAttributedAndAgentNoticesToldOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let now = harness.clock.now()
            let skew = SystemNotice.alert(.clockSkew, fingerprint: "host", detail: "11 min behind", since: now, now: now)
            let signIn = SystemNotice.alert(.signInNeeded, fingerprint: "gone", detail: "nobody is signed in; run 'tophhie-watch login'", since: now, now: now)
            let first = RecordingDispatch(), second = RecordingDispatch()
            let ann = AttributedDispatch(base: first, account: "ann", auth: harness.auth(), tellsAgentNotices: true)
            let ben = AttributedDispatch(base: second, account: "ben", auth: harness.auth(), tellsAgentNotices: false)
            try await ann.append([skew, signIn])
            try await ben.append([skew, signIn])
            let annSent = await first.appended, benSent = await second.appended
            #expect(annSent.map(\.id) == [skew.id, "ann-" + signIn.id])
            #expect(annSent[0].account == nil, "the host's clock is no one person's")
            #expect(annSent[1].account == AlertAccount(name: "ann", userPrincipalName: "jane@contoso.com"))
            #expect(annSent[1].summary.hasSuffix("run 'tophhie-watch login --account ann'"), "\(annSent[1].summary)")
            #expect(benSent.map(\.id) == ["ben-" + signIn.id], "the agent's notice is told once, by the first account")
        }
    }
}
