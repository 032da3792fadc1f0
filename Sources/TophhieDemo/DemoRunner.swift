import Foundation
import TophhieReport
import TophhieAgent
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
import TophhieSystem

/// `tophhie-watch demo`: the simulated tenant, the real agent loop and the default rules, on an
/// accelerated clock, with the alerts printed as they fire.
public struct DemoRunner: Sendable {
    public var rulePaths: [String]
    /// Receives alert lines (the stdout notifier's output).
    public var write: @Sendable (String) -> Void
    /// Receives the story: what happens in the tenant and what each poll did.
    public var narrate: @Sendable (String) -> Void
    public var colour: Bool
    /// Real seconds each simulated poll interval takes; 0 runs flat out (tests).
    public var pace: Double
    /// The evaluator the agent runs the rules with (`TOPHHIE_ENGINE`).
    public var engine: EngineChoice = .plain
    /// Where to write the report of the demo's sign-ins at its end (`report`'s page); nil for none.
    public var reportPath: String?

    public init(rulePaths: [String], write: @escaping @Sendable (String) -> Void, narrate: @escaping @Sendable (String) -> Void, colour: Bool = false, pace: Double = 0.05) {
        self.rulePaths = rulePaths
        self.write = write
        self.narrate = narrate
        self.colour = colour
        self.pace = pace
    }

    /// Where the story starts on the simulated clock.
    public static let start = GraphTimestamp.parse("2026-11-30T08:00:00Z")!

