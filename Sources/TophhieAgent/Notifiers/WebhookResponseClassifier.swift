import Foundation
import TophhieSystem

/// Turns an HTTP status and `Retry-After` into delivered / transient / permanent.
///
/// 2xx is success. 408, 429 and 5xx are transient (the receiver may recover), honouring
/// `Retry-After`. Everything else, 3xx included (redirects are not followed), is permanent; 410
/// says the receiver is gone for good.
public enum WebhookResponseClassifier {
    /// The longest `Retry-After` honoured; longer hints are cut to this.
    public static let maxRetryAfter: Duration = .seconds(3600)

    /// - Returns: nil when delivered, else the error to report.
    public static func classify(status: Int, retryAfter: String?, endpoint: String, now: Date) -> NotifierError? {
        switch status {
        case 200...299:
            return nil
        case 408, 429, 500...599:
            let hint = retryAfter.flatMap { parseRetryAfter($0, now: now) }
            let wait = hint.map { " (receiver asked to wait \(Int($0.components.seconds)) s)" } ?? ""
            return .transient("webhook \(endpoint): HTTP \(status)\(wait)", retryAfter: hint)
        case 410:
            return .permanent("webhook \(endpoint): HTTP 410 Gone: the receiver says this endpoint no longer exists; remove or replace it")
        case 300...399:
            return .permanent("webhook \(endpoint): HTTP \(status) redirect not followed; configure the final URL")
        default:
            return .permanent("webhook \(endpoint): HTTP \(status)")
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
