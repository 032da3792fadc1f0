import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// A simulated tenant reached in-process, a signed-in framework and a poll cycle with a recording notifier, all on
/// one manual clock. Rules are small inline ones so the tests do not depend on the pack's tuning.
struct AgentHarness {
    static let userID = "26be570a-ae82-4189-b4e2-a37c6808512d"
    static let start = Date(timeIntervalSince1970: 1_788_000_000)

    static let rulesText = """
    title: Failed password
    id: test-failed
    name: test-failed
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            status.errorCode: 50126
        condition: selection
    level: low
    ---
    title: Burst of failed sign-ins
    id: test-burst
    author: Test Author
    correlation:
        type: event_count
        rules: [test-failed]
        group-by: [userId]
        timespan: 10m
        condition: {gte: 5}
    level: high
    """

    let clock: ManualClock
    let tenant: SimulatedTenant
    let endpoints: SimulatorEndpoints
    let stateDirectory: URL
    let recorder: RecordingNotifier
    var factory: SignInFactory
    /// The version the framework and the planner read the sign-in log from.
    var api: SignInLogAPI = .v1
    /// How far the agent's clock is ahead of the tenant's (the host's clock stepped alone).
    var hostAhead = HostAhead()

    final class HostAhead: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Double = 0
        var seconds: Double {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    static func start(retentionDays: Int = 30, premium: Bool = true) async throws -> AgentHarness {
        let clock = ManualClock(start)
        let scenario = SimulatorScenario(
            tenantID: "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60",
            clientID: "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c",
            user: SimulatedUser(id: userID, userPrincipalName: "jane@contoso.com", kind: .member),
            premium: premium,
            retentionDays: retentionDays,
            consentedScopes: ["User.Read", "AuditLog.Read.All"],
            deviceCode: DeviceCodeSettings(script: [.approve]))
        let ahead = HostAhead()
        let tenant = SimulatedTenant(scenario: scenario, now: { clock.now().addingTimeInterval(-ahead.seconds) })
        let endpoints = await tenant.embeddedEndpoints()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-agent-\(UUID().uuidString)")
        let harness = AgentHarness(clock: clock, tenant: tenant, endpoints: endpoints, stateDirectory: directory, recorder: RecordingNotifier(name: "recorder"), factory: SignInFactory(seed: 11, account: .init(userID: userID, userPrincipalName: "jane@contoso.com", displayName: "Jane")), hostAhead: ahead)
        do {
            try await harness.auth().signIn(scopes: [TophhieScopes.userRead, TophhieScopes.auditLogRead]) { _ in }
        } catch {
            await harness.stop()
            throw error
        }
        return harness
    }

    func auth() -> TophhieAuth {
        var configuration = TophhieConfiguration(tenant: endpoints.tenantID, clientID: endpoints.clientID, authority: endpoints.authority, graphBaseURL: endpoints.graphBaseURL, stateDirectory: stateDirectory, retentionDays: 30)
        configuration.requestDeadline = 5
        configuration.signInAPI = api
        return TophhieAuth(configuration: configuration, transport: tenant.transport(clock: clock), clock: clock, jitter: { 0.5 })
    }

    func rules(_ text: String = AgentHarness.rulesText) throws -> RuleSet {
        let set = RuleLoader.load([RuleSource(path: "test-rules.yml", text: text)])
        guard !set.hasErrors else { throw ConfigurationError("\(set.diagnostics)") }
        return set
    }

    /// A poll cycle as the agent builds it, with the recorder as its one notifier.
    func cycle(store: StateStore? = nil, retentionDays: Int = 30, rules: String = AgentHarness.rulesText) throws -> PollCycle {
        let clock = self.clock
        let dispatch = try OutboxDispatch(stateDirectory: stateDirectory, notifiers: [(recorder, NotifierRoute())], now: { clock.now() }, sleep: { _ in }, random: { 0 })
        return PollCycle(auth: auth(), engine: PlainEvaluator(rules: try self.rules(rules)), store: store ?? StateStore(stateDirectory: stateDirectory), planner: PollPlanner(retentionDays: retentionDays, lookback: 86_400, api: api), dispatch: dispatch)
    }

    /// Failed sign-ins `spacing` seconds apart starting at `at`, visible after `latency`.
    mutating func failures(_ count: Int, at: Date, spacing: Double = 30, latency: Double = 60) async {
        var events: [ScenarioSignIn] = []
        for index in 0..<count {
            events.append(ScenarioSignIn(event: factory.signIn(at: at.addingTimeInterval(Double(index) * spacing), place: .lagos, errorCode: 50126), latencySeconds: latency))
        }
        await tenant.addSignIns(events)
    }

    func stop() async {
        await tenant.stop()
        try? FileManager.default.removeItem(at: stateDirectory)
    }
}

extension AgentHarness {
    /// Runs `body` against a fresh, signed-in harness and always cleans up after it.
    static func with<T>(retentionDays: Int = 30, premium: Bool = true, _ body: (inout AgentHarness) async throws -> T) async throws -> T {
        var harness = try await start(retentionDays: retentionDays, premium: premium)
        do {
            let result = try await body(&harness)
            await harness.stop()
            return result
        } catch {
            await harness.stop()
            throw error
        }
    }
}
