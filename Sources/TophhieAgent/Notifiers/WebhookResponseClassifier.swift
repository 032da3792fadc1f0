import Foundation
import TophhieSystem

/// Turns an HTTP status and `Retry-After` into delivered / transient / permanent.
///
/// As Standard Webhooks asks: 2xx is success; 410 Gone disables the endpoint; every other
/// failure is retried on the backoff schedule until the alert is older than the dead-letter age,
/// honouring `Retry-After`. So a receiver answering 401, 404 or 503 for a minute while it is
/// redeployed or its secret rotated loses nothing. The exceptions are refusals of this body
/// itself (400, 413, 415, 422): the same bytes fail the same way, and retrying one would hold up
/// every alert behind it for days, so that alert is dead-lettered and reported.
public enum WebhookResponseClassifier {
    /// The longest `Retry-After` honoured; longer hints are cut to this.
    public static let maxRetryAfter: Duration = .seconds(3600)

    /// - Returns: nil when delivered, else the error to report.
    public static func classify(status: Int, retryAfter: String?, endpoint: String, now: Date) -> NotifierError? {
        switch status {
        case 200...299:
            return nil
        case 410:
            return .gone("webhook \(endpoint): HTTP 410 Gone: the receiver says this endpoint no longer exists; alerts stay queued until 'tophhie-watch outbox enable' after it is fixed")
        case 400, 413, 415, 422:
            return .permanent("webhook \(endpoint): HTTP \(status): the receiver refused this alert's body")
        default:
            let hint = retryAfter.flatMap { parseRetryAfter($0, now: now) }
            let wait = hint.map { " (receiver asked to wait \(Int($0.components.seconds)) s)" } ?? ""
            let why = (300...399).contains(status) ? " redirect not followed; configure the final URL" : ""
            return .transient("webhook \(endpoint): HTTP \(status)\(why)\(wait)", retryAfter: hint)
        }
    }

    /// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3), read by the one
    /// `RetryAfter` parser and capped at one hour.
    /// - Returns: nil when unreadable; zero for a date in the past.
    public static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        guard let seconds = RetryAfter.seconds(value, now: now) else { return nil }
        return min(.milliseconds(Int64(min(seconds, 86_400) * 1000)), maxRetryAfter)
    }
}
