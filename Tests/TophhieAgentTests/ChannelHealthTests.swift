import Foundation
import Testing
import TophhieAuth
import TophhieRules
import TophhieSimulator
import TophhieSystem
@testable import TophhieAgent

/// A failing channel is told through the others: once when it has failed for an hour, once when
/// it delivers again; alerts given up on are told with the command that sends them again.
@Suite(.timeLimit(.minutes(20))) struct ChannelHealthTests {
    static func cycle(_ harness: AgentHarness, hook: RecordingNotifier, mail: RecordingNotifier) throws -> PollCycle {
        let clock = harness.clock
        let dispatch = try OutboxDispatch(stateDirectory: harness.stateDirectory, notifiers: [(hook, NotifierRoute()), (mail, NotifierRoute())],
                                          now: { clock.now() }, sleep: { _ in }, random: { 0 })
        return PollCycle(auth: harness.auth(), engine: PlainEvaluator(rules: try harness.rules()), store: StateStore(stateDirectory: harness.stateDirectory),
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
            #expect(await hook.delivered.map(\.rule.id) == ["test-burst", "tophhie.notice.channel-recovered"], "its own failing is told on the others only")
        }
    }

    /// `delivery.failing_after` sets how long a channel may fail before the others are told.
    @Test func theFailingBoundIsTheConfiguredOne() async throws {
        let configuration = try AgentConfiguration.parse("delivery:\n  failing_after: 10m\n  budget: 20s\n", file: "cfg.yml", baseDirectory: FileManager.default.temporaryDirectory, environment: [:])
        #expect(configuration.channelFailingAfter == 600 && configuration.deliveryBudget == 20)
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let hook = RecordingNotifier(name: "hook"), mail = RecordingNotifier(name: "mail")
            var cycle = try Self.cycle(harness, hook: hook, mail: mail)
            cycle.channelFailingAfter = configuration.channelFailingAfter
            _ = try await cycle.run(now: harness.clock.now())
            await hook.failNext(Array(repeating: NotifierError.transient("HTTP 503"), count: 400))
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            var toldAt: [Int] = []
            for poll in 1...4 {
                harness.clock.advance(by: 300)
                if try await cycle.run(now: harness.clock.now()).notices.contains(where: { $0.rule.id == "tophhie.notice.channel-failing" }) { toldAt.append(poll) }
            }
            #expect(toldAt == [3], "ten minutes after the first failed drain (poll 1)")
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

    /// Giving up is not recovering: a receiver still answering 503 when its alerts reach the
    /// dead-letter age is told given up on, never "delivers again", and stays failing (the
    /// heartbeat's `/fail`) until it answers 2xx.
    @Test func alertsReachingTheGiveUpAgeAreNotARecovery() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let hook = RecordingNotifier(name: "hook"), mail = RecordingNotifier(name: "mail")
            let cycle = try Self.cycle(harness, hook: hook, mail: mail)
            _ = try await cycle.run(now: harness.clock.now())
            await hook.failNext(Array(repeating: NotifierError.transient("HTTP 503"), count: 100_000))
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            var told: [String] = []
            var last: PollReport?
            for _ in 0..<(4 * 24) { // four days of hourly polls: the alert passes the 3-day give-up
                harness.clock.advance(by: 3600)
                let report = try await cycle.run(now: harness.clock.now())
                told += report.notices.map(\.rule.id)
                last = report
            }
            #expect(told == ["tophhie.notice.channel-failing", "tophhie.notice.dead-lettered"], "\(told)")
            let hookReport = try #require(last?.delivery.first { $0.notifier == "hook" })
            #expect(hookReport.failingSince != nil, "still failing: it has not answered 2xx")
            #expect(hookReport.recoveredFrom == nil)
            #expect(hookReport.hasFailed(for: PollCycle.defaultChannelFailingAfter, at: harness.clock.now()), "the heartbeat goes to /fail")

            // A 2xx ends the spell, once.
            await hook.failNoMore()
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 3600)
            let recovered = try await cycle.run(now: harness.clock.now())
            #expect(recovered.notices.map(\.rule.id) == ["tophhie.notice.channel-recovered"])
        }
    }
}

