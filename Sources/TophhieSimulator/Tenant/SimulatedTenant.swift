import Foundation
import LoopbackHTTP
import TophhieSystem
import TophhieJSON

/// A simulated Entra tenant and Microsoft Graph, served over loopback HTTP.
///
/// Identity platform under `/{tenant}/oauth2/v2.0/…`, Graph under `/v1.0/…`, control endpoints
/// under `/_sim/…` (see `examples/scenarios/README.md`). Behaviour comes from a
/// `SimulatorScenario`; time comes from an injected clock, so tests and the accelerated demo
/// decide what "now" is.
public actor SimulatedTenant: Service {
    /// The scenario the tenant was built from.
    public nonisolated let scenario: SimulatorScenario
    let now: @Sendable () -> Date
    /// The clock, when the tenant may move it (`/_sim/clock`, `advanceClock(by:)`).
    public nonisolated let clock: SimulatorClock?

    /// Everyone the tenant signs in, person 1 (the scenario's `user`) first.
    var people: [SimulatedUser]
    /// Object ids of the people holding a session: signed in with a device code and not revoked
    /// since. An approval that names nobody signs in the first person not in it.
    var signedIn: Set<String> = []
    var tokens = TokenLedger()
    var deviceCodes: DeviceCodeFlow
    var signIns: [StoredSignIn] = []
    var nextSignInSequence = 0
    var faults: FaultPlan
    /// The reporting API's budget, when enforced. The tenant registers one client, so one window
    /// is Graph's "per app per tenant".
    var throttle: ThrottleWindow?
    /// How many sign-in log requests the budget refused with 429.
    public internal(set) var graphLimitRefusals = 0
    var cursors: [String: SignInCursor] = [:]
    /// Sign-in log requests made with a token lacking Directory.Read.All, for the licence quirk.
    var requestsWithoutDirectoryRead = 0
    var cursorOrder: [String] = []

    /// Every request served outside `/_sim`, oldest first.
    public private(set) var requests: [RecordedRequest] = []
    /// The status beta's sign-in log refuses with, from the scenario until `refuseBeta(with:)`.
    var betaRefusal: Int?
    /// Whether beta refuses the `signInEventTypes` filter, from the scenario until changed.
    var nonInteractiveFilterRefusal = false
    /// The raw body of every `PATCH /v1.0/me` received, accepted or not, oldest first.
    public private(set) var patchBodies: [Data] = []

    private var server: LoopbackHTTPServer?
    private var boundPort: UInt16?
    /// The port the tenant names in its URLs when reached in-process (no socket is bound).
    private var embeddedPort: UInt16?

    /// A sign-in as stored: the served object, when it becomes visible, and insertion order.
    struct StoredSignIn: Sendable {
        var event: JSONValue
        var createdAt: Date
        var visibleAt: Date
        var sequence: Int
        /// The event as every page writes it (`canonicalBytes`), written once: writing a
        /// thousand events per page took longer than the agent's whole poll.
        var bytes: [UInt8]
        /// The event as v1.0 serves it: beta's properties left out.
        var v1Bytes: [UInt8]
        /// `signInEventTypes`, or what `isInteractive` implies for an event without them.
        var eventTypes: Set<String>

        init(event: JSONValue, createdAt: Date, visibleAt: Date, sequence: Int) {
            self.event = event
            self.createdAt = createdAt
            self.visibleAt = visibleAt
            self.sequence = sequence
            bytes = event.canonicalBytes()
            v1Bytes = GraphSignInProperties.v1Shape(of: event).canonicalBytes()
            eventTypes = GraphSignInProperties.eventTypes(of: event)
        }
    }

    /// A paging position: the result list frozen at the first page, and how far the client got.
    struct SignInCursor: Sendable {
        var filterText: String
        var pageSize: Int
        var items: [StoredSignIn]
        var offset: Int
    }

    /// A tenant whose clock the caller drives through `now`. `/_sim/clock` is refused.
    public init(scenario: SimulatorScenario, now: @escaping @Sendable () -> Date) {
        self.init(scenario: scenario, now: now, clock: nil)
    }

    /// A tenant on `clock`, which it may also move (control endpoint, `advanceClock(by:)`).
    public init(scenario: SimulatorScenario, clock: SimulatorClock) {
        self.init(scenario: scenario, now: { clock.now() }, clock: clock)
    }

    /// A tenant on its own running clock, started as the scenario's `clock` section says.
    public init(scenario: SimulatorScenario) {
        let clock = SimulatorClock.running(from: scenario.clock?.start ?? Date(), speed: scenario.clock?.speed ?? 1)
        self.init(scenario: scenario, clock: clock)
    }

    private init(scenario: SimulatorScenario, now: @escaping @Sendable () -> Date, clock: SimulatorClock?) {
        self.scenario = scenario
        self.now = now
        self.clock = clock
        self.people = scenario.everyone.map(\.user)
        self.betaRefusal = scenario.betaRefusalStatus
        self.nonInteractiveFilterRefusal = scenario.nonInteractiveFilterRefused
        self.deviceCodes = DeviceCodeFlow(settings: scenario.deviceCode)
        self.faults = FaultPlan(scenario.faults)
        self.throttle = scenario.throttle.enabled
            ? ThrottleWindow(limit: scenario.throttle.requests, window: scenario.throttle.windowSeconds) : nil
        let start = now()
        var initial = scenario.signIns
        for person in scenario.everyone {
            let account = SignInFactory.Account(userID: person.user.id, userPrincipalName: person.user.userPrincipalName, displayName: person.user.displayName)
            for generation in person.generate {
                initial += generation.events(account: account, home: person.home, endingAt: start)
            }
        }
        var sequence = 0
        for signIn in initial {
            guard let createdAt = signIn.createdAt else { continue }
            let latency = signIn.latencySeconds ?? scenario.defaultLatencySeconds
            signIns.append(StoredSignIn(event: signIn.event, createdAt: createdAt, visibleAt: createdAt.addingTimeInterval(latency), sequence: sequence))
            sequence += 1
        }
        nextSignInSequence = sequence
    }

    // MARK: Serving

    /// Starts serving on 127.0.0.1 and says where.
    /// - Parameter port: 0 picks a free port.
    /// - Throws: `LoopbackHTTPError` when the port cannot be bound or the tenant is already serving.
    @discardableResult
    public func start(port: UInt16 = 0) throws -> SimulatorEndpoints {
        if let boundPort { throw LoopbackHTTPError("the simulated tenant is already serving on port \(boundPort)") }
        // Graph and the identity platform keep connections open; so does the simulator, so a
        // client's connection reuse (and its cost without it) shows here as it would there.
        let server = LoopbackHTTPServer(keepsConnectionsOpen: true) { [weak self] request in
            guard let self else { return .text(503, "the simulated tenant is gone") }
            return await self.handle(request)
        }
        let port = try server.start(port: port)
        self.server = server
        self.boundPort = port
        return SimulatorEndpoints(port: port, tenantID: scenario.tenantID, clientID: scenario.clientID)
    }

    /// Stops serving and closes the port.
    public func stop() async {
        let server = self.server
        self.server = nil
        boundPort = nil
        await server?.stop()
    }

    /// Serves until the calling task is cancelled (for `tophhie-watch simulate`), starting on
    /// `port` if not yet started.
    /// - Throws: `LoopbackHTTPError` when the port cannot be bound.
    public func run(port: UInt16) async throws {
        if boundPort == nil { try start(port: port) }
        guard let server else { return }
        try await server.run()
        await stop()
    }

    /// Serves until cancelled or stopped, on an ephemeral port unless already started.
    public func run() async throws {
        try await run(port: 0)
    }

    /// Stops serving; `run()` then returns.
    public func shutdownGracefully() async {
        await stop()
    }

    /// The scenario is fixed at start; nothing to re-read.
    public func reload() async {}

    /// Where the tenant answers, once started.
    public var endpoints: SimulatorEndpoints? {
        boundPort.map { SimulatorEndpoints(port: $0, tenantID: scenario.tenantID, clientID: scenario.clientID) }
    }

    var host: String {
        "http://127.0.0.1:\(boundPort ?? embeddedPort ?? 0)"
    }

    // MARK: In-process

    /// Where the tenant answers when reached through `transport(clock:)` rather than a socket.
    ///
    /// The URLs name 127.0.0.1 port 9 (the discard port, where nothing listens): a request that
    /// escapes to the real network by mistake fails at once instead of reaching anything.
    public func embeddedEndpoints() -> SimulatorEndpoints {
        if boundPort == nil, embeddedPort == nil { embeddedPort = 9 }
        return SimulatorEndpoints(port: boundPort ?? embeddedPort ?? 9, tenantID: scenario.tenantID, clientID: scenario.clientID)
    }

    /// A transport that calls `handle(_:)` in-process, sleeping response delays on `clock`.
    public nonisolated func transport(clock: any TophhieClock) -> EmbeddedTransport {
        EmbeddedTransport(clock: clock) { request in await self.handle(request) }
    }

    /// Answers one request; the server calls this, and tests may call it directly.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if request.path == "/_sim" || request.path.hasPrefix("/_sim/") || request.path == "/devicelogin" {
            return control(request)
        }
        let arrival = now()
        let trace = RequestTrace(request, requestID: UUID().uuidString.lowercased(), date: now())
        var response: HTTPResponse
        let fault = faults.take(method: request.method, path: request.path, query: request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        if let fault, let faulted = faultResponse(fault, path: request.path, trace: trace) {
            response = faulted
        } else {
            response = route(request, trace: trace, eventFault: fault?.kind)
            if let fault, fault.kind == .delay { response.delay = fault.seconds ?? 0 }
        }
        requests.append(RecordedRequest(
            method: request.method,
            path: request.path,
            rawQuery: request.rawQuery,
            query: request.query,
            headers: request.headers.map { header in
                let secret = ["authorization", "cookie", "proxy-authorization"].contains(header.name.lowercased())
                return RecordedRequest.Header(name: header.name, value: secret ? "[redacted]" : header.value)
            },
            status: response.fault == nil ? response.status : 0,
            time: arrival
        ))
        return response
    }

    private func route(_ request: HTTPRequest, trace: RequestTrace, eventFault: FaultRule.Kind?) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if segments.first == "beta" {
            switch (request.method, Array(segments.dropFirst())) {
            case ("GET", ["auditLogs", "signIns"]):
                return listSignIns(request, trace: trace, eventFault: eventFault, beta: true)
            default:
                return GraphError(status: 404, code: "Request_ResourceNotFound", message: "Resource not found for the segment '\(segments.dropFirst().first ?? "")'.")
                    .response(now: now(), trace: trace)
            }
        }
        if segments.first == "v1.0" {
            switch (request.method, Array(segments.dropFirst())) {
            case ("GET", ["me"]):
                return getMe(request, trace: trace)
            case ("PATCH", ["me"]):
                return patchMe(request, trace: trace)
            case ("POST", ["me", "revokeSignInSessions"]):
                return revokeSignInSessions(request, trace: trace)
            case ("GET", ["auditLogs", "signIns"]):
                return listSignIns(request, trace: trace, eventFault: eventFault)
            case (_, ["me"]), (_, ["auditLogs", "signIns"]):
                return GraphError(status: 405, code: "Request_BadRequest", message: "Specified HTTP method is not allowed for the request target.")
                    .response(now: now(), trace: trace)
            default:
                return GraphError(status: 404, code: "Request_ResourceNotFound", message: "Resource not found for the segment '\(segments.dropFirst().first ?? "")'.")
                    .response(now: now(), trace: trace)
            }
        }
        if segments.count >= 2 {
            let tenant = segments[0]
            switch (request.method, Array(segments.dropFirst())) {
            case ("POST", ["oauth2", "v2.0", "devicecode"]):
                return deviceAuthorization(request, tenant: tenant)
            case ("POST", ["oauth2", "v2.0", "token"]):
                return token(request, tenant: tenant)
            case ("GET", ["v2.0", ".well-known", "openid-configuration"]):
                return discovery(tenant: tenant)
            default:
                break
            }
        }
        return .json(404, ["error": "not_found", "error_description": "No simulated endpoint at \(request.method) \(request.path)."])
    }

    /// The response a fault replaces the real one with; nil for faults that wrap the real response.
    private func faultResponse(_ fault: FaultRule, path: String, trace: RequestTrace) -> HTTPResponse? {
        let identity = path.contains("/oauth2/")
        switch fault.kind {
        case .delay, .malformedEvent, .invalidUTF8InEvent, .controlByteInEvent, .loneSurrogateInEvent:
            return nil
        case .throttle:
            let retryAfter = fault.retryAfter ?? "1"
            if identity {
                var response = IdentityError(status: 429, error: "temporarily_unavailable", code: 90033, description: "Too many requests. Please try again later.")
                    .response(now: now(), host: host)
                response.headers.append(("Retry-After", retryAfter))
                return response
            }
            return GraphError.throttled(retryAfter: retryAfter).response(now: now(), trace: trace)
        case .status:
            let status = fault.status ?? 503
            if identity {
                var response = IdentityError.transient(status: status).response(now: now(), host: host)
                if let retryAfter = fault.retryAfter { response.headers.append(("Retry-After", retryAfter)) }
                return response
            }
            return GraphError.server(status: status, retryAfter: fault.retryAfter).response(now: now(), trace: trace)
        case .invalidJSON:
            return .json(200, data: Data(#"{"@odata.context":"\#(host)/v1.0/$metadata#auditLogs/signIns","value":[{"id":"b7c1"#.utf8))
        case .truncatedBody:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nConnection: close\r\n\r\n{\"value\":["
            return .raw(Data(head.utf8))
        case .dropConnection:
            return .dropConnection
        }
    }

    // MARK: Operations for tests and the control endpoints

    /// Approves the pending device code with this user code; false when there is none.
    @discardableResult
    public func approve(userCode: String) -> Bool {
        deviceCodes.decide(userCode: userCode, approve: true)
    }

    /// Declines the pending device code with this user code; false when there is none.
    @discardableResult
    public func decline(userCode: String) -> Bool {
        deviceCodes.decide(userCode: userCode, approve: false)
    }

    /// User codes waiting for approval, oldest first.
    public var pendingUserCodes: [String] {
        deviceCodes.pendingUserCodes(now: now())
    }

    /// Revokes every refresh token issued so far (AADSTS50173 on next use); returns how many were live.
    @discardableResult
    public func revokeRefreshTokens() -> Int {
        signedIn.removeAll()
        return tokens.revokeRefreshTokens()
    }

    /// Revokes the refresh tokens of one person, named by user principal name or object id, as
    /// `POST /me/revokeSignInSessions` does for them; everyone else's keep working.
    /// - Returns: how many of theirs were live.
    /// - Throws: `SimulatorControlError` when no person has that name or id.
    @discardableResult
    public func revokeRefreshTokens(of person: String) throws -> Int {
        guard let index = personIndex(named: person) else { throw SimulatorControlError(message: Self.unknownPerson(person)) }
        return revokeSessions(ofPersonAt: index)
    }

    /// Ends person `index`'s sessions: refresh tokens refused from now on, and
    /// `signInSessionsValidFromDateTime` now.
    func revokeSessions(ofPersonAt index: Int) -> Int {
        let id = people[index].id
        signedIn.remove(id)
        people[index].profile["signInSessionsValidFromDateTime"] = .string(GraphTimestamp.graphText(now()))
        return tokens.revokeRefreshTokens(of: id)
    }

    /// Approves the pending device code with this user code as the person named (user principal
    /// name or object id); false when there is no such pending code.
    /// - Throws: `SimulatorControlError` when no person has that name or id.
    @discardableResult
    public func approve(userCode: String, as person: String) throws -> Bool {
        guard let index = personIndex(named: person) else { throw SimulatorControlError(message: Self.unknownPerson(person)) }
        return deviceCodes.decide(userCode: userCode, approve: true, person: people[index].id)
    }

    /// The people the tenant serves, person 1 first.
    public var everyone: [SimulatedUser] {
        people
    }

    /// The object ids of the people signed in and not revoked since.
    public var signedInPeople: Set<String> {
        signedIn
    }

    /// Where `name` (a user principal name or an object id, any case) is in `people`.
    func personIndex(named name: String) -> Int? {
        people.firstIndex { $0.userPrincipalName.caseInsensitiveCompare(name) == .orderedSame || $0.id.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The exact refusal for a person no one is.
    static func unknownPerson(_ name: String) -> String {
        "no person '\(name)' in this tenant; GET /_sim/people lists them"
    }

    /// Adds sign-in events; each becomes visible `latencySeconds` (or the scenario default) after it happened.
    public func addSignIns(_ events: [ScenarioSignIn]) {
        for signIn in events {
            guard let createdAt = signIn.createdAt else { continue }
            let latency = signIn.latencySeconds ?? scenario.defaultLatencySeconds
            signIns.append(StoredSignIn(event: signIn.event, createdAt: createdAt, visibleAt: createdAt.addingTimeInterval(latency), sequence: nextSignInSequence))
            nextSignInSequence += 1
        }
    }

    /// Adds Graph signIn objects, all with the same visibility delay.
    public func addSignIns(_ events: [JSONValue], latencySeconds: Double? = nil) {
        addSignIns(events.map { ScenarioSignIn(event: $0, latencySeconds: latencySeconds) })
    }

    /// Makes beta's sign-in log refuse every request with `status` (400 or 403), or serve again (nil).
    public func refuseBeta(with status: Int?) {
        betaRefusal = status
    }

    /// Makes beta refuse (or accept again) the filter on `signInEventTypes`.
    public func refuseNonInteractiveFilter(_ refused: Bool) {
        nonInteractiveFilterRefusal = refused
    }

    /// Adds a fault after the scenario's ones.
    public func addFault(_ rule: FaultRule) {
        faults.append(rule)
    }

    /// Moves the tenant's own clock.
    /// - Throws: `SimulatorControlError` when the clock belongs to the caller (`init(scenario:now:)`).
    public func advanceClock(by seconds: TimeInterval) throws {
        guard let clock else { throw SimulatorControlError(message: "the clock is driven by the host; advance it there") }
        clock.advance(by: seconds)
    }

    /// Person 1's current properties as `GET /me?$select=…` would show them.
    public var userProperties: [String: JSONValue] {
        people[0].properties
    }

    /// Forgets the request log and recorded PATCH bodies.
    public func clearRequestLog() {
        requests.removeAll()
        patchBodies.removeAll()
    }

    func recordPatch(_ body: Data) {
        patchBodies.append(body)
    }

    var serverPort: UInt16? { boundPort }
}

/// Why a control operation was refused.
public struct SimulatorControlError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
