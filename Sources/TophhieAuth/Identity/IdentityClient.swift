import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to the identity platform's device-code and token endpoints.
struct IdentityClient: Sendable {
    let configuration: TophhieConfiguration
    let requester: RetryingRequester
    let clock: any TophhieClock

    /// Starts a device-code sign-in.
    func requestDeviceCode(scopes: [String]) async throws -> DeviceAuthorization {
        let reply = try await postForm(configuration.deviceCodeEndpoint, ["client_id": configuration.clientID, "scope": scopes.joined(separator: " ")])
        guard reply.status == 200 else { throw identityError(reply) }
        do { return try JSONDecoder().decode(DeviceAuthorization.self, from: reply.body) } catch {
            throw TophhieAuthError.malformedResponse("the device code response from \(HTTPTransportError.origin(configuration.authority)) could not be read")
        }
    }

    /// Polls the token endpoint until the person finishes, declines, or the code expires.
    func pollForToken(_ authorization: DeviceAuthorization) async throws -> TokenGrant {
        var polling = DeviceCodePolling(interval: authorization.interval, expiresIn: authorization.expires_in, issuedAt: clock.now())
        var action = polling.firstAction
        while true {
            switch action {
            case .finish:
                preconditionFailure("finish is handled where the grant is read")
            case .fail(let failure):
                throw TophhieAuthError.signIn(failure)
            case .wait(let seconds):
                try await clock.sleep(seconds: seconds)
            }
            let reply: HTTPReply
            do {
                reply = try await postForm(configuration.tokenEndpoint, [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "client_id": configuration.clientID,
                    "device_code": authorization.device_code,
                ])
            } catch let error as TophhieAuthError {
                guard case .network = error else { throw error }
                action = polling.next(after: .transient, now: clock.now())
                continue
            }
            if reply.status == 200 {
                return try decodeGrant(reply)
            }
            if let body = try? JSONDecoder().decode(IdentityErrorBody.self, from: reply.body),
               let answer = DeviceCodePolling.answer(forError: body.error) {
                action = polling.next(after: answer, now: clock.now())
                continue
            }
            if RetryPolicy.isTransient(reply.status) {
                action = polling.next(after: .transient, now: clock.now())
                continue
            }
            throw identityError(reply)
        }
    }

    /// Redeems a refresh token. The reply's new refresh token replaces the old one.
    /// - Parameter granted: the scopes sign-in granted, asked for instead when one of `scopes`
    ///   was never consented (AADSTS65001): sign-in can grant only part of what it asked for
    ///   (an administrator consented `AuditLog.Read.All` but not `Directory.Read.All`), and
    ///   asking again for the part refused would end the session at its first refresh, an hour in.
    ///   A refused refresh does not spend the token, so it is redeemed again.
    /// - Throws: `.interactionRequired` when the identity platform wants the person back.
    func refresh(_ refreshToken: String, scopes: [String], granted: [String]? = nil) async throws -> TokenGrant {
        func redeem(_ scopes: [String]) async throws -> HTTPReply {
            try await postForm(configuration.tokenEndpoint, [
                "grant_type": "refresh_token",
                "client_id": configuration.clientID,
                "refresh_token": refreshToken,
                "scope": scopes.joined(separator: " "),
            ])
        }
        var reply = try await redeem(scopes)
        if reply.status != 200, let granted, !granted.isEmpty, Set(granted) != Set(scopes), isConsentRefusal(reply) {
            reply = try await redeem(granted)
        }
        guard reply.status == 200 else { throw identityError(reply) }
        return try decodeGrant(reply)
    }

    /// Whether an error reply says a requested scope was never consented (AADSTS65001).
    private func isConsentRefusal(_ reply: HTTPReply) -> Bool {
        guard let body = try? JSONDecoder().decode(IdentityErrorBody.self, from: reply.body) else { return false }
        return body.suberror == "consent_required" || body.error == "consent_required" || (body.error_codes ?? []).contains(65001)
    }

    private func decodeGrant(_ reply: HTTPReply) throws -> TokenGrant {
        do { return try JSONDecoder().decode(TokenGrant.self, from: reply.body) } catch {
            throw TophhieAuthError.malformedResponse("the token response from \(HTTPTransportError.origin(configuration.authority)) could not be read")
        }
    }

    /// Maps an error reply; `invalid_grant`, `interaction_required` and `consent_required` mean
    /// only the person can fix it by signing in again.
    func identityError(_ reply: HTTPReply) -> TophhieAuthError {
        guard let body = try? JSONDecoder().decode(IdentityErrorBody.self, from: reply.body) else {
            return .identity(status: reply.status, error: "unreadable error body", aadsts: [])
        }
        let codes = body.error_codes ?? []
        switch body.error {
        case "invalid_grant", "interaction_required", "consent_required", "login_required":
            return .interactionRequired(reason: Self.interactionReason(body.error, suberror: body.suberror, codes: codes))
        default:
            return .identity(status: reply.status, error: body.error, aadsts: codes)
        }
    }

    static func interactionReason(_ error: String, suberror: String?, codes: [Int]) -> String {
        if suberror == "consent_required" || error == "consent_required" || codes.contains(65001) {
            return "a requested permission has not been consented (AADSTS65001); an administrator may need to grant consent"
        }
        if codes.contains(50173) { return "the refresh token was revoked (AADSTS50173): a password change, a sign-out everywhere or an administrator" }
        if codes.contains(700082) || codes.contains(70008) { return "the refresh token expired from inactivity (AADSTS\(codes.contains(700082) ? 700082 : 70008))" }
        if codes.contains(70043) { return "a Conditional Access sign-in frequency policy requires a fresh sign-in (AADSTS70043)" }
        if codes.contains(50076) || codes.contains(50079) || codes.contains(50074) { return "multifactor authentication is required (AADSTS\(codes.first { [50076, 50079, 50074].contains($0) }!))" }
        if codes.contains(50055) || codes.contains(50144) { return "the password has expired" }
        if codes.contains(50057) { return "the account is disabled (AADSTS50057)" }
        let aadsts = codes.isEmpty ? "" : " (AADSTS\(codes.map(String.init).joined(separator: ", AADSTS")))"
        return "the identity platform answered \(error)\(aadsts)"
    }

    private func postForm(_ url: URL, _ fields: [String: String]) async throws -> HTTPReply {
        let body = Self.formEncode(fields)
        return try await requester.send {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            request.httpBody = body
            return request
        }
    }

    /// `application/x-www-form-urlencoded` with keys sorted, so request bodies are stable.
    static func formEncode(_ fields: [String: String]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let text = fields.sorted { $0.key < $1.key }.map { key, value in
            let k = key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
            let v = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(k)=\(v)"
        }.joined(separator: "&")
        return Data(text.utf8)
    }
}