/// A receiver that takes `seconds` of the test clock per alert.
actor SlowNotifier: Notifier {
    nonisolated let name: String
    let clock: ManualClock
    let seconds: Double
    private(set) var delivered: [String] = []
    init(name: String, clock: ManualClock, seconds: Double) {
        self.name = name
        self.clock = clock
        self.seconds = seconds
    }
    func deliver(_ alert: Alert) async throws {
        clock.advance(by: seconds)
        delivered.append(alert.id)
    }
}

/// Opens once; every wait before that waits for it.
actor Gate {
    private var open = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if open { return }
        await withCheckedContinuation { waiting.append($0) }
    }
    func release() {
        open = true
        waiting.forEach { $0.resume() }
        waiting = []
    }
}

/// Holds its first delivery until the gate opens.
actor GatedNotifier: Notifier {
    nonisolated let name: String
    let gate: Gate
    private(set) var delivered: [String] = []
    init(name: String, gate: Gate) { self.name = name; self.gate = gate }
    func deliver(_ alert: Alert) async throws {
        await gate.wait()
        delivered.append(alert.id)
    }
}

/// Opens the gate once it has all `count` alerts.
actor OpeningNotifier: Notifier {
    nonisolated let name: String
    let gate: Gate
    let count: Int
    private(set) var delivered: [String] = []
    init(name: String, gate: Gate, count: Int) { self.name = name; self.gate = gate; self.count = count }
    func deliver(_ alert: Alert) async throws {
        delivered.append(alert.id)
        if delivered.count == count { await gate.release() }
    }
}

