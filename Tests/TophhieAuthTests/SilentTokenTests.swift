import Foundation
import Testing
import TophhieSimulator
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct SilentTokenTests {
    @Test func everyRefreshRotatesAndPersistsTheRefreshToken() async throws {
        var scenario = TenantHarness.scenario()
        // Reuse of an old refresh token fails here, so success proves the new one was kept.
        scenario.tokens.rejectReusedRefreshTokens = true
        scenario.tokens.accessTokenLifetimeSeconds = 3600
        try await TenantHarness.with(scenario) { harness in
            let first = try await harness.signIn()
            let cache = TokenCache(file: harness.stateDirectory.appendingPathComponent("tokens.json"))

            var previous = first.refreshToken
            for round in 1...3 {
                harness.clock.advance(by: 3500) // inside the 5-minute skew: the access token counts as expired
                // A fresh instance reads the cache from disk, as the next cron poll would.
                _ = try await harness.auth().getUserProfile()
                let stored = try #require(try cache.load())
                #expect(stored.refreshToken != previous, "round \(round): the rotated refresh token was not stored")
                #expect(stored.refreshedAt == harness.clock.now())
                previous = stored.refreshToken
            }
            #expect(cache.fileMode == 0o600)
        }
    }

    /// Sign-in asked for Directory.Read.All beside AuditLog.Read.All and the tenant consented
    /// only the second: the session goes on past its first refresh, an hour in, with what was
    /// granted (asking again for the refused scope answered AADSTS65001 and ended it).
    @Test func aRefreshAsksForWhatSignInGrantedWhenARequestedScopeWasNeverConsented() async throws {
        try await TenantHarness.with(TenantHarness.scenario(consented: ["User.Read", "AuditLog.Read.All"])) { harness in
            let session = try await harness.signIn(TophhieScopes.defaultSignIn)
            #expect(!TophhieScopes.covers(session.grantedScopes, TophhieScopes.directoryRead))
            for _ in 1...2 {
                harness.clock.advance(by: 3600)
                _ = try await harness.auth().getSignInHistory(top: 5)
            }
            let stored = try #require(try TokenCache(file: harness.stateDirectory.appendingPathComponent("tokens.json")).load())
            #expect(TophhieScopes.covers(stored.grantedScopes, TophhieScopes.auditLogRead))
            #expect(stored.requestedScopes == session.requestedScopes, "what sign-in asked for is kept, for a later consent")
            let refusals = await harness.tenant.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") && $0.status == 400 }.count
            #expect(refusals == 2, "each refresh asked for everything first")
        }
    }

    /// When what sign-in granted is refused too, the person is asked back with the reason.
    @Test func aRefreshRefusedForTheGrantedScopesToo() async throws {
        try await TenantHarness.with(TenantHarness.scenario(consented: ["User.Read", "AuditLog.Read.All"])) { harness in
            try await harness.signIn(TophhieScopes.defaultSignIn)
            _ = await harness.tenant.revokeRefreshTokens()
            harness.clock.advance(by: 3600)
            await #expect(throws: TophhieAuthError.interactionRequired(reason: "the refresh token was revoked (AADSTS50173): a password change, a sign-out everywhere or an administrator")) {
                _ = try await harness.auth().getSignInHistory(top: 5)
            }
        }
    }

    @Test func cachedAccessTokenIsUsedWhileValid() async throws {
        try await TenantHarness.with { harness in
            let session = try await harness.signIn()
            harness.clock.advance(by: 600)
            _ = try await harness.auth().getUserProfile()
            let stored = try #require(try TokenCache(file: harness.stateDirectory.appendingPathComponent("tokens.json")).load())
            #expect(stored.refreshToken == session.refreshToken)
            let tokenCalls = await harness.tenant.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }.count
            #expect(tokenCalls == 1, "only the device-code redemption")
        }
    }

    @Test func revokedRefreshTokenNeedsInteraction() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            _ = await harness.tenant.revokeRefreshTokens()
            harness.clock.advance(by: 7200)
            do {
                _ = try await harness.auth().getUserProfile()
                Issue.record("a revoked refresh token still worked")
            } catch let error as TophhieAuthError {
                guard case .interactionRequired(let reason) = error else { Issue.record("got \(error)"); return }
                #expect(reason.contains("revoked"))
                #expect(reason.contains("50173"))
            }
        }
    }

    @Test func nobodySignedInNeedsInteraction() async throws {
        try await TenantHarness.with { harness in
            await #expect(throws: TophhieAuthError.interactionRequired(reason: "nobody is signed in")) {
                _ = try await harness.auth().getUserProfile()
            }
            #expect(await harness.tenant.requests.isEmpty)
        }
    }

    @Test func scopeNeverGrantedNeedsInteractionWithoutARequest() async throws {
        try await TenantHarness.with(TenantHarness.scenario(consented: ["User.Read"])) { harness in
            try await harness.signIn([TophhieScopes.userRead, TophhieScopes.auditLogRead])
            await harness.tenant.clearRequestLog()
            do {
                _ = try await harness.auth().getSignInHistory(top: 5)
                Issue.record("history without AuditLog.Read.All succeeded")
            } catch let error as TophhieAuthError {
                guard case .interactionRequired(let reason) = error else { Issue.record("got \(error)"); return }
                #expect(reason.contains("AuditLog.Read.All"))
                #expect(reason.contains("--scopes history"))
            }
            #expect(await harness.signInRequests().isEmpty)
        }
    }

    @Test func damagedCacheIsReportedWithoutItsContent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tokens.json")
        try Data(#"{"refreshToken":"SECRET-RT-VALUE""#.utf8).write(to: file)
        try DurableFile.setPermissions(file.path, 0o600)
        do {
            _ = try TokenCache(file: file).load()
            Issue.record("a damaged cache loaded")
        } catch {
            #expect("\(error.localizedDescription)".contains("damaged"))
            #expect(!"\(error)".contains("SECRET-RT-VALUE"))
        }
    }
}

@Suite(.timeLimit(.minutes(20))) struct SecretRedactionTests {
    @Test func cachedSessionsNeverPrintTheirTokens() {
        let session = CachedSession(objectID: "o", userPrincipalName: "u", grantedScopes: ["User.Read"], requestedScopes: [], accessToken: "AT-SECRET-VALUE", accessTokenExpiresAt: nil, refreshToken: "RT-SECRET-VALUE", authority: "a", clientID: "c", signedInAt: Date(timeIntervalSince1970: 0), refreshedAt: nil)
        var dumped = ""
        dump(session, to: &dumped)
        for text in [dumped, "\(session)", String(reflecting: session)] {
            #expect(!text.contains("SECRET-VALUE"), "\(text)")
        }
    }
}

@Suite(.timeLimit(.minutes(20))) struct ConcurrentRefreshTests {
    @Test func concurrentCallersShareOneRefresh() async throws {
        var scenario = TenantHarness.scenario()
        scenario.tokens.rejectReusedRefreshTokens = true
        try await TenantHarness.with(scenario) { harness in
            try await harness.signIn()
            harness.clock.advance(by: 7200)
            let auth = harness.auth()
            await harness.tenant.clearRequestLog()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { _ = try await auth.getUserProfile() } }
                try await group.waitForAll()
            }
            let refreshes = await harness.tenant.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }.count
            #expect(refreshes == 1, "six callers, one redemption of the refresh token")
        }
    }
}
