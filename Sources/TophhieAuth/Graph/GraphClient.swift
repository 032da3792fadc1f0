import Foundation
import TophhieJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Authorised Graph calls: a bearer token for the needed scope, one refresh-and-retry on 401, and
/// a `client-request-id` on every request so a failure can be traced with Microsoft support.
struct GraphClient: Sendable {
    let configuration: TophhieConfiguration
    let requester: RetryingRequester
    let tokens: TokenProvider
    /// The budget shared with other accounts' clients, when the agent watches several.
    var budget: GraphBudget? = nil

    /// This client's app and tenant, as the budget counts them.
    var budgetKey: GraphBudgetKey { GraphBudgetKey(clientID: configuration.clientID, tenant: configuration.tenant) }

    /// Sends a request and returns the final reply (after throttling retries) for the caller to map.
    /// - Parameters:
    ///   - maxRetryAfter: the longest `Retry-After` waited within this call, when it is
    ///     shorter than the policy's; a longer one returns the throttled reply at once.
    ///   - budgeted: a request Graph's reporting budget counts (sign-in pages, `GET /me`): with
    ///     a shared `budget`, each attempt waits for room in it, and a 429 is reported to it. A
    ///     429's hold longer than `maxRetryAfter` is not waited out: `GraphBudgetHeld` is thrown.
    func send(_ method: String, _ url: URL, scope: String, body: Data? = nil, extraHeaders: [String: String] = [:], maxRetryAfter: Double? = nil, budgeted: Bool = false) async throws -> GraphReply {
        try checkOrigin(url)
        var requester = self.requester
        if let maxRetryAfter { requester.policy.maxRetryAfter = min(requester.policy.maxRetryAfter, maxRetryAfter) }
        var forceRefresh = false
        for _ in 0..<2 {
            let token = try await tokens.accessToken(covering: scope, forceRefresh: forceRefresh)
            // One GUID per request with this token: throttling retries repeat it, so Microsoft's
            // trace shows them as one call; the retry after a 401 gets its own.
            let clientRequestID = UUID().uuidString.lowercased()
            let budget = budgeted ? self.budget : nil
            let key = budgetKey
            let clock = requester.clock
            var observe: (@Sendable (HTTPReply) async -> Void)?
            // When the attempt under way was counted: its answer moves it (`answered`).
            let counted = CountedAt()
            if let budget {
                observe = { reply in
                    if let sentAt = counted.take() { await budget.answered(key, sentAt: sentAt) }
                    await Self.report(reply, to: budget, key: key, now: clock.now())
                }
            }
            let reply = try await requester.send({
                // Every attempt, a throttling retry's too: Graph counts each.
                if let budget { counted.set(try await budget.reserve(key, maxWait: maxRetryAfter).sentAt) }
                var request = Self.request(method, url, token: token, clientRequestID: clientRequestID)
                for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
                if let body {
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = body
                }
                return request
            }, observe: observe)
            if reply.status == 401 && !forceRefresh {
                forceRefresh = true
                continue
            }
            return GraphReply(http: reply, ids: GraphRequestIDs.from(reply, sent: clientRequestID))
        }
        preconditionFailure("the loop returns on its second pass")
    }

    /// Opens the connection to Graph with `GET /me?$select=id` (small and quick) before a slow
    /// request, when the transport waits busily on a new connection's first reply: the slow
    /// request then goes over an open connection and its wait costs no CPU.
    ///
    /// One attempt, no retries, its reply and failure ignored: the request that follows meets
    /// any real problem and reports it as it always has. The token is the one that request
    /// needs, so a refresh (and its errors) happen here exactly as they would there.
    /// - Throws: what `accessToken(covering: scope)` throws; `CancellationError` while waiting
    ///   for room in a shared budget.
    func openConnection(for scope: String) async throws {
        guard requester.transport.waitsBusilyOnNewConnections else { return }
        let token = try await tokens.accessToken(covering: scope)
        let url = URL(string: configuration.graphBaseURL.appendingPathComponent("me").absoluteString + "?$select=id")!
        // A `GET /me` like any other: it waits for room in a shared budget, and a 429 counts.
        let sentAt = try await budget?.reserve(budgetKey).sentAt
        let reply = try? await requester.sendOnce(Self.request("GET", url, token: token, clientRequestID: UUID().uuidString.lowercased()), deadline: min(requester.deadline, 10))
        if let budget, let reply {
            if let sentAt { await budget.answered(budgetKey, sentAt: sentAt) }
            await Self.report(reply, to: budget, key: budgetKey, now: requester.clock.now())
        }
    }

    /// Tells the budget of a 429, with its `Retry-After` in seconds.
    static func report(_ reply: HTTPReply, to budget: GraphBudget, key: GraphBudgetKey, now: Date) async {
        guard reply.status == 429 else { return }
        await budget.throttled(key, retryAfter: RetryAfter.seconds(reply.header("retry-after"), now: now))
    }

    /// A request with the headers every Graph call carries.
    private static func request(_ method: String, _ url: URL, token: String, clientRequestID: String) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(clientRequestID, forHTTPHeaderField: "client-request-id")
        return request
    }

    /// Refuses to send the token anywhere but the configured Graph origin (a `nextLink` is
    /// followed verbatim, so it is checked here).
    private func checkOrigin(_ url: URL) throws {
        let base = configuration.graphBaseURL
        guard url.scheme?.lowercased() == base.scheme?.lowercased(), url.host?.lowercased() == base.host?.lowercased(), url.port == base.port else {
            throw TophhieAuthError.malformedResponse("Graph sent a link to another origin (\(HTTPTransportError.origin(url))); not following it with your token")
        }
    }

    /// Decodes a JSON body.
    static func json(_ reply: GraphReply, what: String) throws -> JSONValue {
        do { return try JSONValue.parse(reply.body) } catch {
            throw TophhieAuthError.malformedResponse("\(what) is not JSON (HTTP \(reply.status), \(reply.body.count) bytes)")
        }
    }
}

/// When a budgeted attempt was counted, handed from the request's builder to its observer.
final class CountedAt: @unchecked Sendable {
    private let lock = NSLock()
    private var time: Date?
    func set(_ date: Date) { lock.withLock { time = date } }
    func take() -> Date? { lock.withLock { defer { time = nil }; return time } }
}
