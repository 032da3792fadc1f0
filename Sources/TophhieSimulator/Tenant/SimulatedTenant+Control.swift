import Foundation
import LoopbackHTTP
import TophhieJSON

extension SimulatedTenant {
    /// The control endpoints, listed by `GET /_sim`.
    static let controlIndex: [(String, String)] = [
        ("GET /_sim", "this list"),
        ("GET /_sim/status", "clock, pending user codes, sign-in and request counts"),
        ("POST /_sim/device/approve", "body {\"userCode\":\"ABCD…\"}: approve a pending device code"),
        ("POST /_sim/device/decline", "body {\"userCode\":\"ABCD…\"}: decline a pending device code"),
        ("POST /_sim/tokens/revoke", "revoke every refresh token issued so far (AADSTS50173 on next use)"),
        ("POST /_sim/signins", "body: an array of Graph signIn objects (or {\"value\":[…]}), each with optional latencySeconds"),
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
                "userId": .string(user.id),
                "pendingUserCodes": .array(pendingUserCodes.map { .string($0) }),
                "signIns": .int(Int64(signIns.count)),
                "requests": .int(Int64(requests.count)),
                "signInRequests": .int(Int64(requests.count { $0.path.hasSuffix("/auditLogs/signIns") })),
            ])
            return .json(200, data: body.canonicalData())
        case ("POST", "/_sim/device/approve"), ("POST", "/_sim/device/decline"):
            guard let code = Self.userCode(from: request) else {
                return controlError(400, "send {\"userCode\":\"…\"} as JSON or user_code=… as a form")
            }
            let approving = request.path.hasSuffix("approve")
            guard deviceCodes.decide(userCode: code, approve: approving) else {
                return controlError(404, "no pending device code with user code '\(code)'")
            }
            return .json(200, data: JSONValue.object([approving ? "approved" : "declined": .string(code.uppercased())]).canonicalData())
        case ("POST", "/_sim/tokens/revoke"):
            return .json(200, data: JSONValue.object(["revoked": .int(Int64(revokeRefreshTokens()))]).canonicalData())
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
            let decided = deviceCodes.decide(userCode: code, approve: approving)
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
        <p>Signing in as \(user.userPrincipalName) to tenant \(scenario.tenantID).</p>
        \(escaped.map { "<p><strong>\($0)</strong></p>" } ?? "")
        <form method="post" action="/devicelogin">
        <label>Code <input name="user_code" autocomplete="off"></label>
        <button name="action" value="approve">Approve</button>
        <button name="action" value="decline">Decline</button>
        </form>
        </body></html>
        """
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8))
    }
}
