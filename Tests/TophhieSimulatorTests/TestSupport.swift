import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP
import TophhieJSON
import TophhieSimulator
import TophhieSystem
import Testing

/// Fixed identities so assertions can name them.
enum Fixture {
    static let tenantID = "8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f"
    static let clientID = "5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718"
    static let userID = "26be570a-ae82-4189-b4e2-a37c6808512d"
    static let otherUserID = "11111111-2222-4333-8444-555555555555"
    /// 2026-03-10T12:00:00Z
    static let start = Date(timeIntervalSince1970: 1_773_144_000)

    static func user(kind: SimulatedUser.Kind = .member) -> SimulatedUser {
        SimulatedUser(id: userID, userPrincipalName: "jane@contoso.com", kind: kind, profile: [
            "displayName": .string("Jane Doe"), "givenName": .string("Jane"), "surname": .string("Doe"),
            "mail": .string("jane@contoso.com"), "city": .string("London"), "preferredLanguage": .string("en-GB"),
            "jobTitle": .string("Engineer"),
        ])
    }

    static func scenario(
        kind: SimulatedUser.Kind = .member,
        consented: [String] = ["User.Read", "User.ReadWrite", "AuditLog.Read.All", "Directory.AccessAsUser.All"],
        premium: Bool = true,
        retentionDays: Int = 30,
        hasReportingRole: Bool = false,
        script: [DeviceCodeSettings.Step] = [.approve],
        tokens: TokenSettings = TokenSettings(),
        signIns: [ScenarioSignIn] = [],
        faults: [FaultRule] = [],
        throttle: ThrottleSettings = ThrottleSettings()
    ) -> SimulatorScenario {
        SimulatorScenario(
            tenantID: tenantID, tenantAliases: ["contoso.onmicrosoft.com"], clientID: clientID, user: user(kind: kind),
            premium: premium, retentionDays: retentionDays, consentedScopes: consented, hasReportingRole: hasReportingRole,
            deviceCode: DeviceCodeSettings(script: script), tokens: tokens, signIns: signIns, faults: faults, throttle: throttle
        )
    }

    static var factory: SignInFactory {
        SignInFactory(seed: 99, account: .init(userID: userID, userPrincipalName: "jane@contoso.com", displayName: "Jane Doe"))
    }
}

/// A tenant on a manual clock, reached in-process through its embedded transport (no socket),
/// or over the wire when a test is about the serving itself.
struct Harness {
    let tenant: SimulatedTenant
    let clock: SimulatorClock
    let endpoints: SimulatorEndpoints
    let transport: any HTTPTransport

    static func start(_ scenario: SimulatorScenario, at date: Date = Fixture.start) async throws -> Harness {
        let clock = SimulatorClock.manual(at: date)
        let tenant = SimulatedTenant(scenario: scenario, clock: clock)
        return await embedded(tenant, clock: clock)
    }

    /// A client that calls `tenant` in-process; response delays pass at once.
    static func embedded(_ tenant: SimulatedTenant, clock: SimulatorClock = .manual(at: Fixture.start)) async -> Harness {
        let endpoints = await tenant.embeddedEndpoints()
        return Harness(tenant: tenant, clock: clock, endpoints: endpoints, transport: tenant.transport(clock: ImmediateClock(clock)))
    }

    /// A client over loopback HTTP for a tenant started with `start()`.
    static func overTheWire(_ tenant: SimulatedTenant, endpoints: SimulatorEndpoints, clock: SimulatorClock = .manual(at: Fixture.start)) -> Harness {
        Harness(tenant: tenant, clock: clock, endpoints: endpoints, transport: URLSessionTransport())
    }

    func stop() async {
        await tenant.stop()
    }

    struct Reply {
        var status: Int
        var headers: [String: String]
        var data: Data
        var json: JSONValue? { try? JSONValue.parse(data) }
        var text: String { String(decoding: data, as: UTF8.self) }

        /// `error.code` of a Graph error, or `error` of an identity error.
        var errorCode: String? {
            json?.value(atPath: "error.code")?.stringValue ?? json?["error"]?.stringValue
        }
    }

