import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// The poll reads both of beta's streams, falls back to v1.0's interactive one when beta is
/// refused (saying so once), and keeps its Graph budget with a busy non-interactive stream.
@Suite(.timeLimit(.minutes(20))) struct SignInStreamPollTests {
    static let deviceCodeRule = """
    title: Device code
    id: test-device-code
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            originalTransferMethod: deviceCodeFlow
        condition: selection
    level: high
    """

    static func signInRequests(_ harness: AgentHarness) async -> [RecordedRequest] {
        await harness.tenant.requests.filter { $0.path.hasSuffix("/auditLogs/signIns") }
    }

    @Test func aDeviceCodeRedemptionInTheNonInteractiveStreamAlertsThroughBetaAndIsUnseenByVersionOne() async throws {
        for api in [SignInLogAPI.beta, .v1] {
            try await AgentHarness.with { (harness: inout AgentHarness) in
                harness.api = api
                let cycle = try harness.cycle(rules: Self.deviceCodeRule)
                _ = try await cycle.run(now: harness.clock.now())
                let redemption = harness.factory.signIn(at: harness.clock.now().addingTimeInterval(60), place: .moscow, interactive: false, method: .deviceCodeRedemption)
                await harness.tenant.addSignIns([redemption], latencySeconds: 60)
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                #expect(report.api == api)
                if api == .beta {
                    #expect(report.alerts.map(\.rule.id) == ["test-device-code"])
                    #expect(report.alerts.first?.events.first?.id == redemption["id"]?.stringValue)
                } else {
                    #expect(report.alerts.isEmpty, "v1.0 has no non-interactive stream")
                }
                let paths = Set(await Self.signInRequests(harness).map(\.path))
                #expect(paths == [api == .beta ? "/beta/auditLogs/signIns" : "/v1.0/auditLogs/signIns"])
            }
        }
    }

    @Test(arguments: [403, 400])
    func aRefusedBetaFallsBackToVersionOneWithOneNoticeAndOneWhenItAnswersAgain(_ status: Int) async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            await harness.tenant.refuseBeta(with: status)
            let cycle = try harness.cycle()
            var notices: [Alert] = []
            var reports: [PollReport] = []
            let first = try await cycle.run(now: harness.clock.now())
            notices += first.notices
            #expect(first.outcome == .succeeded)
            #expect(first.api == .v1)
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            for _ in 0..<12 {
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                reports.append(report)
                notices += report.notices
            }
            #expect(reports.allSatisfy { $0.outcome == .succeeded && $0.api == .v1 })
            #expect(reports.flatMap(\.alerts).map(\.rule.id) == ["test-burst"], "interactive sign-ins are still watched")
            #expect(notices.map(\.rule.id) == ["tophhie.notice.streams-narrowed"])
            let told = try #require(notices.first)
            #expect(told.summary.hasPrefix("Graph refused the beta sign-in log (HTTP \(status) \(status == 403 ? "Authorization_RequestDenied" : "Request_BadRequest")), so only interactive sign-ins are read, from v1.0. Not watched until beta answers again: non-interactive sign-ins"))
            let state = try StateStore(stateDirectory: harness.stateDirectory).load()
            #expect(state.fallback?.refusal.status == status)
            let health = await AgentHealth.read(stateDirectory: harness.stateDirectory, notifiers: [], api: .beta)
            #expect(health.streams == [.interactive] && health.fallback?.since == harness.clock.now().addingTimeInterval(-12 * 300))
            #expect(health.jsonValue["streams"] == .array([.string("interactive")]))

            // Beta is asked again a day later; refused again, nothing new is said.
            harness.clock.advance(by: 86_400)
            let again = try await cycle.run(now: harness.clock.now())
            #expect(again.notices.isEmpty && again.api == .v1)
            let asked = await Self.signInRequests(harness).filter { $0.path.hasPrefix("/beta/") }.count
            #expect(asked == 2, "beta asked at the first poll and once a day after")

            await harness.tenant.refuseBeta(with: nil)
            harness.clock.advance(by: 86_400)
            let back = try await cycle.run(now: harness.clock.now())
            #expect(back.api == .beta)
            #expect(back.notices.map(\.rule.id) == ["tophhie.notice.streams-restored"])
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().fallback == nil)
            #expect(await AgentHealth.read(stateDirectory: harness.stateDirectory, notifiers: [], api: .beta).streams == [.interactive, .nonInteractive])
        }
    }

    @Test func aRefusedNonInteractiveFilterFallsBackToo() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.refuseNonInteractiveFilter(true)
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.outcome == .succeeded && report.api == .v1)
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.streams-narrowed"])
        }
    }

    /// 2,500 interactive and 25,000 non-interactive sign-ins in the lookback: a poll with nothing
    /// new reads each stream's new sign-ins and a few pages of its lookback walk, never more than
    /// five sign-in requests in ten seconds (Graph's budget), and a sign-in published three hours
    /// late is still found as the walk goes down the window.
    @Test func aBusyNonInteractiveStreamIsWalkedWithinGraphsBudgetAndLateSignInsAreStillFound() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let now = harness.clock.now()
            var events: [JSONValue] = []
            for n in 0..<2_500 { events.append(harness.factory.signIn(at: now.addingTimeInterval(-Double(n) * 34.5 - 1))) }
            for n in 0..<25_000 { events.append(harness.factory.signIn(at: now.addingTimeInterval(-Double(n) * 3.45 - 1), app: .outlook, interactive: false)) }
            await harness.tenant.addSignIns(events, latencySeconds: 0)
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: now)
            await harness.tenant.clearRequestLog()
            harness.clock.advance(by: 300)
            let quiet = try await cycle.run(now: harness.clock.now())
            #expect(quiet.outcome == .succeeded && quiet.alerts.isEmpty)
            #expect(quiet.decoded == 0, "every sign-in recognised from its bytes: \(quiet.decoded) decoded, e.g. \(quiet.decodedExamples)")
            // The walks' lengths are not known before their first pages: a page each.
            #expect(await Self.signInRequests(harness).count == 4)
            #expect(quiet.requests == 4)

            // Five failures three hours ago, published only now.
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(-3 * 3600), latency: 3 * 3600 + 60)
            var alerts: [Alert] = []
            var most = 0
            for _ in 0..<40 where alerts.isEmpty {
                harness.clock.advance(by: 300)
                await harness.tenant.clearRequestLog()
                let report = try await cycle.run(now: harness.clock.now())
                alerts += report.alerts
                let times = await Self.signInRequests(harness).map(\.time)
                most = max(most, times.count)
                for (n, time) in times.enumerated() where n >= RequestPacing.limit {
                    #expect(time.timeIntervalSince(times[n - RequestPacing.limit]) >= RequestPacing.window, "six sign-in requests within ten seconds")
                }
            }
            #expect(most > 4, "the non-interactive walk reads more than a page a poll once its length is known")
            #expect(alerts.map(\.rule.id) == ["test-burst"])
            #expect(alerts.first?.late == true)
        }
    }
}
