import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request, retrying throttled, unavailable and failed attempts by the policy, and
/// returns the last reply (which may still be an error status for the caller to map).
struct RetryingRequester: Sendable {
    let transport: any HTTPTransport
    let clock: any TophhieClock
    var policy: RetryPolicy
    let deadline: Double
    let userAgent: String
    /// Jitter source; the default is random, tests pass a constant.
    let jitter: @Sendable () -> Double
    /// The whole call, retries and waits included, gives up rather than start a wait that would
    /// end past this many seconds.
    var callBudget: Double = 300

    /// - Parameters:
    ///   - build: makes each attempt's request, just before it is sent.
    ///   - observe: sees each attempt's reply, the throttled ones included (a shared Graph
    ///     budget learns of every 429 this way).
    /// - Throws: `TophhieAuthError.network` when every attempt failed to get a reply;
    ///   `CancellationError` when the task is cancelled while waiting.
    func send(_ build: @Sendable () async throws -> URLRequest, observe: (@Sendable (HTTPReply) async -> Void)? = nil) async throws -> HTTPReply {
        var attempt = 0
        let started = clock.now()
        while true {
            attempt += 1
            try Task.checkCancellation()
            let request = try await build()
            let outcome: RetryPolicy.Outcome
            var failure: TophhieAuthError?
            var lastReply: HTTPReply?
            do {
                let reply = try await sendOnce(request, deadline: deadline)
                await observe?(reply)
                if !RetryPolicy.isTransient(reply.status) { return reply }
                lastReply = reply
                outcome = .status(reply.status, retryAfter: RetryAfter.seconds(reply.header("retry-after"), now: clock.now()))
            } catch let error as HTTPTransportError {
                if error.kind == .cancelled { try Task.checkCancellation() }
                failure = .network(error.message)
                outcome = .networkFailure
            }
            var decision = policy.decide(attempt: attempt, outcome: outcome, jitter: jitter())
            if case .retry(let wait) = decision, clock.now().addingTimeInterval(wait).timeIntervalSince(started) > callBudget {
                decision = .stop
            }
            switch decision {
            case .retry(let wait):
                try await clock.sleep(seconds: wait)
            case .stop:
                if let lastReply { return lastReply }
                if case .network(let message)? = failure {
                    throw TophhieAuthError.network("\(message) (after \(attempt) attempt\(attempt == 1 ? "" : "s"))")
                }
                throw failure ?? TophhieAuthError.network("request failed")
            }
        }
    }

    /// One attempt with the agent's `User-Agent`, no retries: the transport's reply or error as it is.
    /// - Throws: `HTTPTransportError`; `CancellationError` when the task is cancelled.
    func sendOnce(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        var request = request
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        return try await transport.send(request, deadline: deadline)
    }
}
