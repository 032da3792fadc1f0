import Foundation
import LoopbackHTTP
import TophhieJSON

extension SimulatedTenant {
    /// Whether `tenant` (the authority's path segment) names this tenant.
    func isThisTenant(_ tenant: String) -> Bool {
        ([scenario.tenantID] + scenario.tenantAliases).contains { $0.caseInsensitiveCompare(tenant) == .orderedSame }
    }

    /// `POST /{tenant}/oauth2/v2.0/devicecode`
    func deviceAuthorization(_ request: HTTPRequest, tenant: String) -> HTTPResponse {
        let form = request.formFields()
        let clock = now()
        if let failure = checkClient(form: form, tenant: tenant) { return failure.response(now: clock, host: host) }
        guard let scope = form["scope"], !scope.trimmingCharacters(in: .whitespaces).isEmpty else {
            return IdentityError.missingParameter("scope").response(now: clock, host: host)
        }
        let granted = grantable(ScopeSet(parameter: scope))
        let issued = deviceCodes.issue(scopes: granted, now: clock)
        let verification = "\(host)/devicelogin"
        let body: JSONValue = .object([
            "device_code": .string(issued.deviceCode),
            "user_code": .string(issued.code.userCode),
            "verification_uri": .string(verification),
            "expires_in": .int(Int64(issued.code.expiresIn)),
            "interval": .int(Int64(scenario.deviceCode.interval)),
            "message": .string("To sign in, use a web browser to open the page \(verification) and enter the code \(issued.code.userCode) to authenticate."),
        ])
        return .json(200, data: body.canonicalData())
    }

