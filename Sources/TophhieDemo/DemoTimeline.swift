import Foundation
import TophhieJSON
import TophhieSimulator

/// The demo's story: a normal month, then trouble, told as sign-ins that appear in the simulated
/// tenant as its clock passes each step's time.
public struct DemoTimeline: Sendable {
    /// Something that happens in the tenant at `at` (seconds after the demo starts).
    public struct Step: Sendable {
        public var at: Double
        /// What a person watching would be told is happening.
        public var narration: String
        public var signIns: [ScenarioSignIn]
        public var faults: [FaultRule]
    }

    public let start: Date
    public let account: SignInFactory.Account
    public private(set) var steps: [Step] = []
    /// How long the story runs, in seconds after `start`.
    public let duration: Double = 7 * 3600

    public static let tenantID = "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60"
    public static let clientID = "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c"

    public init(start: Date) {
        self.start = start
        account = .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane Doe")
        var factory = SignInFactory(seed: 2026, account: account)
        func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

        // The agent's own login is a device-code sign-in too, by its own app: no alert.
        let agentApp = SignInFactory.App(appID: Self.clientID, displayName: "Tophhie Watch", clientAppUsed: "Mobile Apps and Desktop clients", resourceDisplayName: "Microsoft Graph", resourceID: "00000003-0000-0000-c000-000000000000")
        steps.append(Step(at: 300, narration: "the agent's own device-code login shows in Jane's log (its own app: no alert)", signIns: [
            ScenarioSignIn(event: factory.signIn(at: at(5), app: agentApp, method: .deviceCodeEntry), latencySeconds: 120),
            ScenarioSignIn(event: factory.signIn(at: at(8), app: agentApp, interactive: false, method: .deviceCodeRedemption), latencySeconds: 120),
        ], faults: []))
        // Jane's phone and laptop renew their tokens every hour from home, all day.
        var refreshes = SignInFactory(seed: 4, account: account)
        for hour in 0..<7 {
            let from = at(Double(hour) * 3600 + 600)
            let events = refreshes.tokenRefreshes(from: from, to: from, app: .outlook) + refreshes.tokenRefreshes(from: from.addingTimeInterval(900), to: from.addingTimeInterval(900), device: .laptop, app: .teams)
            steps.append(Step(at: Double(hour) * 3600 + 600, narration: "", signIns: events.map { ScenarioSignIn(event: $0, latencySeconds: 120) }, faults: []))
        }

        steps.append(Step(at: 1800, narration: "Jane signs in from home in London, as every day", signIns: [
            ScenarioSignIn(event: factory.signIn(at: at(1700)), latencySeconds: 120),
        ], faults: []))

        // Five failed passwords from Lagos; Graph publishes them three hours late.
        let burst = (0..<6).map { index in
            ScenarioSignIn(event: factory.signIn(at: at(3600 + Double(index) * 50), place: .lagos, device: .unknownLinux, errorCode: 50126), latencySeconds: 3 * 3600)
        }
        steps.append(Step(at: 3600, narration: "someone in Lagos tries Jane's password six times (Graph will publish these three hours late)", signIns: burst, faults: []))

        // London, then Sydney 40 minutes later.
        steps.append(Step(at: 6000, narration: "Jane in London, then a sign-in from Sydney 40 minutes later", signIns: [
            ScenarioSignIn(event: factory.signIn(at: at(4800), app: .teams), latencySeconds: 180),
            ScenarioSignIn(event: factory.signIn(at: at(7200), place: .sydney, device: .phone, app: .outlook), latencySeconds: 180),
        ], faults: []))

        // Failures then a success from one address: the password may have been guessed.
        let address = "198.51.100.23"
        var guessed = (0..<4).map { index in
            Self.withIP(factory.signIn(at: at(12_600 + Double(index) * 40), place: .newYork, device: .unknownLinux, errorCode: 50126), address)
        }
        guessed.append(Self.withIP(factory.signIn(at: at(12_800), place: .newYork, device: .unknownLinux, errorCode: 0), address))
        steps.append(Step(at: 12_900, narration: "four failures then a success from one New York address", signIns: guessed.map { ScenarioSignIn(event: $0, latencySeconds: 240) }, faults: []))

        // Device-code phishing: Jane enters a code a message asked her to, at Microsoft's own
        // page; the attacker's script in Lagos redeems it and holds her tokens.
        let azureCLI = SignInFactory.App(appID: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", displayName: "Microsoft Azure CLI", clientAppUsed: "Mobile Apps and Desktop clients", resourceDisplayName: "Microsoft Graph", resourceID: "00000003-0000-0000-c000-000000000000")
        steps.append(Step(at: 14_700, narration: "device-code phishing: Jane enters a code a message asked her to at microsoft.com/devicelogin; a script in Lagos redeems it for her tokens", signIns: [
            ScenarioSignIn(event: factory.signIn(at: at(14_400), app: azureCLI, method: .deviceCodeEntry), latencySeconds: 240),
            ScenarioSignIn(event: factory.signIn(at: at(14_420), place: .lagos, device: .unknownLinux, app: azureCLI, interactive: false, method: .deviceCodeRedemption), latencySeconds: 240),
        ], faults: []))

        steps.append(Step(at: 16_200, narration: "Graph throttles the sign-in log: a storm of 429s with Retry-After", signIns: [], faults: [
            FaultRule(pathPrefix: "/beta/auditLogs/signIns", kind: .throttle, count: 6, retryAfter: "2.5"),
        ]))

        // Token theft: an adversary-in-the-middle page relays Jane's sign-in (the proxy's
        // address is in Sao Paulo) and keeps her session; its refresh token is then used every
        // hour from Moscow.
        steps.append(Step(at: 18_300, narration: "token theft: Jane signs in through a phishing proxy in Sao Paulo, which keeps her refresh token", signIns: [
            ScenarioSignIn(event: factory.signIn(at: at(18_000), place: .saoPaulo, device: .unknownLinux), latencySeconds: 180),
        ], faults: []))
        let stolen = factory.tokenRefreshes(from: at(18_900), to: at(24_900), place: .moscow, device: .unknownLinux, app: .outlook)
        steps.append(Step(at: 19_200, narration: "the stolen refresh token is used every hour from Moscow", signIns: stolen.map { ScenarioSignIn(event: $0, latencySeconds: 180) }, faults: []))
    }

    /// The tenant at the start: a premium tenant with a normal month of history.
    public func scenario() -> SimulatorScenario {
        var factory = SignInFactory(seed: 7, account: account)
        var month = factory.normalHistory(endingAt: start.addingTimeInterval(-3600), days: 29)
        // A month of the phone's and laptop's hourly token refreshes from home.
        let monthStart = start.addingTimeInterval(-29 * 86_400)
        month += factory.tokenRefreshes(from: monthStart, to: start.addingTimeInterval(-600), app: .outlook)
        month += factory.tokenRefreshes(from: monthStart.addingTimeInterval(1200), to: start.addingTimeInterval(-600), device: .laptop, app: .teams)
        return SimulatorScenario(
            tenantID: Self.tenantID,
            clientID: Self.clientID,
            user: SimulatedUser(id: account.userID, userPrincipalName: account.userPrincipalName, kind: .member, profile: ["displayName": .string(account.displayName)]),
            consentedScopes: ["User.Read", "AuditLog.Read.All", "User.RevokeSessions.All"],
            deviceCode: DeviceCodeSettings(autoApproveAfterSeconds: 0, expiresIn: 900, interval: 1),
            signIns: month.map { ScenarioSignIn(event: $0, latencySeconds: 0) })
    }

    static func withIP(_ event: JSONValue, _ address: String) -> JSONValue {
        guard case .object(var members) = event else { return event }
        members["ipAddress"] = .string(address)
        return .object(members)
    }
}
