import Foundation
import Testing
import TophhieSimulator
@testable import TophhieAuth

/// The device-code flow end to end against the simulated tenant over loopback HTTP.
@Suite(.timeLimit(.minutes(20))) struct DeviceCodeSignInTests {
    @Test func pendingSlowDownThenApprovedSignsInAndCachesPrivately() async throws {
        try await TenantHarness.with(TenantHarness.scenario(script: [.authorizationPending, .slowDown, .approve])) { harness in
            let prompts = PromptLog()
            let session = try await harness.auth().signIn(scopes: [TophhieScopes.userRead, TophhieScopes.auditLogRead]) { prompts.add($0) }

            #expect(prompts.all.count == 1)
            let prompt = try #require(prompts.all.first)
            #expect(prompt.message.contains(prompt.userCode))
            #expect(prompt.message.contains("enter the code"))
            // interval 5; +5 after slow_down; the pending answer keeps 5.
            #expect(harness.clock.sleeps == [5, 5, 10])
            #expect(session.userPrincipalName == "jane@contoso.com")
            #expect(session.objectID == TenantHarness.userID)
            #expect(session.grantedScopes.contains("AuditLog.Read.All"))
            #expect(session.requestedScopes.first == "offline_access")

            let cache = TokenCache(file: harness.stateDirectory.appendingPathComponent("tokens.json"))
            #expect(cache.fileMode == 0o600)
            let attributes = try FileManager.default.attributesOfItem(atPath: harness.stateDirectory.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.uint16Value == 0o700)
            #expect(!session.description.contains(session.refreshToken))
            #expect(!session.description.contains(session.accessToken ?? "none"))
        }
    }

    @Test(arguments: [
        (DeviceCodeSettings.Step.decline, SignInFailure.declined),
        (.expire, .expired),
    ])
    func pollingErrorsStopTheFlow(step: DeviceCodeSettings.Step, failure: SignInFailure) async throws {
        try await TenantHarness.with(TenantHarness.scenario(script: [.authorizationPending, step])) { harness in
            await #expect(throws: TophhieAuthError.signIn(failure)) {
                try await harness.auth().signIn(scopes: [TophhieScopes.userRead]) { _ in }
            }
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory.appendingPathComponent("tokens.json").path))
        }
    }

    @Test func codeExpiresWhileStillPending() async throws {
        var scenario = TenantHarness.scenario(script: [])
        scenario.deviceCode.expiresIn = 12
        try await TenantHarness.with(scenario) { harness in
            await #expect(throws: TophhieAuthError.signIn(.expired)) {
                try await harness.auth().signIn(scopes: [TophhieScopes.userRead]) { _ in }
            }
        }
    }

    @Test func unknownDeviceCodeIsABadVerificationCode() async throws {
        try await TenantHarness.with { harness in
            let configuration = harness.configuration
            let requester = RetryingRequester(transport: harness.transport, clock: harness.clock, policy: RetryPolicy(), deadline: 5, userAgent: "test", jitter: { 0 })
            let client = IdentityClient(configuration: configuration, requester: requester, clock: harness.clock)
            let bogus = DeviceAuthorization(device_code: "not-a-code", user_code: "X", verification_uri: "https://x", expires_in: 900, interval: 1, message: nil)
            await #expect(throws: TophhieAuthError.signIn(.badVerificationCode)) { try await client.pollForToken(bogus) }
        }
    }

    @Test func unregisteredClientIsExplained() async throws {
        try await TenantHarness.with { harness in
            var configuration = harness.configuration
            configuration.clientID = "00000000-0000-0000-0000-000000000000"
            do {
                try await TophhieAuth(configuration: configuration, transport: harness.transport, clock: harness.clock).signIn(scopes: [TophhieScopes.userRead]) { _ in }
                Issue.record("sign-in with an unknown client succeeded")
            } catch let error as TophhieAuthError {
                guard case .identity(400, "invalid_client", let codes) = error else { Issue.record("got \(error)"); return }
                #expect(codes.contains(700016))
                #expect(error.localizedDescription.contains("client id is not registered"))
            }
        }
    }
}

/// Collects prompts from the sign-in callback.
final class PromptLog: @unchecked Sendable {
    private let lock = NSLock()
    private var prompts: [DeviceCodePrompt] = []
    func add(_ prompt: DeviceCodePrompt) { lock.withLock { prompts.append(prompt) } }
    var all: [DeviceCodePrompt] { lock.withLock { prompts } }
}
