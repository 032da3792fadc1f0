import Foundation
import LoopbackHTTP
import TophhieJSON

extension SimulatedTenant {
    /// The control endpoints, listed by `GET /_sim`.
    static let controlIndex: [(String, String)] = [
        ("GET /_sim", "this list"),
        ("GET /_sim/status", "clock, pending user codes, sign-in and request counts, the Graph limit's 429s"),
        ("GET /_sim/people", "everyone the tenant signs in: id, userPrincipalName, displayName, home, signedIn"),
        ("POST /_sim/device/approve", "body {\"userCode\":\"ABCD…\"} and/or {\"person\":\"person2@…\"}: approve a pending device code (the oldest, when no code is given) as that person, else as the next person not signed in"),
        ("POST /_sim/device/decline", "body {\"userCode\":\"ABCD…\"}: decline a pending device code"),
        ("POST /_sim/tokens/revoke", "revoke every refresh token issued so far (AADSTS50173 on next use); body {\"person\":\"person2@…\"} revokes that person's alone"),
        ("POST /_sim/signins", "body: an array of Graph signIn objects (or {\"value\":[…]}), each with a person's userId and optional latencySeconds"),
        ("POST /_sim/faults", "body: a fault rule object (or an array of them), appended to the plan"),
        ("POST /_sim/clock", "body {\"advanceSeconds\":N} or {\"set\":\"2026-03-10T12:00:00Z\"}: move a simulator-owned clock"),
        ("GET /_sim/requests", "the request log (Authorization values redacted)"),
        ("GET /_sim/patches", "the raw bodies of every PATCH /v1.0/me received"),
        ("DELETE /_sim/requests", "clear the request log and recorded PATCH bodies"),
        ("GET /devicelogin", "a page where a person enters a user code to approve or decline"),
    ]

