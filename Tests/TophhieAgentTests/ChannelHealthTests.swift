import Foundation
import Testing
import TophhieAuth
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// A failing channel is told through the others: once when it has failed for an hour, once when
/// it delivers again; alerts given up on are told with the command that sends them again.
@Suite(.timeLimit(.minutes(2))) struct ChannelHealthTests {
    static func cycle(_ harness: AgentHarness, hook: RecordingNotifier, mail: RecordingNotifier) throws -> PollCycle {
        let clock = harness.clock
        let dispatch = try OutboxDispatch(stateDirectory: harness.stateDirectory, notifiers: [(hook, NotifierRoute()), (mail, NotifierRoute())],
                                          now: { clock.now() }, sleep: { _ in }, random: { 0 })
        return PollCycle(auth: harness.auth(), engine: Engine(rules: try harness.rules()), store: StateStore(stateDirectory: harness.stateDirectory),
                         planner: PollPlanner(retentionDays: 30, lookback: 86_400), dispatch: dispatch)
    }

    @Test func aChannelFailingForAnHourIsToldOnTheOthersOnceAndItsRecoveryToo() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let hook = RecordingNotifier(name: "hook"), mail = RecordingNotifier(name: "mail")
            let cycle = try Self.cycle(harness, hook: hook, mail: mail)
            _ = try await cycle.run(now: harness.clock.now())
            await hook.failNext(Array(repeating: NotifierError.transient("HTTP 503"), count: 400))
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            var told: [String] = []
            for _ in 0..<20 { // 100 minutes of 5-minute polls
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                told += report.notices.map(\.rule.id)
            }
            #expect(told == ["tophhie.notice.channel-failing"], "\(told)")
            let mailGot = await mail.delivered.map(\.rule.id)
            #expect(mailGot == ["test-burst", "tophhie.notice.channel-failing"], "\(mailGot)")
            let notice = try #require(await mail.delivered.last)
            #expect(notice.summary.contains("hook: nothing delivered since"), "\(notice.summary)")
            #expect(notice.summary.contains("(HTTP 503)"))

            // The receiver works again; the channel's backoff ends within the hour.
            await hook.failNoMore()
            var after: [String] = []
            for _ in 0..<12 {
                harness.clock.advance(by: 300)
                after += try await cycle.run(now: harness.clock.now()).notices.map(\.rule.id)
            }
            #expect(after == ["tophhie.notice.channel-recovered"], "\(after)")
            #expect(await hook.delivered.map(\.rule.id).prefix(2) == ["test-burst", "tophhie.notice.channel-failing"], "the queue kept its order")
        }
    }

    @Test func alertsGivenUpOnAreToldWithTheCommandThatSendsThemAgain() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let hook = RecordingNotifier(name: "hook"), mail = RecordingNotifier(name: "mail")
            let cycle = try Self.cycle(harness, hook: hook, mail: mail)
            _ = try await cycle.run(now: harness.clock.now())
            await hook.failNext([NotifierError.permanent("HTTP 422 Unprocessable Entity")])
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.dead-lettered"])
            let notice = try #require(report.notices.first)
            #expect(notice.summary.contains("1 alert for hook given up on (HTTP 422 Unprocessable Entity)"), "\(notice.summary)")
            #expect(notice.summary.contains("'tophhie-watch outbox retry --notifier hook'"))
            #expect(await mail.delivered.map(\.rule.id) == ["test-burst", "tophhie.notice.dead-lettered"])
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty, "told once")
        }
    }
}