@Suite(.timeLimit(.minutes(20))) struct DeliveryBudgetTests {
    /// A receiver taking 20 s an alert gets a minute's worth a cycle, the rest next cycle, in order.
    @Test func aSlowReceiverGetsTheBudgetAndTheRestNextCycle() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-budget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock(NotifierTestAlerts.baseTime)
        let slow = SlowNotifier(name: "slow", clock: clock, seconds: 20)
        let dispatch = try OutboxDispatch(stateDirectory: directory, notifiers: [(slow, NotifierRoute())],
                                          now: { clock.now() }, sleep: { _ in }, random: { 0 }, budget: 60)
        let alerts = (0..<10).map { NotifierTestAlerts.alert(id: "a-\($0)") }
        try await dispatch.append(alerts)
        let first = await dispatch.deliverPending()
        #expect(first[0].delivered == 3 && first[0].pending == 7 && first[0].budgetSpent)
        let second = await dispatch.deliverPending()
        #expect(second[0].delivered == 3 && second[0].pending == 4)
        _ = await dispatch.deliverPending()
        _ = await dispatch.deliverPending()
        #expect(await slow.delivered == alerts.map(\.id), "every alert, in order, once")
    }

    /// A backlog drained as far as the budget allows, with more waiting, is progress: the poll
    /// went well (exit 0) and its log line names the backlog. A failure, a give-up or nothing
    /// delivered is not.
    @Test func aHealthyDrainOfABacklogWentWell() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let slow = SlowNotifier(name: "slow", clock: harness.clock, seconds: 20)
            let clock = harness.clock
            let dispatch = try OutboxDispatch(stateDirectory: harness.stateDirectory, notifiers: [(slow, NotifierRoute())],
                                              now: { clock.now() }, sleep: { _ in }, random: { 0 }, budget: 60)
            let cycle = PollCycle(auth: harness.auth(), engine: PlainEvaluator(rules: try harness.rules()), store: StateStore(stateDirectory: harness.stateDirectory),
                                  planner: PollPlanner(retentionDays: 30, lookback: 86_400), dispatch: dispatch)
            _ = try await cycle.run(now: harness.clock.now())
            try await dispatch.append((0..<10).map { NotifierTestAlerts.alert(id: "q-\($0)") })
            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            let slowReport = try #require(report.delivery.first)
            #expect(slowReport.delivered == 3 && slowReport.pending == 7 && slowReport.budgetSpent)
            #expect(report.wentWell, "progress on a backlog within the budget is not a failure")
            #expect(report.summary.contains("slow: 3 delivered, backlog of 7 pending (this cycle's delivery time was spent; the rest goes next cycle)"), "\(report.summary)")
        }
    }

    @Test(arguments: [
        (DeliveryReport(notifier: "a", delivered: 3, pending: 0, failed: 0), false, true),
        (DeliveryReport(notifier: "a", delivered: 3, pending: 7, failed: 0), true, true),
        (DeliveryReport(notifier: "a", delivered: 0, pending: 7, failed: 0), true, false),
        (DeliveryReport(notifier: "a", delivered: 3, pending: 7, failed: 0, lastError: "HTTP 503"), true, false),
        (DeliveryReport(notifier: "a", delivered: 3, pending: 7, failed: 1, lastError: "HTTP 422"), true, false),
        (DeliveryReport(notifier: "a", delivered: 3, pending: 7, failed: 0), false, false),
    ])
    func whichDrainsWentWell(_ report: DeliveryReport, _ budgetSpent: Bool, _ well: Bool) {
        var report = report
        report.budgetSpent = budgetSpent
        #expect(report.deliveredWell == well)
    }

    /// Channels drain side by side: the first channel's receiver hangs until the second one has
    /// had every alert (drained one after the other, this would never end).
    @Test func aHangingReceiverHoldsUpNobody() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-budget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = Gate()
        let hanging = GatedNotifier(name: "hanging", gate: gate), quick = OpeningNotifier(name: "quick", gate: gate, count: 10)
        let dispatch = try OutboxDispatch(stateDirectory: directory, notifiers: [(hanging, NotifierRoute()), (quick, NotifierRoute())],
                                          now: { Date() }, sleep: { _ in }, random: { 0 })
        let alerts = (0..<10).map { NotifierTestAlerts.alert(id: "b-\($0)") }
        try await dispatch.append(alerts)
        let reports = await dispatch.deliverPending()
        #expect(reports.map(\.notifier) == ["hanging", "quick"])
        #expect(reports.map(\.delivered) == [10, 10])
    }
}

/// The heartbeat says a poll failed when a notifier has been failing for an hour: the
/// monitor of the monitor hears what the notifiers cannot say.
@Suite struct HeartbeatChannelTests {
    @Test(arguments: [(30.0, "/hc/check"), (90.0, "/hc/check/fail")])
    func aNotifierFailingForAnHourPingsTheFailURL(_ minutes: Double, _ path: String) async throws {
        let (receiver, received) = inProcessReceiver { _, _ in .init(status: 200, headers: [], body: Data()) }
        let settings = HealthReporter.Settings(heartbeatURL: URL(string: "http://127.0.0.1:9/hc/check")!)
        let reporter = HealthReporter(settings: settings, transport: receiver.transport)
        let now = NotifierTestAlerts.baseTime
        var report = PollReport(outcome: .succeeded, plan: PollPlan(lowerBound: now, learning: false, alertOnlyAfter: nil, gap: nil))
        var hook = DeliveryReport(notifier: "hook", delivered: 0, pending: 3, failed: 0, lastError: "HTTP 503")
        hook.failingSince = now.addingTimeInterval(-minutes * 60)
        report.delivery = [hook]
        let problems = await reporter.record([.init(account: nil, stateDirectory: FileManager.default.temporaryDirectory, notifiers: [], report: report)], at: now)
        #expect(problems.isEmpty, "\(problems)")
        #expect(await received.requests.map(\.path) == [path])
    }
}
