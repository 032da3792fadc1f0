import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// The host clock checked against Graph's `Date`: a skew is told once, and a poll made with the
/// clock stepped ahead counts as made at Graph's time, so the next window still reaches the
/// sign-ins in between.
@Suite(.timeLimit(.minutes(20))) struct ClockSkewTests {
    @Test func aClockSteppedTwoDaysAheadIsToldOnceAndLosesNoBurst() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            let start = harness.clock.now()
            _ = try await cycle.run(now: start)
            await harness.failures(5, at: start.addingTimeInterval(600), spacing: 30, latency: 60)

            // The host's clock alone steps two days ahead, for two polls.
            var notices: [Alert] = []
            var alerts: [Alert] = []
            for minutes in [10.0, 15.0] {
                let real = start.addingTimeInterval(minutes * 60)
                harness.hostAhead.seconds = 2 * 86_400
                harness.clock.set(real.addingTimeInterval(2 * 86_400))
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                notices += report.notices
                alerts += report.alerts
                let state = try StateStore(stateDirectory: harness.stateDirectory).load()
                let last = try #require(state.lastSuccessfulPoll)
                #expect(abs(last.timeIntervalSince(real)) < 1, "the poll counts at Graph's time, not the host's")
            }
            #expect(notices.map(\.rule.id) == ["tophhie.notice.clock-skew"], "told once")
            #expect(notices.first?.summary.hasPrefix("The host clock is 48 h 0 min ahead of Microsoft Graph's") == true, "\(notices.first?.summary ?? "")")

            // Back on time: nothing lost, nothing told twice.
            harness.hostAhead.seconds = 0
            var later: [Alert] = []
            for minutes in [25.0, 30.0] {
                harness.clock.set(start.addingTimeInterval(minutes * 60))
                let report = try await cycle.run(now: harness.clock.now())
                alerts += report.alerts
                later += report.notices
            }
            #expect(alerts.map(\.rule.id) == ["test-burst"], "the burst read while the clock was ahead is counted, once")
            #expect(alerts.first?.events.count == 5)
            #expect(alerts.first.map { abs($0.detectedAt.timeIntervalSince(start.addingTimeInterval(900))) < 1 } == true, "at Graph's time")
            #expect(later.isEmpty, "no coverage gap, no late arrivals: \(later.map(\.rule.id))")
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().clockSkewSince == nil, "forgotten once the clocks agree")
        }
    }

    /// A step past the retention (40 days) is a wrong clock, not a coverage gap.
    @Test func aClockFortyDaysAheadSendsNoFalseCoverageGap() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            let start = harness.clock.now()
            _ = try await cycle.run(now: start)
            harness.hostAhead.seconds = 40 * 86_400
            harness.clock.set(start.addingTimeInterval(300 + 40 * 86_400))
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.outcome == .succeeded)
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.clock-skew"], "\(report.notices.map(\.rule.id))")
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().reportedGapEnd == nil)
        }
    }

    /// A clock stepped back six hours: told once (behind), and a burst Graph publishes meanwhile
    /// alerts at Graph's time rather than waiting for the host's clock to reach it.
    @Test func aClockSixHoursBehindIsToldAndWithholdsNoAlert() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            let start = harness.clock.now()
            _ = try await cycle.run(now: start)
            await harness.failures(5, at: start.addingTimeInterval(60), spacing: 30, latency: 60)
            harness.hostAhead.seconds = -6 * 3600
            harness.clock.set(start.addingTimeInterval(600 - 6 * 3600))
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.outcome == .succeeded)
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.clock-skew"])
            #expect(report.notices.first?.summary.hasPrefix("The host clock is 6 h 0 min behind Microsoft Graph's") == true, "\(report.notices.first?.summary ?? "")")
            #expect(report.alerts.map(\.rule.id) == ["test-burst"], "not withheld until the host's clock reaches Graph's")
            #expect(report.alerts.first.map { abs($0.detectedAt.timeIntervalSince(start.addingTimeInterval(600))) < 1 } == true)
        }
    }
}
