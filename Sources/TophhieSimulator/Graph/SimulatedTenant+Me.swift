import Foundation
import LoopbackHTTP
import TophhieJSON

/// What checking a request's bearer token found: the scopes, and whose token it is (an index
/// into the tenant's people).
enum BearerCheck {
    case granted(ScopeSet, person: Int)
    case denied(HTTPResponse)
}

extension SimulatedTenant {
    /// The scopes and person of the request's bearer token, or the 401 to send.
    func authorize(_ request: HTTPRequest, trace: RequestTrace) -> BearerCheck {
        let authority = "\(host)/\(scenario.tenantID)"
        guard let header = request.header("Authorization"), !header.isEmpty else {
            return .denied(GraphError.invalidToken("Access token is empty.", authority: authority).response(now: now(), trace: trace))
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
            return .denied(GraphError.invalidToken("Access token is empty.", authority: authority).response(now: now(), trace: trace))
        }
        switch tokens.check(accessToken: String(parts[1]).trimmingCharacters(in: .whitespaces), now: now()) {
        case .valid(let scopes, let userID):
            guard let person = people.firstIndex(where: { $0.id == userID }) else {
                return .denied(GraphError.invalidToken("Access token validation failure. Invalid audience.", authority: authority).response(now: now(), trace: trace))
            }
            return .granted(scopes, person: person)
        case .expired:
            return .denied(GraphError.invalidToken("Lifetime validation failed, the token is expired.", authority: authority).response(now: now(), trace: trace))
        case .unknown:
            return .denied(GraphError.invalidToken("Access token validation failure. Invalid audience.", authority: authority).response(now: now(), trace: trace))
        }
    }

    /// `POST /v1.0/me/revokeSignInSessions`, as Entra does it: every refresh token issued so far
    /// to the token's person is refused from now on (`invalid_grant`, AADSTS50173), and their
    /// `signInSessionsValidFromDateTime` is now; other people's sessions are untouched. Access
    /// tokens live until they expire. Needs `User.RevokeSessions.All` (or a broader user-write
    /// permission).
    func revokeSignInSessions(_ request: HTTPRequest, trace: RequestTrace) -> HTTPResponse {
        let scopes: ScopeSet
        let person: Int
        switch authorize(request, trace: trace) {
        case .denied(let response): return response
        case .granted(let granted, let index): (scopes, person) = (granted, index)
        }
        guard scopes.containsAny(["User.RevokeSessions.All", "User.ReadWrite.All", "Directory.AccessAsUser.All"]) else {
            return GraphError.insufficientPrivileges.response(now: now(), trace: trace)
        }
        _ = revokeSessions(ofPersonAt: person)
        let body: JSONValue = .object(["@odata.context": .string("\(host)/v1.0/$metadata#Edm.Boolean"), "value": .bool(true)])
        return .json(200, data: body.canonicalData(), headers: trace.headers)
    }

    /// `GET /v1.0/me`, honouring `$select`.
    func getMe(_ request: HTTPRequest, trace: RequestTrace) -> HTTPResponse {
        let scopes: ScopeSet
        let person: Int
        switch authorize(request, trace: trace) {
        case .denied(let response): return response
        case .granted(let granted, let index): (scopes, person) = (granted, index)
        }
        let readers = ["User.Read", "User.ReadWrite", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.AccessAsUser.All"]
        guard scopes.containsAny(readers) else {
            return GraphError.insufficientPrivileges.response(now: now(), trace: trace)
        }
        var selected = SimulatedUser.defaultProperties
        var context = "\(host)/v1.0/$metadata#users/$entity"
        if let select = request.query["$select"] {
            var names: [String] = []
            for raw in select.split(separator: ",", omittingEmptySubsequences: false) {
                let name = raw.trimmingCharacters(in: .whitespaces)
                guard let known = SimulatedUser.knownProperties.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                    return GraphError.badRequest("Could not find a property named '\(name)' on type 'microsoft.graph.user'.")
                        .response(now: now(), trace: trace)
                }
                if !names.contains(known) { names.append(known) }
            }
            selected = names
            context = "\(host)/v1.0/$metadata#users(\(names.joined(separator: ",")))/$entity"
        }
        let properties = people[person].properties
        var body: [String: JSONValue] = ["@odata.context": .string(context)]
        for name in selected { body[name] = properties[name] ?? .null }
        return .json(200, data: JSONValue.object(body).canonicalData(), headers: trace.headers)
    }

    /// `PATCH /v1.0/me`: only the ten profile fields, null clears, 204 on success.
    func patchMe(_ request: HTTPRequest, trace: RequestTrace) -> HTTPResponse {
        recordPatch(request.body)
        let scopes: ScopeSet
        let person: Int
        switch authorize(request, trace: trace) {
        case .denied(let response): return response
        case .granted(let granted, let index): (scopes, person) = (granted, index)
        }
        func fail(_ error: GraphError) -> HTTPResponse { error.response(now: now(), trace: trace) }
        guard scopes.containsAny(["User.ReadWrite", "User.ReadWrite.All"]) else {
            return fail(.insufficientPrivileges)
        }
        guard let parsed = try? JSONValue.parse(request.body), case .object(let members) = parsed else {
            return fail(GraphError(status: 400, code: "BadRequest", message: "Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format."))
        }
        for name in members.keys.sorted() where !SimulatedUser.knownProperties.contains(name) {
            return fail(.badRequest("Property '\(name)' does not exist as a declared property or extension property."))
        }
        for name in members.keys.sorted() where !SimulatedUser.writableProperties.contains(name) {
            // A real property the simulated user may not change about themselves.
            _ = name
            return fail(.insufficientPrivileges)
        }
        if people[person].kind == .member, !members.isEmpty, !scopes.contains("Directory.AccessAsUser.All") {
            // Graph applies the work/school User.ReadWrite property set, which excludes these fields.
            return fail(.insufficientPrivileges)
        }
        for name in members.keys.sorted() {
            let value = members[name]!
            switch value {
            case .null:
                if name == "displayName" {
                    return fail(.badRequest("Invalid value specified for property 'displayName' of resource 'User'."))
                }
            case .string(let text):
                if text.trimmingCharacters(in: .whitespaces).isEmpty {
                    return fail(.badRequest("Invalid value specified for property '\(name)' of resource 'User'."))
                }
                if name == "preferredLanguage", !Self.isLanguageTag(text) {
                    return fail(.badRequest("Invalid value specified for property 'preferredLanguage' of resource 'User'."))
                }
            default:
                return fail(.badRequest("Cannot convert the literal '\(value.scalarText ?? "value")' to the expected type 'Edm.String'."))
            }
        }
        for (name, value) in members {
            if value.isNull {
                people[person].profile.removeValue(forKey: name)
            } else {
                people[person].profile[name] = value
            }
        }
        return .empty(204, headers: trace.headers)
    }

    /// BCP-47 shape: `en`, `en-GB`, `zh-Hans-CN`.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