    /// `POST /{tenant}/oauth2/v2.0/token`
    func token(_ request: HTTPRequest, tenant: String) -> HTTPResponse {
        let form = request.formFields()
        let clock = now()
        if let failure = checkClient(form: form, tenant: tenant) { return failure.response(now: clock, host: host) }
        guard let grant = form["grant_type"], !grant.isEmpty else {
            return IdentityError.missingParameter("grant_type").response(now: clock, host: host)
        }
        switch grant {
        case "urn:ietf:params:oauth:grant-type:device_code", "device_code":
            guard let deviceCode = form["device_code"], !deviceCode.isEmpty else {
                return IdentityError.missingParameter("device_code").response(now: clock, host: host)
            }
            switch deviceCodes.poll(deviceCode: deviceCode, now: clock) {
            case .failure(let error):
                return error.response(now: clock, host: host)
            case .tokens(let scopes, let named):
                // An approval that named nobody signs in the next person without a session, so
                // `login` run once per person signs in person 1, 2, 3… in turn.
                let person = named.flatMap { id in people.firstIndex { $0.id == id } }
                    ?? people.firstIndex { !signedIn.contains($0.id) } ?? 0
                signedIn.insert(people[person].id)
                return issueTokens(scopes: scopes, person: person, refreshAlways: false, now: clock)
            }
        case "refresh_token":
            guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                return IdentityError.missingParameter("refresh_token").response(now: clock, host: host)
            }
            // Check consent before spending the refresh token, as Entra does not rotate on failure.
            var requested: ScopeSet?
            if let scope = form["scope"], !scope.trimmingCharacters(in: .whitespaces).isEmpty {
                let asked = ScopeSet(parameter: scope)
                let missing = asked.resourceScopes.filter { !isConsented($0) && ScopeSet.key($0) != ".default" }
                if !missing.isEmpty {
                    return IdentityError.consentRequired(missing, clientID: scenario.clientID).response(now: clock, host: host)
                }
                requested = grantable(asked)
            }
            let result = tokens.redeem(
                refreshToken: refreshToken, now: clock,
                rejectReuse: scenario.tokens.rejectReusedRefreshTokens,
                revokeIssuedBefore: scenario.tokens.revokeRefreshTokensAt
            )
            switch result {
            case .failure(let error):
                return error.response(now: clock, host: host)
            case .success(let previous):
                var scopes = requested ?? previous.scopes
                // A refresh token is always rotated, so the new one carries offline_access too.
                scopes.insert("offline_access")
                let person = people.firstIndex { $0.id == previous.userID } ?? 0
                return issueTokens(scopes: scopes, person: person, refreshAlways: true, now: clock)
            }
        default:
            return IdentityError.unsupportedGrant(grant).response(now: clock, host: host)
        }
    }

    /// `GET /{tenant}/v2.0/.well-known/openid-configuration`, so clients can discover the endpoints.
    func discovery(tenant: String) -> HTTPResponse {
        guard isThisTenant(tenant) else { return IdentityError.unknownTenant(tenant).response(now: now(), host: host) }
        let base = "\(host)/\(scenario.tenantID)"
        let body: JSONValue = .object([
            "issuer": .string("\(base)/v2.0"),
            "authorization_endpoint": .string("\(base)/oauth2/v2.0/authorize"),
            "token_endpoint": .string("\(base)/oauth2/v2.0/token"),
            "device_authorization_endpoint": .string("\(base)/oauth2/v2.0/devicecode"),
            "tenant_region_scope": .string("EU"),
            "response_types_supported": .array([.string("code")]),
            "grant_types_supported": .array([.string("urn:ietf:params:oauth:grant-type:device_code"), .string("refresh_token")]),
        ])
        return .json(200, data: body.canonicalData())
    }

    private func checkClient(form: [String: String], tenant: String) -> IdentityError? {
        guard isThisTenant(tenant) else { return .unknownTenant(tenant) }
        guard let clientID = form["client_id"], !clientID.isEmpty else { return .missingParameter("client_id") }
        guard clientID.caseInsensitiveCompare(scenario.clientID) == .orderedSame else {
            return .unknownClient(clientID, tenant: scenario.tenantID)
        }
        return nil
    }

    func isConsented(_ scope: String) -> Bool {
        ScopeSet(scenario.consentedScopes).contains(scope)
    }

    /// Requested ∩ (consented ∪ OpenID scopes); `.default` stands for every consented scope.
    func grantable(_ requested: ScopeSet) -> ScopeSet {
        var granted = ScopeSet([])
        for scope in requested.names {
            let key = ScopeSet.key(scope)
            if key == ".default" {
                for consented in scenario.consentedScopes { granted.insert(consented) }
            } else if ScopeSet.openIDScopes.contains(key) {
                granted.insert(scope)
            } else if let consented = scenario.consentedScopes.first(where: { ScopeSet.key($0) == key }) {
                granted.insert(consented)
            }
        }
        return granted
    }

    private func issueTokens(scopes: ScopeSet, person: Int, refreshAlways: Bool, now clock: Date) -> HTTPResponse {
        let lifetime = scenario.tokens.accessTokenLifetimeSeconds
        let withRefresh = refreshAlways || scopes.contains("offline_access")
        let issued = tokens.issue(scopes: scopes, to: people[person].id, withRefreshToken: withRefresh, now: clock, lifetime: lifetime)
        var body: [String: JSONValue] = [
            "token_type": .string("Bearer"),
            "scope": .string(scopes.parameter),
            "expires_in": .int(Int64(lifetime)),
            "ext_expires_in": .int(Int64(lifetime)),
            "access_token": .string(issued.accessToken),
        ]
        if let refresh = issued.refreshToken { body["refresh_token"] = .string(refresh) }
        if scopes.contains("openid") { body["id_token"] = .string(idToken(for: people[person], now: clock, lifetime: lifetime)) }
        return .json(200, data: JSONValue.object(body).canonicalData(), headers: [("Cache-Control", "no-store, no-cache"), ("Pragma", "no-cache")])
    }

    /// An unsigned (fake-signature) id token with the claims clients read: oid, tid, name, preferred_username.
    private func idToken(for user: SimulatedUser, now clock: Date, lifetime: Int) -> String {
        func encode(_ value: JSONValue) -> String {
            value.canonicalData().base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let issuedAt = Int64(clock.timeIntervalSince1970)
        let header: JSONValue = .object(["typ": .string("JWT"), "alg": .string("RS256"), "kid": .string("simulator")])
        let claims: JSONValue = .object([
            "aud": .string(scenario.clientID),
            "iss": .string("\(host)/\(scenario.tenantID)/v2.0"),
            "iat": .int(issuedAt),
            "nbf": .int(issuedAt),
            "exp": .int(issuedAt + Int64(lifetime)),
            "name": .string(user.displayName),
            "oid": .string(user.id),
            "preferred_username": .string(user.userPrincipalName),
            "sub": .string(user.id.replacingOccurrences(of: "-", with: "")),
            "tid": .string(scenario.tenantID),
            "ver": .string("2.0"),
        ])
        return "\(encode(header)).\(encode(claims)).c2ltdWxhdG9yLW5vdC1zaWduZWQ"
    }
}
