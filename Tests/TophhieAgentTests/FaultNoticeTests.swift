import Foundation
import Testing
import TophhieAuth
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// A poll that cannot do its job, or that meets damage, says so through the notifiers, once.
@Suite(.timeLimit(.minutes(20))) struct FaultNoticeTests {
    @Test func aDamagedStateIsToldOnceThroughTheNotifiersAndEveryPollStillFails() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            let stateFile = harness.stateDirectory.appendingPathComponent("state.json")
            try Data("{\"version\": 1, \"engine\": [".utf8).write(to: stateFile)
            for _ in 0..<3 {
                harness.clock.advance(by: 300)
                await #expect(throws: ConfigurationError("the agent state is damaged; move it aside to start learning again (alerts already sent are kept in the outbox)", file: stateFile.path)) {
                    _ = try await cycle.run(now: harness.clock.now())
                }
            }
            let delivered = await harness.recorder.delivered
            #expect(delivered.map(\.rule.id) == ["tophhie.notice.state-damaged"], "one notice for one damage, not one per poll")
            #expect(delivered.first?.summary.contains("the agent state is damaged") == true)
            #expect(delivered.first?.level == .high)
            // Damaged again, differently: a new notice.
            try Data("not json".utf8).write(to: stateFile)
            harness.clock.advance(by: 300)
            await #expect(throws: ConfigurationError.self) { _ = try await cycle.run(now: harness.clock.now()) }
            #expect(await harness.recorder.delivered.map(\.rule.id) == ["tophhie.notice.state-damaged", "tophhie.notice.state-damaged"])
        }
    }

    @Test func aStateFromANewerVersionIsToldToo() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            try FileManager.default.createDirectory(at: harness.stateDirectory, withIntermediateDirectories: true)
            try Data("{\"version\": 99}".utf8).write(to: harness.stateDirectory.appendingPathComponent("state.json"))
            await #expect(throws: ConfigurationError("the agent state has version 99, this build reads versions 1 to 2", file: harness.stateDirectory.appendingPathComponent("state.json").path)) {
                _ = try await harness.cycle().run(now: harness.clock.now())
            }
            #expect(await harness.recorder.delivered.map(\.summary) == ["Monitoring has stopped until the agent state is moved aside or restored: \(harness.stateDirectory.path)/state.json: error: the agent state has version 99, this build reads versions 1 to 2"])
        }
    }

    @Test func anOutboxRepairIsToldOnceWithWhatWasRepaired() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            _ = try await harness.cycle().run(now: harness.clock.now())
            // A line that is not an entry, then an append cut short by a crash.
            let queue = harness.stateDirectory.appendingPathComponent("outbox/recorder.jsonl")
            try Data("{\"alert\": 1}\n{\"torn".utf8).write(to: queue)
            harness.clock.advance(by: 300)
            let report = try await harness.cycle().run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.outbox-repaired"])
            let summary = try #require(report.notices.first?.summary)
            #expect(summary.contains("recorder.jsonl:1: skipped an unreadable line (12 bytes)"), "\(summary)")
            #expect(summary.contains("recorder.jsonl:2: dropped a torn last line (6 bytes"), "\(summary)")
            // Both were cut from the queue; the unreadable line was kept aside for the operator.
            let aside = try String(contentsOf: harness.stateDirectory.appendingPathComponent("outbox/recorder.jsonl.damaged"), encoding: .utf8)
            #expect(aside == "{\"alert\": 1}\n")
            #expect(summary.contains("moved to \(queue.path).damaged"))
            for _ in 0..<2 {
                harness.clock.advance(by: 300)
                #expect(try await harness.cycle().run(now: harness.clock.now()).notices.map(\.rule.id) == [])
            }
            #expect(await harness.recorder.delivered.map(\.rule.id) == ["tophhie.notice.outbox-repaired"])
        }
    }

    @Test func anUnreadableSignInIsLoggedAndToldOnceWhileTheOthersAreChecked() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            _ = try await harness.cycle().run(now: harness.clock.now())
            await harness.failures(6, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 600)
            // Graph serves the page with a bad byte in the newest event's device name, every time.
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .invalidUTF8InEvent, count: 10))
            let first = try await harness.cycle().run(now: harness.clock.now())
            #expect(first.skipped.count == 1)
            #expect(first.fetched == 5)
            #expect(first.alerts.map(\.rule.id).contains("test-burst"), "five readable failures still make a burst")
            #expect(first.notices.map(\.rule.id) == ["tophhie.notice.unreadable-sign-ins"])
            let id = try #require(first.skipped.first?.id)
            #expect(first.notices.first?.summary.contains("sign-in event \(id) skipped: the event is not valid JSON (invalid UTF-8 in a string at byte ") == true)
            #expect(first.summary.contains("1 unreadable skipped"))
            for _ in 0..<2 {
                harness.clock.advance(by: 300)
                let again = try await harness.cycle().run(now: harness.clock.now())
                #expect(again.skipped.isEmpty, "already reported: not logged again")
                #expect(again.skippedAgain == 1)
                #expect(again.summary.contains("1 unreadable skipped (1 reported before)"))
                #expect(again.notices.isEmpty)
            }
        }
    }

    @Test func aReceiverThatIsGoneIsToldThroughTheOtherNotifiersOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let gone = RecordingNotifier(name: "hook")
            let clock = harness.clock
            let dispatch = try OutboxDispatch(stateDirectory: harness.stateDirectory, notifiers: [(gone, NotifierRoute()), (harness.recorder, NotifierRoute())], now: { clock.now() }, sleep: { _ in }, random: { 0 })
            let cycle = PollCycle(auth: harness.auth(), engine: PlainEvaluator(rules: try harness.rules()), store: StateStore(stateDirectory: harness.stateDirectory), planner: PollPlanner(retentionDays: 30, lookback: 86_400), dispatch: dispatch)
            _ = try await cycle.run(now: harness.clock.now())
            await harness.failures(6, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 600)
            await gone.failNext([.gone("webhook https://hooks.example/…: HTTP 410 Gone")])
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.endpoint-disabled"])
            let hook = try #require(report.delivery.first { $0.notifier == "hook" })
            #expect(hook.disabled?.reason == "webhook https://hooks.example/…: HTTP 410 Gone")
            #expect(hook.pending == report.alerts.count + 1, "the alerts and the notice wait for it")
            #expect(report.summary.contains("hook: disabled by its receiver since"))
            let told = await harness.recorder.delivered
            #expect(told.map(\.rule.id).contains("tophhie.notice.endpoint-disabled"), "the other notifier heard in the same poll")
            #expect(told.last?.summary.contains("hook: webhook https://hooks.example/…: HTTP 410 Gone") == true)
            for _ in 0..<2 {
                harness.clock.advance(by: 300)
                #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty)
            }
            #expect(await harness.recorder.delivered.filter { $0.rule.id == "tophhie.notice.endpoint-disabled" }.count == 1)
            #expect(await gone.attempts == 1)
        }
    }
}
