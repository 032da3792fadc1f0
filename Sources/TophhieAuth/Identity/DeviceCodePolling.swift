import Foundation

/// The device-code polling loop's decisions, apart from its I/O (RFC 8628 §3.5).
///
/// The shell sends a token request, reads the answer, and asks this what to do next.
struct DeviceCodePolling: Sendable, Equatable {
    /// Seconds between polls; grows by 5 on each `slow_down`, doubles (up to 60) after a failure.
    private(set) var interval: Double
    let expiresAt: Date

    init(interval: Double?, expiresIn: Double, issuedAt: Date) {
        self.interval = max(1, interval ?? 5)
        self.expiresAt = issuedAt.addingTimeInterval(expiresIn)
    }

    enum Answer: Equatable {
        case pending
        case slowDown
        case declined
        case expired
        case badVerificationCode
        /// A network failure or a 5xx: poll again after a backed-off interval.
        case transient
        case granted
    }

    enum Action: Equatable {
        case wait(Double)
        case finish
        case fail(SignInFailure)
    }

    /// The wait before the first poll.
    var firstAction: Action { .wait(interval) }

    mutating func next(after answer: Answer, now: Date) -> Action {
        switch answer {
        case .granted: return .finish
        case .declined: return .fail(.declined)
        case .expired: return .fail(.expired)
        case .badVerificationCode: return .fail(.badVerificationCode)
        case .slowDown:
            interval += 5
        case .transient:
            // §3.5: after a connection failure or a 5xx, back off exponentially rather than
            // hammer an endpoint that is struggling; capped so the person is not kept waiting.
            interval = max(interval, min(interval * 2, DeviceCodePolling.maxBackoff))
        case .pending:
            break
        }
        return now.addingTimeInterval(interval) >= expiresAt ? .fail(.expired) : .wait(interval)
    }

    /// The longest wait exponential backoff reaches on its own (a `slow_down` can add more).
    static let maxBackoff: Double = 60

    /// Maps the token endpoint's `error` to an answer; nil for errors this flow does not know.
    static func answer(forError error: String) -> Answer? {
        switch error {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "authorization_declined", "access_denied": return .declined
        case "expired_token", "code_expired": return .expired
        case "bad_verification_code": return .badVerificationCode
        case "temporarily_unavailable": return .transient
        default: return nil
        }
    }
}
