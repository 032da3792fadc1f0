import Foundation
import LoopbackHTTP
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

/// A simulated tenant reached in-process (no socket) and a framework pointed at it, sharing one
/// manual clock: a retry wait or a device-code interval moves the clock instead of taking time.
struct TenantHarness {
    static let userID = "26be570a-ae82-4189-b4e2-a37c6808512d"
    static let start = Date(timeIntervalSince1970: 1_788_000_000) // 2026-08-29

    let clock: ManualClock
    let tenant: SimulatedTenant
    let endpoints: SimulatorEndpoints
    let stateDirectory: URL

    static func scenario(kind: SimulatedUser.Kind = .member, consented: [String] = ["User.Read", "User.ReadWrite", "AuditLog.Read.All"], script: [DeviceCodeSettings.Step] = [.approve], premium: Bool = true) -> SimulatorScenario {
        SimulatorScenario(
            tenantID: "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60",
            clientID: "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c",
            user: SimulatedUser(id: userID, userPrincipalName: "jane@contoso.com", kind: kind, profile: [
                "displayName": .string("Jane Doe"), "givenName": .string("Jane"), "surname": .string("Doe"),
                "city": .string("London"), "country": .string("GB"), "preferredLanguage": .string("en-GB"),
            ]),
            premium: premium,
            consentedScopes: consented,
            deviceCode: DeviceCodeSettings(script: script, expiresIn: 900, interval: 5))
    }

    static func start(_ scenario: SimulatorScenario = scenario(), at date: Date = start) async throws -> TenantHarness {
        let clock = ManualClock(date)
        let tenant = SimulatedTenant(scenario: scenario, now: { clock.now() })
        let endpoints = await tenant.embeddedEndpoints()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-auth-\(UUID().uuidString)")
        return TenantHarness(clock: clock, tenant: tenant, endpoints: endpoints, stateDirectory: directory)
    }

    /// The version the client reads the sign-in log from.
    var api: SignInLogAPI = .v1

    var configuration: TophhieConfiguration {
        var configuration = TophhieConfiguration(tenant: endpoints.tenantID, clientID: endpoints.clientID, authority: endpoints.authority, graphBaseURL: endpoints.graphBaseURL, stateDirectory: stateDirectory)
        configuration.requestDeadline = 5
        configuration.signInAPI = api
        return configuration
    }

    /// Requests go to the tenant in-process; delays are slept on the harness clock.
    var transport: EmbeddedTransport { tenant.transport(clock: clock) }

    func auth() -> TophhieAuth {
        TophhieAuth(configuration: configuration, transport: transport, clock: clock, jitter: { 0.5 })
    }

    /// Signs in through the device-code flow with the scenario's script.
    @discardableResult
    func signIn(_ scopes: [String] = [TophhieScopes.userRead, TophhieScopes.auditLogRead, TophhieScopes.userReadWrite]) async throws -> CachedSession {
        try await auth().signIn(scopes: scopes) { _ in }
    }

    func stop() async {
        await tenant.stop()
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    /// Requests the simulator logged for the sign-in log.
    func signInRequests() async -> [RecordedRequest] {
        await tenant.requests.filter { $0.path.hasSuffix("/auditLogs/signIns") }
    }
}

extension TenantHarness {
    /// Runs `body` against a fresh harness and always cleans up after it, thrown errors included.
    static func with<T>(_ scenario: SimulatorScenario = scenario(), at date: Date = start, _ body: (TenantHarness) async throws -> T) async throws -> T {
        let harness = try await start(scenario, at: date)
        do {
            let result = try await body(harness)
            await harness.stop()
            return result
        } catch {
            await harness.stop()
            throw error
        }
    }
}

extension TophhieAuthError {
    /// The error with its Graph request ids dropped, for comparing with an expected status and code.
    var withoutRequestIDs: TophhieAuthError {
        switch self {
        case .profileFetch(let status, let code, _): return .profileFetch(status: status, graphCode: code)
        case .profileUpdate(let status, let code, _): return .profileUpdate(status: status, graphCode: code)
        case .signInHistory(let status, let code, _): return .signInHistory(status: status, graphCode: code)
        default: return self
        }
    }
}