    func control(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/_sim"), ("GET", "/_sim/"):
            let list = Self.controlIndex.map { JSONValue.object(["endpoint": .string($0.0), "does": .string($0.1)]) }
            return .json(200, data: JSONValue.object(["endpoints": .array(list)]).canonicalData())
        case ("GET", "/_sim/status"):
            let body: JSONValue = .object([
                "now": .string(GraphTimestamp.graphText(now())),
                "clockOwned": .bool(clock != nil),
                "tenantId": .string(scenario.tenantID),
                "clientId": .string(scenario.clientID),
                "userId": .string(people[0].id),
                "people": .int(Int64(people.count)),
                "pendingUserCodes": .array(pendingUserCodes.map { .string($0) }),
                "signIns": .int(Int64(signIns.count)),
                "requests": .int(Int64(requests.count)),
                "signInRequests": .int(Int64(requests.count { $0.path.hasSuffix("/auditLogs/signIns") })),
                "graphLimit": .object([
                    "enforced": .bool(throttle != nil),
                    "requests": .int(Int64(scenario.throttle.requests)),
                    "windowSeconds": .double(scenario.throttle.windowSeconds),
                    "refused": .int(Int64(graphLimitRefusals)),
                ]),
            ])
            return .json(200, data: body.canonicalData())
        case ("GET", "/_sim/people"):
            let list = people.enumerated().map { index, person in
                let home = scenario.everyone[index].home
                return JSONValue.object([
                    "id": .string(person.id),
                    "userPrincipalName": .string(person.userPrincipalName),
                    "displayName": .string(person.displayName),
                    "home": .string("\(home.city), \(home.countryOrRegion)"),
                    "signedIn": .bool(signedIn.contains(person.id)),
                ])
            }
            return .json(200, data: JSONValue.object(["value": .array(list)]).canonicalData())
        case ("POST", "/_sim/device/approve"), ("POST", "/_sim/device/decline"):
            let approving = request.path.hasSuffix("approve")
            let named = approving ? Self.person(from: request) : nil
            var personIndex: Int?
            if let named {
                guard let index = self.personIndex(named: named) else { return controlError(404, Self.unknownPerson(named)) }
                personIndex = index
            }
            guard let code = Self.userCode(from: request) ?? (personIndex != nil ? pendingUserCodes.first : nil) else {
                if personIndex != nil { return controlError(404, "no pending device code to approve") }
                return controlError(400, "send {\"userCode\":\"…\"} as JSON or user_code=… as a form")
            }
            guard deviceCodes.decide(userCode: code, approve: approving, person: personIndex.map { people[$0].id }) else {
                return controlError(404, "no pending device code with user code '\(code)'")
            }
            var reply: [String: JSONValue] = [approving ? "approved" : "declined": .string(code.uppercased())]
            if let personIndex { reply["person"] = .string(people[personIndex].userPrincipalName) }
            return .json(200, data: JSONValue.object(reply).canonicalData())
        case ("POST", "/_sim/tokens/revoke"):
            guard let named = Self.person(from: request) else {
                return .json(200, data: JSONValue.object(["revoked": .int(Int64(revokeRefreshTokens()))]).canonicalData())
            }
            guard let index = personIndex(named: named) else { return controlError(404, Self.unknownPerson(named)) }
            let revoked = revokeSessions(ofPersonAt: index)
            return .json(200, data: JSONValue.object(["revoked": .int(Int64(revoked)), "person": .string(people[index].userPrincipalName)]).canonicalData())
        case ("POST", "/_sim/signins"):
            let list: [ScenarioSignIn]
            do {
                let decoder = JSONDecoder()
                if let wrapped = try? decoder.decode([String: [ScenarioSignIn]].self, from: request.body), let value = wrapped["value"] {
                    list = value
                } else {
                    list = try decoder.decode([ScenarioSignIn].self, from: request.body)
                }
            } catch let error as DecodingError {
                return controlError(400, SimulatorScenarioError(file: "request body", decodingError: error).description)
            } catch {
                return controlError(400, "the body must be a JSON array of signIn objects")
            }
            if let refusal = ownerlessSignIn(in: list) { return controlError(400, refusal) }
            addSignIns(list)
            return .json(200, data: JSONValue.object(["added": .int(Int64(list.count))]).canonicalData())
        case ("POST", "/_sim/faults"):
            let decoder = JSONDecoder()
            let rules: [FaultRule]
            if let one = try? decoder.decode(FaultRule.self, from: request.body) {
                rules = [one]
            } else {
                do {
                    rules = try decoder.decode([FaultRule].self, from: request.body)
                } catch let error as DecodingError {
                    return controlError(400, SimulatorScenarioError(file: "request body", decodingError: error).description)
                } catch {
                    return controlError(400, "the body must be a fault rule or an array of them")
                }
            }
            for rule in rules { addFault(rule) }
            return .json(200, data: JSONValue.object(["added": .int(Int64(rules.count))]).canonicalData())
        case ("POST", "/_sim/clock"):
            guard let clock else { return controlError(409, "the clock is driven by the host; it cannot be moved here") }
            guard let body = try? JSONValue.parse(request.body) else {
                return controlError(400, "send {\"advanceSeconds\":N} or {\"set\":\"ISO-8601 time\"}")
            }
            if let seconds = body["advanceSeconds"]?.doubleValue {
                clock.advance(by: seconds)
            } else if let text = body["set"]?.stringValue, let date = GraphTimestamp.parse(text) {
                clock.set(to: date)
            } else {
                return controlError(400, "send {\"advanceSeconds\":N} or {\"set\":\"ISO-8601 time\"}")
            }
            return .json(200, data: JSONValue.object(["now": .string(GraphTimestamp.graphText(now()))]).canonicalData())
        case ("GET", "/_sim/requests"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(GraphTimestamp.graphText(date))
            }
            let data = (try? encoder.encode(["value": requests])) ?? Data("{\"value\":[]}".utf8)
            return .json(200, data: data)
        case ("DELETE", "/_sim/requests"):
            clearRequestLog()
            return .empty(204)
        case ("GET", "/_sim/patches"):
            let bodies = patchBodies.map { JSONValue.string(String(decoding: $0, as: UTF8.self)) }
            return .json(200, data: JSONValue.object(["value": .array(bodies)]).canonicalData())
        case ("GET", "/devicelogin"):
            return deviceLoginPage(message: nil)
        case ("POST", "/devicelogin"):
            let form = request.formFields()
            let code = form["user_code"] ?? ""
            let approving = form["action"] != "decline"
            var person: String?
            if approving, let named = form["person"], !named.isEmpty {
                guard let index = personIndex(named: named) else { return deviceLoginPage(message: Self.unknownPerson(named)) }
                person = people[index].id
            }
            let decided = deviceCodes.decide(userCode: code, approve: approving, person: person)
            return deviceLoginPage(message: decided
                ? (approving ? "Approved. You can return to the application." : "Declined. The application will not be signed in.")
                : "No pending sign-in has the code \(code.isEmpty ? "(empty)" : code).")
        default:
            return controlError(404, "no control endpoint \(request.method) \(request.path); GET /_sim lists them")
        }
    }

    private func controlError(_ status: Int, _ message: String) -> HTTPResponse {
        .json(status, data: JSONValue.object(["error": .string(message)]).canonicalData())
    }

    /// Why a posted sign-in cannot be added: the first one whose `userId` no person has; nil when
    /// every one is someone's.
    private func ownerlessSignIn(in list: [ScenarioSignIn]) -> String? {
        for signIn in list {
            let id = signIn.event["id"]?.stringValue ?? ""
            guard let userID = signIn.event["userId"]?.stringValue else {
                return "sign-in '\(id)' has no userId; give the id of one of the tenant's people (GET /_sim/people)"
            }
            guard people.contains(where: { $0.id.caseInsensitiveCompare(userID) == .orderedSame }) else {
                return "sign-in '\(id)' has userId '\(userID)', which is no person in this tenant; GET /_sim/people lists them"
            }
        }
        return nil
    }

    /// The `person` a control request names (user principal name or object id), from JSON or a form.
    private static func person(from request: HTTPRequest) -> String? {
        if let body = try? JSONValue.parse(request.body), let person = body["person"]?.stringValue, !person.isEmpty {
            return person
        }
        if let person = request.formFields()["person"], !person.isEmpty { return person }
        return nil
    }

    private static func userCode(from request: HTTPRequest) -> String? {
        if let body = try? JSONValue.parse(request.body), let code = body["userCode"]?.stringValue, !code.isEmpty {
            return code
        }
        let form = request.formFields()
        if let code = form["user_code"] ?? form["userCode"], !code.isEmpty { return code }
        return nil
    }

    private func deviceLoginPage(message: String?) -> HTTPResponse {
        let escaped = message.map {
            $0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let html = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Simulated tenant sign-in</title></head>
        <body>
        <h1>Simulated Microsoft Entra sign-in</h1>
        <p>Signing in as \((people.first { !signedIn.contains($0.id) } ?? people[0]).userPrincipalName) to tenant \(scenario.tenantID).</p>
        \(escaped.map { "<p><strong>\($0)</strong></p>" } ?? "")
        <form method="post" action="/devicelogin">
        <label>Code <input name="user_code" autocomplete="off"></label>
        \(people.count > 1 ? #"<label>Person <input name="person" autocomplete="off" placeholder="person2@…"></label>"# : "")
        <button name="action" value="approve">Approve</button>
        <button name="action" value="decline">Decline</button>
        </form>
        </body></html>
        """
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8))
    }
}