    func send(_ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let reply = try await transport.send(request, deadline: 30)
        return Reply(status: reply.status, headers: reply.headers, data: reply.body)
    }

    func form(_ path: String, _ fields: [(String, String)], tenant: String = Fixture.tenantID) async throws -> Reply {
        let body = fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        return try await send("POST", endpoints.authorityHost.appendingPathComponent(tenant).appendingPathComponent(path),
                              headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    func deviceCode(scope: String, clientID: String = Fixture.clientID, tenant: String = Fixture.tenantID) async throws -> Reply {
        try await form("oauth2/v2.0/devicecode", [("client_id", clientID), ("scope", scope)], tenant: tenant)
    }

    func poll(_ deviceCode: String, clientID: String = Fixture.clientID) async throws -> Reply {
        try await form("oauth2/v2.0/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", clientID), ("device_code", deviceCode),
        ])
    }

    func refresh(_ refreshToken: String, scope: String? = nil) async throws -> Reply {
        var fields = [("grant_type", "refresh_token"), ("client_id", Fixture.clientID), ("refresh_token", refreshToken)]
        if let scope { fields.append(("scope", scope)) }
        return try await form("oauth2/v2.0/token", fields)
    }

    /// Signs in through the device-code flow (the scenario's script must end in approval) and
    /// returns the access and refresh tokens.
    func signIn(scope: String = "User.Read User.ReadWrite AuditLog.Read.All Directory.AccessAsUser.All offline_access openid profile") async throws -> (access: String, refresh: String?) {
        let code = try await deviceCode(scope: scope)
        let deviceCode = try #require(code.json?["device_code"]?.stringValue)
        for _ in 0..<10 {
            let reply = try await poll(deviceCode)
            if reply.status == 200, let access = reply.json?["access_token"]?.stringValue {
                return (access, reply.json?["refresh_token"]?.stringValue)
            }
            if reply.errorCode != "authorization_pending" && reply.errorCode != "slow_down" {
                throw HarnessError(message: "sign-in failed: \(reply.text)")
            }
        }
        throw HarnessError(message: "sign-in did not complete in 10 polls")
    }

    func graph(_ pathAndQuery: String, token: String?) async throws -> Reply {
        try await graph("GET", pathAndQuery, token: token, body: nil)
    }

    func graph(_ method: String, _ pathAndQuery: String, token: String?, body: Data?) async throws -> Reply {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if body != nil { headers["Content-Type"] = "application/json" }
        return try await send(method, URL(string: endpoints.authorityHost.absoluteString + pathAndQuery)!, headers: headers, body: body)
    }

    /// `GET /v1.0/auditLogs/signIns` with `$filter`, percent-encoded as a client would.
    /// The sign-in log as `version` serves it (beta serves the factory's whole shape).
    func signIns(filter: String?, top: Int? = nil, token: String, version: String = "v1.0") async throws -> Reply {
        var items: [String] = []
        if let top { items.append("$top=\(top)") }
        if let filter { items.append("$filter=\(escape(filter))") }
        return try await graph("/\(version)/auditLogs/signIns" + (items.isEmpty ? "" : "?" + items.joined(separator: "&")), token: token)
    }

    func selfFilter(since: Date? = nil) -> String {
        var text = "userId eq '\(Fixture.userID)'"
        if let since { text += " and createdDateTime ge \(GraphTimestamp.filterText(since))" }
        return text
    }

    private func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `body` against a started harness and always stops it.
func withTenant<T>(_ scenario: SimulatorScenario, at date: Date = Fixture.start, _ body: (Harness) async throws -> T) async throws -> T {
    let harness = try await Harness.start(scenario, at: date)
    do {
        let result = try await body(harness)
        await harness.stop()
        return result
    } catch {
        await harness.stop()
        throw error
    }
}

/// The simulator clock as a `TophhieClock` whose waits pass at once: response delays cost no time.
struct ImmediateClock: TophhieClock {
    let clock: SimulatorClock
    init(_ clock: SimulatorClock) { self.clock = clock }
    func now() -> Date { clock.now() }
    func sleep(seconds: Double) async throws { try Task.checkCancellation() }
}