    /// Runs the story to its end.
    /// - Returns: every alert that fired, in order.
    /// - Throws: `ConfigurationError` when the rules cannot be read; simulator or disk errors.
    public func run() async throws -> [Alert] {
        let timeline = DemoTimeline(start: Self.start)
        let pending = PendingSteps(timeline.steps)
        let narrate = self.narrate
        let tenantBox = TenantBox()
        let clock = DemoClock(start: Self.start, pace: pace) { now in
            for step in await pending.due(at: now, start: timeline.start) {
                if !step.narration.isEmpty { narrate("\(Self.clockText(now))  ▶ \(step.narration)") }
                if let tenant = await tenantBox.tenant {
                    await tenant.addSignIns(step.signIns)
                    for fault in step.faults { await tenant.addFault(fault) }
                }
            }
        }
        let tenant = SimulatedTenant(scenario: timeline.scenario(), now: { clock.now() })
        await tenantBox.set(tenant)
        let endpoints = try await tenant.start()
        let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stateDirectory) }

        var configuration = AgentConfiguration(stateDirectory: stateDirectory)
        configuration.tenant = endpoints.tenantID
        configuration.clientID = endpoints.clientID
        configuration.authority = endpoints.authority
        configuration.graphBaseURL = endpoints.graphBaseURL
        configuration.pollJitter = 0
        configuration.rulePaths = rulePaths
        configuration.notifiers = [NotifierConfiguration(name: "stdout", type: "stdout", options: ["colour": colour ? "always" : "never"])]

        narrate("\(Self.clockText(clock.now()))  ▶ a simulated tenant on \(endpoints.authorityHost.absoluteString) with a normal month of Jane's sign-ins and her apps' hourly token refreshes")
        let auth = TophhieAuth(configuration: try configuration.authConfiguration(), clock: clock)
        try await auth.signIn(scopes: [TophhieScopes.userRead, TophhieScopes.auditLogRead, TophhieScopes.revokeSessions]) { prompt in
            narrate("\(Self.clockText(clock.now()))  ▶ login: \(prompt.message) (approved automatically)")
        }

        let recorder = AlertLog()
        let write = self.write
        let environment = AgentSetup.Environment(variables: [EngineChoice.variable: engine.rawValue], write: { line in write(line) }, clock: clock)
        let setup = try AgentSetup.build(configuration, environment: environment)
        narrate("\(Self.clockText(clock.now()))  ▶ the agent starts: \(setup.rules.ruleCount) rules, a poll every \(DurationText.text(configuration.pollInterval)), clock accelerated")
        let loop = AgentLoop(setup: setup, rebuild: { setup }, clock: clock, random: { 0 }, log: { narrate("\(Self.clockText(clock.now()))    \($0)") }, onReport: { report in
            recorder.add(report.alerts + report.notices)
            let interesting = report.plan.learning || !report.alerts.isEmpty || !report.notices.isEmpty || report.outcome != .succeeded || !report.skipped.isEmpty
            if interesting { narrate("\(Self.clockText(clock.now()))    poll: \(report.summary)") }
        })
        let cycles = Int(timeline.duration / configuration.pollInterval) + 1
        try await loop.run(maxCycles: cycles)
        // Jane acts on the stolen-token alert: every session revoked (the thief's refresh token
        // with them, and this agent's), the agent says it must sign in again, she does, and
        // monitoring goes on.
        narrate("\(Self.clockText(clock.now()))  ▶ Jane acts on the alert: tophhie-watch respond --revoke-sessions")
        try await auth.revokeSignInSessions()
        try await BlockingWork.shared.run { try SessionRevocation(at: clock.now(), alertID: recorder.all.last { $0.rule.id == "token-from-new-place" }?.id).write(stateDirectory: stateDirectory) }
        let revoked = try await setup.cycle.run(now: clock.now())
        recorder.add(revoked.alerts + revoked.notices)
        narrate("\(Self.clockText(clock.now()))    poll: \(revoked.summary)")
        try await auth.signIn(scopes: [TophhieScopes.userRead, TophhieScopes.auditLogRead, TophhieScopes.revokeSessions]) { _ in
            narrate("\(Self.clockText(clock.now()))  ▶ Jane signs the agent in again (approved automatically)")
        }
        let resumed = try await setup.cycle.run(now: clock.now())
        recorder.add(resumed.alerts + resumed.notices)
        narrate("\(Self.clockText(clock.now()))    poll: \(resumed.summary)")
        let alerts = recorder.all
        if let reportPath {
            // The page `report` writes, of the month the tenant holds and the alerts just told.
            let from = clock.now().addingTimeInterval(-30 * 86_400)
            let fetch = try await auth.fetchSignIns(since: from)
            var digest = SignInDigest(signIns: fetch.events.compactMap { ReportSignIn(record: $0.json) }, alerts: alerts, from: from, to: clock.now())
            let profile = try? await auth.getUserProfile()
            var context = ReportContext(accountName: profile?.displayName, userPrincipalName: profile?.userPrincipalName, generatedAt: clock.now(), endsNow: true)
            if let state = try? await BlockingWork.shared.run({ try StateStore(stateDirectory: stateDirectory).load() }) {
                context.placeLearning = state.placeLearning
                for gap in state.coverageGaps { digest.shade(.gap, from: gap.from, to: gap.to) }
                if let learning = state.placeLearningPeriod { digest.shade(.learning, from: learning.start, to: learning.end) }
            }
            let page = context, written = digest
            _ = try await BlockingWork.shared.run { try ReportPage.write(written, to: reportPath, context: page) }
            narrate("\(Self.clockText(clock.now()))  ▶ the report of Jane's month: \(reportPath) (open it in a browser)")
        }
        await tenant.stop()
        narrate("\(Self.clockText(clock.now()))  ▶ done: \(cycles) polls over \(DurationText.text(timeline.duration)) of simulated time, \(alerts.filter { $0.kind == .detection }.count) alerts, \(alerts.filter { $0.kind == .notice }.count) notices")
        return alerts
    }

    static func clockText(_ date: Date) -> String {
        let text = GraphTimestamp.filterText(date)
        return String(text.dropFirst(11).prefix(5)) + "Z"
    }
}

/// Steps not yet played.
private actor PendingSteps {
    private var steps: [DemoTimeline.Step]
    init(_ steps: [DemoTimeline.Step]) { self.steps = steps }
    func due(at now: Date, start: Date) -> [DemoTimeline.Step] {
        let due = steps.filter { start.addingTimeInterval($0.at) <= now }
        steps.removeAll { start.addingTimeInterval($0.at) <= now }
        return due
    }
}

private actor TenantBox {
    var tenant: SimulatedTenant?
    func set(_ tenant: SimulatedTenant) { self.tenant = tenant }
}

private final class AlertLog: @unchecked Sendable {
    private let lock = NSLock()
    private var alerts: [Alert] = []
    func add(_ more: [Alert]) { lock.withLock { alerts += more } }
    var all: [Alert] { lock.withLock { alerts } }
}
