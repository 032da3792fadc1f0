import Foundation
import Testing
import TophhieAuth
import TophhieRules
import TophhieSimulator
import TophhieSystem
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct PollCycleTests {
    @Test func lateEventsFireOnceAndOnlyOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now()) // learns the (empty) history
            let burstStart = harness.clock.now().addingTimeInterval(300)
            await harness.failures(3, at: burstStart, latency: 60)
            await harness.failures(2, at: burstStart.addingTimeInterval(120), latency: 3 * 3600)

            var fired: [Alert] = []
            for _ in 0..<48 { // four hours of 5-minute polls
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                fired += report.alerts
            }
            #expect(fired.map(\.rule.id) == ["test-burst"], "exactly one alert across every poll")
            let alert = try #require(fired.first)
            #expect(alert.late)
            #expect((alert.lateBySeconds ?? 0) > 2 * 3600)
            #expect(alert.events.count == 5)
            #expect(alert.rule.author == "Test Author")
            #expect(await harness.recorder.deliveredIDs == [alert.id])
        }
    }

    @Test func signInsPublishedAfterTheLookbackAreFoundByTheDailySweepAndToldOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            let burstStart = harness.clock.now().addingTimeInterval(600)
            // Five failures Graph publishes three days after they happened.
            await harness.failures(5, at: burstStart, latency: 3 * 86_400)
            var notices: [Alert] = []
            var sweeps = 0
            for _ in 0..<(5 * 24) { // five days of hourly polls
                harness.clock.advance(by: 3600)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                #expect(report.alerts.isEmpty, "a burst's window has closed; it cannot be counted")
                if report.plan.sweep { sweeps += 1 }
                notices += report.notices
            }
            #expect(sweeps == 5)
            #expect(notices.map(\.rule.id) == ["tophhie.notice.late-arrivals"])
            let notice = try #require(notices.first)
            #expect(notice.summary.hasPrefix("Graph published sign-ins long after they happened: 5 sign-ins from "))
            #expect(notice.summary.contains("were published after the 24 h lookback had passed them; 5 were evaluated late"))
            #expect(await harness.recorder.deliveredIDs == [notice.id])
        }
    }

    @Test func crashBetweenOutboxAppendAndStateCommitLosesNothingAndRepeatsNothing() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            _ = try await harness.cycle().run(now: harness.clock.now())
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 600)

            // A folder where the commit writes its temporary: the state loads, the outbox append
            // happens, then the commit fails, as a crash between the two would leave things.
            let stateFile = harness.stateDirectory.appendingPathComponent("state.json")
            let blocker = DurableFile.temporaryPath(for: stateFile.path)
            try FileManager.default.createDirectory(atPath: blocker + "/inside", withIntermediateDirectories: true)
            await #expect(throws: FileError(operation: "create", path: blocker, code: 17)) { _ = try await harness.cycle().run(now: harness.clock.now()) }
            #expect(await (try OutboxStore(stateDirectory: harness.stateDirectory.path, notifier: "recorder")).pendingCount == 1, "the alert was queued before the commit failed")
            #expect(await harness.recorder.deliveredIDs.isEmpty, "nothing was delivered before the state committed")

            // Restart: the old state is still there, the poll runs again and produces the same alert id.
            try FileManager.default.removeItem(atPath: blocker)
            harness.clock.advance(by: 60)
            let report = try await harness.cycle().run(now: harness.clock.now())
            #expect(report.alerts.count == 1)
            let outbox = try OutboxStore(stateDirectory: harness.stateDirectory.path, notifier: "recorder")
            #expect(await outbox.pendingCount == 0)
            #expect(await harness.recorder.deliveredIDs == report.alerts.map(\.id), "delivered once, with the id the crashed poll had queued")
        }
    }

    @Test func receiverDownThenUpGetsEveryAlertInOrderOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.recorder.failNext(Array(repeating: NotifierError.transient("connection refused"), count: 40))
            for burst in 0..<3 {
                await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
                harness.clock.advance(by: 3600)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.alerts.count == 1, "burst \(burst)")
            }
            #expect(await harness.recorder.deliveredIDs.isEmpty)
            let queued = try await OutboxStore(stateDirectory: harness.stateDirectory.path, notifier: "recorder").pendingEntries().map(\.alert)
            // The three bursts; the channel's own failing is told on other notifiers (none here)
            // and on the heartbeat, not queued behind them.
            #expect(queued.map(\.kind) == [.detection, .detection, .detection])
            await harness.recorder.failNoMore()
            var drained: [String] = []
            for _ in 0..<20 where drained.count < queued.count + 1 {
                harness.clock.advance(by: 300)
                _ = try await cycle.run(now: harness.clock.now())
                drained = await harness.recorder.deliveredIDs
            }
            #expect(Array(drained.prefix(queued.count)) == queued.map(\.id), "every alert, in the order it was queued, once")
            #expect(await harness.recorder.delivered.last?.rule.id == "tophhie.notice.channel-recovered")
        }
    }

    @Test func throttlingStormIsSurvived() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .throttle, count: 6, retryAfter: "2.5"))
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            var outcomes: [PollOutcome] = []
            var alerts = 0
            for _ in 0..<3 {
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                outcomes.append(report.outcome)
                alerts += report.alerts.count
                #expect(report.notices.isEmpty, "a short storm is not news")
            }
            #expect(outcomes.first != .succeeded)
            #expect(outcomes.last == .succeeded)
            #expect(alerts == 1)
            #expect(harness.clock.sleeps.contains(2.5))
        }
    }

    @Test func revokedRefreshTokenGivesOneSignInNeededNoticeThenOneRecovery() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            _ = await harness.tenant.revokeRefreshTokens()
            var notices: [Alert] = []
            for _ in 0..<30 { // 2.5 hours: the access token expires and every refresh is refused
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                notices += report.notices
            }
            #expect(notices.map(\.rule.id) == ["tophhie.notice.sign-in-needed"])
            #expect(notices.first?.summary.contains("tophhie-watch login") == true)
            #expect(notices.first?.kind == .notice)

            try await harness.auth().signIn(scopes: [TophhieScopes.userRead, TophhieScopes.auditLogRead]) { _ in }
            harness.clock.advance(by: 300)
            let recovered = try await cycle.run(now: harness.clock.now())
            #expect(recovered.notices.map(\.rule.id) == ["tophhie.notice.recovered"])
            // It names the notice it ends, so an incident receiver can resolve that one.
            #expect(recovered.notices.first?.resolves == notices.first?.id)
            #expect(notices.first?.resolves == nil)
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty)
            let delivered = await harness.recorder.deliveredIDs
            #expect(delivered.count == 2)
        }
    }

    /// The token endpoint issues tokens and Graph refuses them, after the one refresh a 401
    /// gets: that is a sign-in needed at once, not an hour of "Graph unavailable".
    @Test func aGraph401ThatSurvivesARefreshIsSignInNeededAtOnce() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .status, count: 1_000, status: 401))
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.sign-in-needed"])
            #expect(report.notices.first?.summary.contains("tophhie-watch login") == true)
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty, "told once")
        }
    }

    @Test func aCrashAfterQueuingANoticeDoesNotSendItTwice() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            _ = try await harness.cycle().run(now: harness.clock.now())
            _ = await harness.tenant.revokeRefreshTokens()
            harness.clock.advance(by: 7200)
            // The commit after the notice is queued fails, as a crash there would leave things.
            let blocker = DurableFile.temporaryPath(for: harness.stateDirectory.appendingPathComponent("state.json").path)
            try FileManager.default.createDirectory(atPath: blocker + "/inside", withIntermediateDirectories: true)
            await #expect(throws: FileError(operation: "create", path: blocker, code: 17)) { _ = try await harness.cycle().run(now: harness.clock.now()) }
            #expect(await (try OutboxStore(stateDirectory: harness.stateDirectory.path, notifier: "recorder")).pendingCount == 1, "the notice was queued")
            try FileManager.default.removeItem(atPath: blocker)
            harness.clock.advance(by: 300)
            let report = try await harness.cycle().run(now: harness.clock.now())
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.sign-in-needed"])
            #expect(await harness.recorder.deliveredIDs.count == 1, "the notice queued before the crash and the one after share an id")
        }
    }

    @Test func aLicenceRefusalIsConfirmedOverThreePollsThenToldOnce() async throws {
        try await AgentHarness.with(premium: false) { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            var noticesPerPoll: [Int] = []
            for _ in 0..<5 {
                let report = try await cycle.run(now: harness.clock.now())
                noticesPerPoll.append(report.notices.count)
                harness.clock.advance(by: 300)
            }
            #expect(noticesPerPoll == [0, 0, 1, 0, 0])
            let notice = try #require(await harness.recorder.delivered.first)
            #expect(notice.rule.id == "tophhie.notice.access-denied")
            #expect(notice.summary.contains("P1 or P2"))
        }
    }

    @Test func downtimeLongerThanRetentionGivesOneCoverageGapNotice() async throws {
        try await AgentHarness.with(retentionDays: 7) { (harness: inout AgentHarness) in
            let cycle = try harness.cycle(retentionDays: 7)
            _ = try await cycle.run(now: harness.clock.now())
            let lastPoll = harness.clock.now()
            harness.clock.advance(by: 10 * 86_400)
            let report = try await cycle.run(now: harness.clock.now())
            let gap = try #require(report.plan.gap)
            #expect(gap.from == lastPoll)
            #expect(gap.to == harness.clock.now().addingTimeInterval(-7 * 86_400))
            #expect(report.notices.map(\.rule.id) == ["tophhie.notice.coverage-gap"])
            #expect(report.notices.first?.summary.contains("can no longer be read") == true)
            // Kept in the state for the report's timeline.
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().coverageGaps == [gap])
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).notices.isEmpty)
            #expect(try StateStore(stateDirectory: harness.stateDirectory).load().coverageGaps == [gap], "one gap, told and kept once")
        }
    }

    @Test func firstRunLearnsHistoryWithoutAlertingOnIt() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(-5 * 86_400))
            let report = try await harness.cycle().run(now: harness.clock.now())
            #expect(report.plan.learning)
            #expect(report.fetched == 5)
            #expect(report.alerts.isEmpty, "a burst five days ago is history, not news")
        }
    }

    @Test func aSecondAgentOnTheSameStateDirectoryIsTurnedAway() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try StateDirectoryLock.acquire(stateDirectory: directory)
        do {
            _ = try StateDirectoryLock.acquire(stateDirectory: directory)
            Issue.record("two agents held the lock")
        } catch let held as StateDirectoryLock.Held {
            #expect(held.owner == "\(ProcessInfo.processInfo.processIdentifier)")
            #expect(held.description.contains("already running"))
        }
        first.release()
        let again = try StateDirectoryLock.acquire(stateDirectory: directory)
        again.release()
    }

    /// What a killed agent was writing is removed when the next one takes the lock; a temporary
    /// of a live process (a save under way) is left alone.
    @Test func temporariesOfDeadProcessesGoWhenTheLockIsTaken() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("outbox"), withIntermediateDirectories: true)
        // No process has the largest pid the kernel could give (pid_max is at most 4194304).
        let dead = "4194304"
        let live = "\(ProcessInfo.processInfo.processIdentifier)"
        let names = [".state.json.tmp-\(dead)", ".engine-3.json.tmp-\(dead)", ".agent.lock.tmp-\(dead)", "outbox/.recorder.jsonl.tmp-\(dead)",
                     ".state.json.tmp-\(live)", "state.json", ".hidden-but-not-ours"]
        for name in names { FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data("x".utf8)) }
        let lock = try StateDirectoryLock.acquire(stateDirectory: directory)
        defer { lock.release() }
        let left = names.filter { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
        #expect(left == [".state.json.tmp-\(live)", "state.json", ".hidden-but-not-ours"])
    }

    @Test func deletingTheLockFileDoesNotLetASecondAgentIn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try StateDirectoryLock.acquire(stateDirectory: directory)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("agent.lock"))
        #expect(throws: StateDirectoryLock.Held(path: directory.path, owner: nil)) {
            _ = try StateDirectoryLock.acquire(stateDirectory: directory)
        }
        first.release()
    }

    @Test func noticesBeforeAnyGoodPollAreNotDuplicatesOfEachOther() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            // A first install whose refresh token is refused before any poll succeeded.
            _ = await harness.tenant.revokeRefreshTokens()
            harness.clock.advance(by: 7200)
            let first = try await harness.cycle().run(now: harness.clock.now())
            #expect(first.notices.map(\.rule.id) == ["tophhie.notice.sign-in-needed"])
            // The damaged state is moved aside (the outbox stays); the problem is found again.
            try FileManager.default.removeItem(at: harness.stateDirectory.appendingPathComponent("state.json"))
            harness.clock.advance(by: 3600)
            let second = try await harness.cycle().run(now: harness.clock.now())
            #expect(second.notices.map(\.rule.id) == ["tophhie.notice.sign-in-needed"])
            #expect(first.notices.first?.id != second.notices.first?.id)
            #expect(await harness.recorder.deliveredIDs.count == 2, "the second notice was not dropped as a copy of the first")
        }
    }
}
