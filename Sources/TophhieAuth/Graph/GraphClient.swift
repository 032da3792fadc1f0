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

    /// Sends a request and returns the final reply (after throttling retries) for the caller to map.
    /// - Parameter maxRetryAfter: the longest `Retry-After` waited within this call, when it is
    ///   shorter than the policy's; a longer one returns the throttled reply at once.
    func send(_ method: String, _ url: URL, scope: String, body: Data? = nil, extraHeaders: [String: String] = [:], maxRetryAfter: Double? = nil) async throws -> GraphReply {
        try checkOrigin(url)
        var requester = self.requester
        if let maxRetryAfter { requester.policy.maxRetryAfter = min(requester.policy.maxRetryAfter, maxRetryAfter) }
        var forceRefresh = false
        for _ in 0..<2 {
            let token = try await tokens.accessToken(covering: scope, forceRefresh: forceRefresh)
            // One GUID per request with this token: throttling retries repeat it, so Microsoft's
            // trace shows them as one call; the retry after a 401 gets its own.
            let clientRequestID = UUID().uuidString.lowercased()
            let reply = try await requester.send {
                var request = Self.request(method, url, token: token, clientRequestID: clientRequestID)
                for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
                if let body {
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = body
                }
                return request
            }
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
    /// - Throws: what `accessToken(covering: scope)` throws.
    func openConnection(for scope: String) async throws {
        guard requester.transport.waitsBusilyOnNewConnections else { return }
        let token = try await tokens.accessToken(covering: scope)
        let url = URL(string: configuration.graphBaseURL.appendingPathComponent("me").absoluteString + "?$select=id")!
        _ = try? await requester.sendOnce(Self.request("GET", url, token: token, clientRequestID: UUID().uuidString.lowercased()), deadline: min(requester.deadline, 10))
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
