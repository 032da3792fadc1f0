import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

@Suite("Identity platform: device code and token endpoints", .timeLimit(.minutes(20)))
struct IdentityTests {
    @Test func deviceCodeResponseLooksLikeEntras() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let reply = try await h.deviceCode(scope: "User.Read offline_access")
            #expect(reply.status == 200)
            let body = try #require(reply.json)
            let userCode = try #require(body["user_code"]?.stringValue)
            #expect(userCode.count == 9)
            #expect(body["expires_in"]?.intValue == 900)
            #expect(body["interval"]?.intValue == 5)
            #expect(body["verification_uri"]?.stringValue == "\(h.endpoints.authorityHost.absoluteString)/devicelogin")
            #expect(body["message"]?.stringValue == "To sign in, use a web browser to open the page \(h.endpoints.authorityHost.absoluteString)/devicelogin and enter the code \(userCode) to authenticate.")
            #expect(body["device_code"]?.stringValue?.isEmpty == false)
            #expect(await h.tenant.pendingUserCodes == [userCode])
        }
    }

    @Test func unknownClientAndWrongTenantAreRefusedWithEntraBodies() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let client = try await h.deviceCode(scope: "User.Read", clientID: "00000000-0000-0000-0000-000000000001")
            #expect(client.status == 400)
            let body = try #require(client.json)
            #expect(body["error"]?.stringValue == "invalid_client")
            #expect(body["error_codes"] == .array([.int(700016)]))
            #expect(body["error_description"]?.stringValue?.hasPrefix("AADSTS700016: Application with identifier '00000000-0000-0000-0000-000000000001' was not found") == true)
            for key in ["timestamp", "trace_id", "correlation_id"] { #expect(body[key]?.stringValue?.isEmpty == false) }

            let tenant = try await h.deviceCode(scope: "User.Read", tenant: "fabrikam.onmicrosoft.com")
            #expect(tenant.status == 400)
            #expect(tenant.json?["error"]?.stringValue == "invalid_request")
            #expect(tenant.json?["error_codes"] == .array([.int(90002)]))

            let alias = try await h.deviceCode(scope: "User.Read", tenant: "contoso.onmicrosoft.com")
            #expect(alias.status == 200)
        }
    }

    @Test func scriptedPollsThenTokensThenNoSecondRedemption() async throws {
        try await withTenant(Fixture.scenario(script: [.authorizationPending, .slowDown, .approve])) { h in
            let code = try #require(try await h.deviceCode(scope: "User.Read AuditLog.Read.All Mail.Read offline_access openid").json?["device_code"]?.stringValue)
            let first = try await h.poll(code)
            #expect(first.status == 400)
            #expect(first.json?["error"]?.stringValue == "authorization_pending")
            #expect(first.json?["error_codes"] == .array([.int(70016)]))
            #expect(first.json?["error_description"]?.stringValue?.hasPrefix("AADSTS70016: ") == true)
            #expect(try await h.poll(code).json?["error"]?.stringValue == "slow_down")
            let success = try await h.poll(code)
            #expect(success.status == 200)
            let body = try #require(success.json)
            #expect(body["token_type"]?.stringValue == "Bearer")
            // Mail.Read was never consented, so it is not granted.
            #expect(body["scope"]?.stringValue == "User.Read AuditLog.Read.All offline_access openid")
            #expect(body["expires_in"]?.intValue == 3600)
            #expect(body["ext_expires_in"]?.intValue == 3600)
            #expect(body["access_token"]?.stringValue?.isEmpty == false)
            #expect(body["refresh_token"]?.stringValue?.isEmpty == false)
            let idToken = try #require(body["id_token"]?.stringValue)
            let claims = try Self.decodeJWTPayload(idToken)
            #expect(claims["oid"]?.stringValue == Fixture.userID)
            #expect(claims["tid"]?.stringValue == Fixture.tenantID)

            let again = try await h.poll(code)
            #expect(again.status == 400)
            #expect(again.json?["error"]?.stringValue == "invalid_grant")
        }
    }

    @Test func withoutOfflineAccessThereIsNoRefreshToken() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let tokens = try await h.signIn(scope: "User.Read")
            #expect(tokens.refresh == nil)
        }
    }

    @Test func declinedExpiredAndUnknownCodes() async throws {
        try await withTenant(Fixture.scenario(script: [.decline])) { h in
            let code = try #require(try await h.deviceCode(scope: "User.Read").json?["device_code"]?.stringValue)
            let declined = try await h.poll(code)
            #expect(declined.json?["error"]?.stringValue == "authorization_declined")

            let unknown = try await h.poll("DAQABnot-a-real-code")
            #expect(unknown.json?["error"]?.stringValue == "bad_verification_code")
            #expect(unknown.json?["error_codes"] == .array([.int(70018)]))
        }
        try await withTenant(Fixture.scenario(script: [])) { h in
            let code = try #require(try await h.deviceCode(scope: "User.Read").json?["device_code"]?.stringValue)
            #expect(try await h.poll(code).json?["error"]?.stringValue == "authorization_pending")
            h.clock.advance(by: 900)
            let expired = try await h.poll(code)
            #expect(expired.json?["error"]?.stringValue == "expired_token")
            #expect(expired.json?["error_codes"] == .array([.int(70019)]))
        }
    }

    @Test func autoApprovalFollowsTheSimulatorClock() async throws {
        var scenario = Fixture.scenario(script: [])
        scenario.deviceCode.autoApproveAfterSeconds = 30
        try await withTenant(scenario) { h in
            let code = try #require(try await h.deviceCode(scope: "User.Read").json?["device_code"]?.stringValue)
            #expect(try await h.poll(code).json?["error"]?.stringValue == "authorization_pending")
            h.clock.advance(by: 29)
            #expect(try await h.poll(code).json?["error"]?.stringValue == "authorization_pending")
            h.clock.advance(by: 1)
            #expect(try await h.poll(code).status == 200)
        }
    }

    @Test func controlEndpointApprovesByUserCode() async throws {
        try await withTenant(Fixture.scenario(script: [])) { h in
            let reply = try #require(try await h.deviceCode(scope: "User.Read").json)
            let code = try #require(reply["device_code"]?.stringValue)
            let userCode = try #require(reply["user_code"]?.stringValue)
            #expect(try await h.poll(code).json?["error"]?.stringValue == "authorization_pending")
            let wrong = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("device/approve"), body: Data(#"{"userCode":"NOPE"}"#.utf8))
            #expect(wrong.status == 404)
            let approve = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("device/approve"), body: Data(#"{"userCode":"\#(userCode.lowercased())"}"#.utf8))
            #expect(approve.status == 200)
            #expect(try await h.poll(code).status == 200)
            #expect(await h.tenant.pendingUserCodes.isEmpty)
        }
    }

    @Test func refreshRotatesBothTokensEveryTime() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let first = try await h.signIn()
            let refresh1 = try #require(first.refresh)
            let second = try await h.refresh(refresh1)
            #expect(second.status == 200)
            let access2 = try #require(second.json?["access_token"]?.stringValue)
            let refresh2 = try #require(second.json?["refresh_token"]?.stringValue)
            #expect(access2 != first.access)
            #expect(refresh2 != refresh1)
            let third = try await h.refresh(refresh2)
            #expect(third.json?["refresh_token"]?.stringValue != refresh2)
            // Entra keeps an old refresh token usable unless told otherwise.
            #expect(try await h.refresh(refresh1).status == 200)
            // Every access token issued works against Graph.
            #expect(try await h.graph("/v1.0/me", token: access2).status == 200)
        }
    }

    @Test func reusedRefreshTokenIsRejectedWhenTheScenarioSaysSo() async throws {
        try await withTenant(Fixture.scenario(tokens: TokenSettings(rejectReusedRefreshTokens: true))) { h in
            let refresh = try #require(try await h.signIn().refresh)
            #expect(try await h.refresh(refresh).status == 200)
            let reused = try await h.refresh(refresh)
            #expect(reused.status == 400)
            #expect(reused.json?["error"]?.stringValue == "invalid_grant")
        }
    }

    @Test func revokedRefreshTokensFailWith50173() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let refresh = try #require(try await h.signIn().refresh)
            #expect(await h.tenant.revokeRefreshTokens() == 1)
            let reply = try await h.refresh(refresh)
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?.stringValue == "invalid_grant")
            #expect(reply.json?["error_codes"] == .array([.int(50173)]))
            #expect(reply.json?["error_description"]?.stringValue?.hasPrefix("AADSTS50173: ") == true)
        }
        let revokeAt = Fixture.start.addingTimeInterval(3600)
        try await withTenant(Fixture.scenario(tokens: TokenSettings(revokeRefreshTokensAt: revokeAt))) { h in
            let refresh = try #require(try await h.signIn().refresh)
            let before = try await h.refresh(refresh)
            #expect(before.status == 200)
            h.clock.advance(by: 3600)
            let after = try await h.refresh(try #require(before.json?["refresh_token"]?.stringValue))
            #expect(after.json?["error_codes"] == .array([.int(50173)]))
            // A sign-in after the revocation gets tokens that work.
            let fresh = try #require(try await h.signIn().refresh)
            #expect(try await h.refresh(fresh).status == 200)
        }
    }

    @Test func unconsentedScopeOnRefreshNeedsConsent() async throws {
        try await withTenant(Fixture.scenario(consented: ["User.Read"])) { h in
            let refresh = try #require(try await h.signIn(scope: "User.Read offline_access").refresh)
            let reply = try await h.refresh(refresh, scope: "https://graph.microsoft.com/AuditLog.Read.All offline_access")
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?.stringValue == "invalid_grant")
            #expect(reply.json?["suberror"]?.stringValue == "consent_required")
            #expect(reply.json?["error_codes"] == .array([.int(65001)]))
            // The failed refresh did not spend the token.
            let ok = try await h.refresh(refresh, scope: "https://graph.microsoft.com/user.read")
            #expect(ok.status == 200)
            #expect(ok.json?["scope"]?.stringValue == "User.Read offline_access")
        }
    }

    @Test func transientTokenErrorIsScriptable() async throws {
        let fault = FaultRule(pathPrefix: "/\(Fixture.tenantID)/oauth2/v2.0/token", kind: .status, count: 1, status: 503, retryAfter: "2")
        try await withTenant(Fixture.scenario(faults: [fault])) { h in
            let code = try #require(try await h.deviceCode(scope: "User.Read").json?["device_code"]?.stringValue)
            let failed = try await h.poll(code)
            #expect(failed.status == 503)
            #expect(failed.json?["error"]?.stringValue == "temporarily_unavailable")
            #expect(failed.headers["retry-after"] == "2")
            // The faulted poll did not consume the script's approval.
            #expect(try await h.poll(code).status == 200)
        }
    }

    @Test func tokenEndpointRequiresItsParameters() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let missing = try await h.form("oauth2/v2.0/token", [("client_id", Fixture.clientID)])
            #expect(missing.json?["error"]?.stringValue == "invalid_request")
            #expect(missing.json?["error_description"]?.stringValue?.hasPrefix("AADSTS900144: The request body must contain the following parameter: 'grant_type'.") == true)
            let grant = try await h.form("oauth2/v2.0/token", [("client_id", Fixture.clientID), ("grant_type", "password")])
            #expect(grant.json?["error"]?.stringValue == "unsupported_grant_type")
        }
    }

    static func decodeJWTPayload(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { throw HarnessError(message: "not a JWT") }
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        guard let data = Data(base64Encoded: payload) else { throw HarnessError(message: "bad base64") }
        return try JSONValue.parse(data)
    }
}
