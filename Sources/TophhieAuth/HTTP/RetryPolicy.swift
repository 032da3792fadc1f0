import Foundation

/// Decides whether a failed attempt is tried again, and after how long.
///
/// Pure: the jitter comes from a value the caller passes in, so tests choose it.
public struct RetryPolicy: Sendable, Equatable {
    public var maxAttempts: Int
    /// The first backoff; Microsoft asks for at least 5 s after a 5xx.
    public var baseDelay: Double
    public var maxDelay: Double
    /// The longest `Retry-After` honoured within one call; longer waits give up and say so.
    public var maxRetryAfter: Double

    public init(maxAttempts: Int = 4, baseDelay: Double = 5, maxDelay: Double = 60, maxRetryAfter: Double = 120) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// What went wrong with one attempt.
    public enum Outcome: Sendable, Equatable {
        case status(Int, retryAfter: Double?)
        case networkFailure
    }

    /// What to do next.
    public enum Decision: Sendable, Equatable {
        case retry(after: Double)
        case stop
    }

    /// Whether a status is worth another attempt: throttling, unavailability and gateway errors.
    public static func isTransient(_ status: Int) -> Bool {
        status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504 || status == 509
    }

    /// - Parameters:
    ///   - attempt: the 1-based attempt that just failed.
    ///   - jitter: a value in `0..<1` spreading retries of many clients apart.
    public func decide(attempt: Int, outcome: Outcome, jitter: Double) -> Decision {
        guard attempt < maxAttempts else { return .stop }
        switch outcome {
        case .status(let status, let retryAfter):
            guard Self.isTransient(status) else { return .stop }
            if let retryAfter, status == 429 || status == 503 {
                return retryAfter <= maxRetryAfter ? .retry(after: retryAfter) : .stop
            }
            return .retry(after: backoff(attempt: attempt, jitter: jitter))
        case .networkFailure:
            return .retry(after: backoff(attempt: attempt, jitter: jitter))
        }
    }

    /// Exponential backoff with "equal jitter": half fixed, half random, capped.
    func backoff(attempt: Int, jitter: Double) -> Double {
        Backoff(initial: baseDelay, multiplier: 2, maximum: maxDelay, spread: 0.5...1).delay(afterAttempt: attempt, random: jitter)
    }
}
