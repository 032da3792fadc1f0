import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
import TophhieSystem
@testable import TophhieAgent

/// One stream's trouble never holds the other's alerts: a throttled or failing stream is skipped
/// until Graph's time (kept across polls), told once when it lasts, and read from where it
/// stopped when it answers again.
@Suite(.timeLimit(.minutes(20))) struct StreamIndependenceTests {
    static let nonInteractive = "nonInteractiveUser"

    static func streamRequests(_ harness: AgentHarness, _ text: String) async -> Int {
        await harness.tenant.requests.filter { $0.path.hasSuffix("/auditLogs/signIns") && ($0.rawQuery.removingPercentEncoding ?? $0.rawQuery).contains(text) }.count
    }

    @Test func aLongRetryAfterOnTheNonInteractiveStreamHoldsNeitherTheInteractiveAlertsNorThePoll() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", queryContains: Self.nonInteractive, kind: .throttle, count: 1000, retryAfter: "120"))
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 300)
            let polled = harness.clock.now()
            let report = try await cycle.run(now: polled)
            #expect(report.outcome == .succeeded)
            #expect(report.alerts.map(\.rule.id) == ["test-burst"], "the interactive stream's burst goes out in the same poll")
            #expect(await harness.recorder.deliveredIDs == report.alerts.map(\.id))
            #expect(!harness.clock.sleeps.contains(120), "a Retry-After over 30 s is not waited inside a poll")
            #expect(harness.clock.now() == polled, "the poll spent no time waiting")
            let state = try StateStore(stateDirectory: harness.stateDirectory).load()
            #expect(state.streamHealth[.nonInteractive]?.retryAfter == polled.addingTimeInterval(120))
            #expect(state.streamHealth[.interactive] == nil)
            // `status` shows it.
            let health = await AgentHealth.read(stateDirectory: harness.stateDirectory, notifiers: [], api: .beta)
            #expect(health.failingStreams[.nonInteractive]?.retryAfter == polled.addingTimeInterval(120))
            #expect(health.jsonValue.value(atPath: "failingStreams.0.stream") == .string("nonInteractive"))
            // and how far each stream's re-read has come.
            #expect(Set(health.rereads.keys) == [.interactive, .nonInteractive])
            #expect(health.jsonValue.value(atPath: "rereads.0.stream") == .string("interactive"))
            #expect(health.lastSweep != nil)

            // The next poll comes before Graph's time: the stream is not asked at all.
            let asked = await Self.streamRequests(harness, Self.nonInteractive)
            harness.clock.advance(by: 60)
            let early = try await cycle.run(now: harness.clock.now())
            #expect(early.outcome == .succeeded)
            #expect(early.plan.waiting == [.nonInteractive])
            #expect(await Self.streamRequests(harness, Self.nonInteractive) == asked, "Retry-After is honoured across polls")
        }
    }

    @Test func aRetryAfterOfThirtySecondsIsWaitedInsideThePoll() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", queryContains: Self.nonInteractive, kind: .throttle, count: 1, retryAfter: "30"))
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.outcome == .succeeded)
            #expect(harness.clock.sleeps.contains(30))
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().streamHealth.isEmpty, "read after the wait: nothing is failing")
        }
    }

    @Test func aStreamThrottledPastFifteenMinutesIsToldOnceAndOnceWhenItRecoversAndWhatItMissedStillAlerts() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle(rules: SignInStreamPollTests.deviceCodeRule)
            _ = try await cycle.run(now: harness.clock.now())
            // Throttled for six polls (one request each: the rest of the stream is skipped).
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", queryContains: Self.nonInteractive, kind: .throttle, count: 6, retryAfter: "120"))
            let throttledFrom = harness.clock.now().addingTimeInterval(300)
            let redemption = harness.factory.signIn(at: throttledFrom.addingTimeInterval(30), place: .moscow, interactive: false, method: .deviceCodeRedemption)
            await harness.tenant.addSignIns([redemption], latencySeconds: 60)
            var notices: [Alert] = []
            var alerts: [Alert] = []
            for _ in 0..<10 {
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                notices += report.notices
                alerts += report.alerts
            }
            #expect(notices.map(\.rule.id) == ["tophhie.notice.stream-failing", "tophhie.notice.stream-recovered"])
            let failing = try #require(notices.first)
            #expect(failing.summary.hasPrefix("The non-interactive sign-in stream has not been read since \(GraphTimestamp.alertText(throttledFrom)) (Graph failed reading your sign-in history (GET /auditLogs/signIns): HTTP 429"))
            #expect(failing.summary.contains("Not watched meanwhile: the sign-ins your apps make with a token they hold"))
            #expect(failing.detectedAt == throttledFrom.addingTimeInterval(900), "told once the spell reached 15 minutes")
            #expect(notices.last?.summary.hasPrefix("The non-interactive sign-in stream is read again after failing since \(GraphTimestamp.alertText(throttledFrom))") == true)
            #expect(alerts.map(\.rule.id) == ["test-device-code"], "the redemption made while the stream was throttled is read from where it stopped")
            #expect(await harness.recorder.deliveredIDs == [failing.id] + alerts.map(\.id) + [notices[1].id])
        }
    }

    /// While no stream is read the poll fails and the standing problem speaks; the stream that
    /// is still failing once the other answers is told then, with the spell's true start.
    @Test func aStreamFailingWhileTheOtherAnswersAgainIsToldOnlyThen() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            // Both streams for four polls (one request each a poll), the non-interactive one on.
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", kind: .throttle, count: 8, retryAfter: "60"))
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", queryContains: Self.nonInteractive, kind: .throttle, count: 1000, retryAfter: "60"))
            let failingFrom = harness.clock.now().addingTimeInterval(300)
            var outcomes: [Bool] = []
            var notices: [Alert] = []
            for _ in 0..<6 {
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                outcomes.append(report.outcome == .succeeded)
                notices += report.notices
            }
            #expect(outcomes == [false, false, false, false, true, true])
            #expect(notices.map(\.rule.id) == ["tophhie.notice.stream-failing"], "\(notices.map(\.rule.id))")
            #expect(notices.first?.summary.hasPrefix("The non-interactive sign-in stream has not been read since \(GraphTimestamp.alertText(failingFrom))") == true)
            #expect(notices.first?.detectedAt == failingFrom.addingTimeInterval(4 * 300))
        }
    }

    @Test func bothStreamsUnreadableStillFailThePollAsBefore() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", kind: .throttle, count: 1000, retryAfter: "600"))
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            guard case .failed(.unavailable, let detail, _) = report.outcome else { Issue.record("\(report.outcome)"); return }
            #expect(detail.hasPrefix("Graph failed reading your sign-in history (GET /auditLogs/signIns): HTTP 429"))
            harness.clock.advance(by: 300)
            let waiting = try await cycle.run(now: harness.clock.now())
            guard case .failed(.unavailable, let waited, _) = waiting.outcome else { Issue.record("\(waiting.outcome)"); return }
            #expect(waiting.plan.waiting == [.interactive, .nonInteractive])
            #expect(waited.hasPrefix("no sign-in stream could be read: interactive: Graph asked to wait until "))
        }
    }
}
