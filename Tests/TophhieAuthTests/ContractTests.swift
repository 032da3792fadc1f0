import Foundation
import Testing
import LoopbackHTTP
import TophhieJSON
import TophhieSimulator
import TophhieSystem
@testable import TophhieAuth

/// The replies in `Tests/Contracts/graph-and-identity.json`, written from Microsoft's and the
/// RFCs' documentation, read by the client's parser and compared with what the simulator sends
/// for the same situation: the client and the simulator are each held to the documents, so a
/// shared mistake cannot pass as agreement.
@Suite(.timeLimit(.minutes(20))) struct ContractTests {
    static let fixture: JSONValue = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Contracts/graph-and-identity.json")
        do { return try JSONValue.parse(Data(contentsOf: url)) } catch { fatalError("cannot read \(url.path): \(error)") }
    }()

    struct Case: CustomTestStringConvertible, Sendable {
        let json: JSONValue
        var name: String { json["name"]?.stringValue ?? "?" }
        var status: Int { Int(json["status"]?.intValue ?? 0) }
        var body: JSONValue { json["body"] ?? .null }
        var headers: [(name: String, value: String)] {
            guard case .object(let members)? = json["headers"] else { return [] }
            return members.sorted { $0.key < $1.key }.compactMap { key, value in value.stringValue.map { (key, $0) } }
        }
        var response: HTTPResponse { .json(status, data: body.canonicalData(), headers: headers) }
        var testDescription: String { name }
    }

    static func cases(_ key: String) -> [Case] {
        guard case .array(let items)? = fixture[key] else { return [] }
        return items.map(Case.init)
    }

    /// Every key path of `expected`'s objects that `actual` lacks (arrays and values compared only by presence).
    static func missingKeys(_ expected: JSONValue, in actual: JSONValue, path: String = "") -> [String] {
        guard case .object(let members) = expected else { return [] }
        return members.keys.sorted().flatMap { key -> [String] in
            let here = path.isEmpty ? key : "\(path).\(key)"
            guard let other = actual[key] else { return [here] }
            return missingKeys(members[key]!, in: other, path: here)
        }
    }

    static func bearer(_ harness: TenantHarness) async throws -> String {
        try #require(try await harness.auth().currentSession()?.accessToken)
    }

    static func signInsRequest(filter: String, token: String) -> HTTPRequest {
        var components = URLComponents()
        components.path = "/v1.0/auditLogs/signIns"
        components.queryItems = [URLQueryItem(name: "$filter", value: filter), URLQueryItem(name: "$top", value: "1")]
        return HTTPRequest(method: "GET", target: components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? ""), headers: [("Authorization", "Bearer \(token)")])
    }

    static let selfFilter = "userId eq '\(TenantHarness.userID)' and createdDateTime ge 2026-08-28T00:00:00Z"

    // MARK: Graph errors, as the client reads them

    @Test(arguments: cases("graphErrors"))
    func theClientMapsEachDocumentedGraphError(_ contract: Case) async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let served = ServedOnce()
            let transport = EmbeddedTransport(clock: harness.clock) { request in
                if request.path.hasSuffix("/auditLogs/signIns"), served.first() { return contract.response }
                return await harness.tenant.handle(request)
            }
            let auth = TophhieAuth(configuration: harness.configuration, transport: transport, clock: harness.clock, jitter: { 0.5 })
            let expect = contract.json["client"] ?? .null
            let sleepsBefore = harness.clock.sleeps.count
            if expect["retried"] == .bool(true) {
                _ = try await auth.getSignInHistory(top: 1)
                #expect(await harness.signInRequests().count == 1, "the documented reply, then one retry the simulator answered")
                #expect(harness.clock.sleeps.count == sleepsBefore + 1, "one backed-off wait: \(harness.clock.sleeps)")
                return
            }
            if let wait = expect["retriedAfter"]?.doubleValue {
                _ = try await auth.getSignInHistory(top: 1)
                #expect(harness.clock.sleeps.contains(wait), "Retry-After \(wait) honoured: \(harness.clock.sleeps)")
                return
            }
            let error = await #expect(throws: TophhieAuthError.self) { _ = try await auth.getSignInHistory(top: 1) }
            let code = contract.body.value(atPath: "error.code")?.stringValue
            #expect(error?.withoutRequestIDs == .signInHistory(status: contract.status, graphCode: code))
            if let gate = expect["gate"]?.stringValue {
                #expect(error?.accessGate?.rawValue == gate)
            } else {
                #expect(error?.accessGate == nil)
            }
            let documentedID = contract.headers.first { $0.name == "request-id" }?.value ?? contract.body.value(atPath: "error.innerError.request-id")?.stringValue
            guard case .signInHistory(_, _, let ids)? = error else { return }
            #expect(ids?.requestID == documentedID)
        }
    }

    // MARK: Graph errors, as the simulator sends them

    static func simulatorReply(_ situation: String) async throws -> HTTPResponse {
        var scenario = TenantHarness.scenario()
        var scopes = [TophhieScopes.userRead, TophhieScopes.auditLogRead]
        var filter = selfFilter
        var fault: FaultRule?
        switch situation {
        case "freeTenant": scenario.premium = false
        case "anotherUsersSignIns": filter = "userId eq '00000000-0000-0000-0000-0000000000aa'"
        case "noAuditLogConsent":
            scenario.consentedScopes = ["User.Read"]
            scopes = [TophhieScopes.userRead]
        case "quotedDate": filter = "userId eq '\(TenantHarness.userID)' and createdDateTime ge '2026-08-28T00:00:00Z'"
        case "throttled": fault = FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .throttle, count: 1, retryAfter: "2.128")
        case "serviceUnavailable": fault = FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .status, count: 1, status: 503)
        default: Issue.record("no simulator set-up named '\(situation)'")
        }
        return try await TenantHarness.with(scenario) { harness in
            try await harness.signIn(scopes)
            if let fault { await harness.tenant.addFault(fault) }
            return await harness.tenant.handle(signInsRequest(filter: filter, token: try await bearer(harness)))
        }
    }

    @Test(arguments: cases("graphErrors").filter { $0.json["simulator"] != nil })
    func theSimulatorSendsEachDocumentedGraphErrorInItsDocumentedShape(_ contract: Case) async throws {
        let reply = try await Self.simulatorReply(try #require(contract.json["simulator"]?.stringValue))
        #expect(reply.status == contract.status)
        let body = try JSONValue.parse(reply.body)
        #expect(body.value(atPath: "error.code") == contract.body.value(atPath: "error.code"))
        #expect(Self.missingKeys(contract.body, in: body) == [], "\(String(decoding: reply.body, as: UTF8.self))")
        for (name, value) in contract.headers {
            let sent = reply.headers.first { $0.name.lowercased() == name.lowercased() }?.value
            #expect(sent != nil, "header \(name)")
            if name == "Retry-After" { #expect(sent == value) }
        }
    }

    // MARK: Paging

    @Test func theSimulatorsPageHasTheDocumentedShape() async throws {
        var scenario = TenantHarness.scenario()
        scenario.generate = [SignInGeneration(pattern: .normalHistory, seed: 7, days: 7)]
        try await TenantHarness.with(scenario) { harness in
            try await harness.signIn()
            let reply = await harness.tenant.handle(Self.signInsRequest(filter: "userId eq '\(TenantHarness.userID)' and createdDateTime ge 2026-08-22T00:00:00Z", token: try await Self.bearer(harness)))
            #expect(reply.status == 200)
            let page = try JSONValue.parse(reply.body)
            guard case .object(let members) = page else { Issue.record("not an object"); return }
            let documented = try #require({ if case .array(let keys)? = Self.fixture.value(atPath: "page.keys") { return keys.compactMap(\.stringValue) } else { return nil } }())
            #expect(members.keys.sorted() == documented.sorted())
            let suffix = try #require(Self.fixture.value(atPath: "page.contextSuffix")?.stringValue)
            #expect(page["@odata.context"]?.stringValue?.hasSuffix(suffix) == true)
            let next = try #require(page["@odata.nextLink"]?.stringValue.flatMap(URLComponents.init(string:)))
            #expect(next.queryItems?.contains { $0.name == "$skiptoken" } == true)
        }
    }

    // MARK: Device-code token endpoint (RFC 8628 §3.5)

    static let granted: Case = cases("deviceCodeToken").first { $0.json["client"]?.stringValue == "granted" }!

    @Test(arguments: cases("deviceCodeToken"))
    func theClientFollowsEachDocumentedTokenAnswer(_ contract: Case) async throws {
        try await TenantHarness.with { harness in
            let answers = TokenAnswers([contract, Self.granted])
            let transport = EmbeddedTransport(clock: harness.clock) { request in
                if request.path.hasSuffix("/oauth2/v2.0/token") { return answers.next() }
                return await harness.tenant.handle(request)
            }
            let auth = TophhieAuth(configuration: harness.configuration, transport: transport, clock: harness.clock, jitter: { 0.5 })
            let signIn = { try await auth.signIn(scopes: [TophhieScopes.userRead]) { _ in } }
            switch contract.json["client"]?.stringValue {
            case "keepPolling":
                _ = try await signIn()
                #expect(harness.clock.sleeps == [5, 5])
            case "slowDown":
                _ = try await signIn()
                #expect(harness.clock.sleeps == [5, 10], "RFC 8628: the interval grows by 5 s")
            case "declined":
                await #expect(throws: TophhieAuthError.signIn(.declined)) { _ = try await signIn() }
            case "expired":
                await #expect(throws: TophhieAuthError.signIn(.expired)) { _ = try await signIn() }
            case "granted":
                let session = try await signIn()
                #expect(session.grantedScopes.contains("AuditLog.Read.All"))
                #expect(session.refreshToken == contract.body["refresh_token"]?.stringValue)
            default:
                Issue.record("unknown client expectation")
            }
        }
    }

    @Test(arguments: cases("deviceCodeToken"))
    func theSimulatorsTokenEndpointAnswersInTheDocumentedShape(_ contract: Case) async throws {
        let stepName = try #require(contract.json["simulator"]?.stringValue)
        let step = try #require(DeviceCodeSettings.Step(rawValue: stepName))
        try await TenantHarness.with(TenantHarness.scenario(script: [step])) { harness in
            let authority = harness.endpoints.authority.path
            func post(_ path: String, _ fields: [String: String]) async -> HTTPResponse {
                await harness.tenant.handle(HTTPRequest(method: "POST", target: authority + path, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: IdentityClient.formEncode(fields)))
            }
            let started = try JSONValue.parse(await post("/oauth2/v2.0/devicecode", ["client_id": harness.endpoints.clientID, "scope": "User.Read AuditLog.Read.All offline_access openid profile email"]).body)
            let deviceCode = try #require(started["device_code"]?.stringValue)
            harness.clock.advance(by: 5)
            let reply = await post("/oauth2/v2.0/token", ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": harness.endpoints.clientID, "device_code": deviceCode])
            #expect(reply.status == contract.status)
            let body = try JSONValue.parse(reply.body)
            #expect(body["error"] == contract.body["error"])
            if let codes = contract.body["error_codes"] { #expect(body["error_codes"] == codes) }
            #expect(Self.missingKeys(contract.body, in: body) == [], "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }
}

/// True the first time only: a documented reply served once, the simulator after it.
final class ServedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var served = false
    func first() -> Bool { lock.withLock { defer { served = true }; return !served } }
}

/// The documented token answers in order, the last repeated.
final class TokenAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var queue: [ContractTests.Case]
    init(_ answers: [ContractTests.Case]) { queue = answers }
    func next() -> HTTPResponse {
        lock.withLock { (queue.count > 1 ? queue.removeFirst() : queue[0]).response }
    }
}
