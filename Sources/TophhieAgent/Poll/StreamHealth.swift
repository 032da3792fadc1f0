import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// One sign-in stream that is throttled or failing while the poll reads the other.
public struct StreamHealth: Codable, Sendable, Equatable {
    /// The first poll that could not read it, in this spell.
    public var failingSince: Date
    /// Graph's `Retry-After`: the stream is not asked again before this time, in any poll.
    public var retryAfter: Date?
    /// Where its next full read starts: where it stopped, so nothing between is missed.
    public var readFrom: Date
    /// Why it could not be read, last time it was asked.
    public var lastError: String
    /// Whether the `stream-failing` notice went out for this spell.
    public var told: Bool = false

    public init(failingSince: Date, retryAfter: Date?, readFrom: Date, lastError: String, told: Bool = false) {
        self.failingSince = failingSince
        self.retryAfter = retryAfter
        self.readFrom = readFrom
        self.lastError = lastError
        self.told = told
    }
}

/// Decides, after each poll's fetch, what each stream's trouble means: what the state keeps, and
/// which notices go out. Pure.
///
/// A stream that cannot be read (a `Retry-After` longer than a poll waits, 5xx, the network) is
/// skipped until its time while the other streams' alerts go out. When the spell has lasted
/// `failingAfter`, one `stream-failing` notice names the stream, since when and what is not
/// watched; one `stream-recovered` notice follows when it is read again.
enum StreamHealthPolicy {
    /// What a stream watches, for the notice that says it is not watched.
    static func watches(_ stream: SignInStream) -> String {
        switch stream {
        case .interactive:
            return "the sign-ins you make (passwords, MFA prompts, new countries and devices, bursts of failures)"
        case .nonInteractive:
            return "the sign-ins your apps make with a token they hold (a stolen refresh token or session cookie, a device-code phishing victim's token)"
        }
    }

    /// Updates each stream's health after a poll read what it could.
    /// - Parameters:
    ///   - plan: the poll's plan (its reads give where a newly failing stream's next read starts).
    ///   - failures: the streams whose read failed this time.
    ///   - now: the host's time (notices and `Retry-After` are the host's).
    /// - Returns: the notices to send.
    ///   - tell: whether notices go out (false when no stream was read: the poll fails, and the
    ///     standing problem's notice speaks for it); the state is kept either way.
    static func update(_ state: inout AgentState, plan: PollPlan, failures: [SignInStreamFailure], now: Date, failingAfter: TimeInterval, tell: Bool = true) -> [Alert] {
        var notices: [Alert] = []
        for stream in plan.api.streams {
            let failure = failures.first { $0.stream == stream }
            let waiting = plan.waiting.contains(stream)
            guard failure != nil || waiting else {
                if let ended = state.streamHealth.removeValue(forKey: stream), ended.told {
                    let detail = "\(stream.words) sign-in stream is read again after failing since \(GraphTimestamp.alertText(ended.failingSince)); what it missed meanwhile has been read and checked"
                    notices.append(SystemNotice.alert(.streamRecovered, fingerprint: "\(stream.rawValue)|\(GraphTimestamp.graphText(ended.failingSince))|recovered", detail: detail, since: ended.failingSince, now: now))
                }
                continue
            }
            let readFrom = plan.reads.first { $0.stream == stream }?.notBefore ?? plan.lowerBound
            var health = state.streamHealth[stream] ?? StreamHealth(failingSince: now, retryAfter: nil, readFrom: readFrom, lastError: "")
            if let failure {
                health.retryAfter = failure.retryAfter
                health.lastError = failure.error.localizedDescription
            }
            if tell, !health.told, now.timeIntervalSince(health.failingSince) >= failingAfter {
                health.told = true
                notices.append(failingNotice(stream, health: health, now: now))
            }
            state.streamHealth[stream] = health
        }
        // A stream the configured version no longer reads (a fallback to v1.0) is not failing.
        for stream in state.streamHealth.keys where !plan.api.streams.contains(stream) { state.streamHealth[stream] = nil }
        return notices
    }

    static func failingNotice(_ stream: SignInStream, health: StreamHealth, now: Date) -> Alert {
        let wait = health.retryAfter.map { "; Graph asked to wait until \(GraphTimestamp.alertText($0))" } ?? ""
        let detail = "\(stream.words) sign-in stream has not been read since \(GraphTimestamp.alertText(health.failingSince)) (\(health.lastError)\(wait)). Not watched meanwhile: \(watches(stream)). The other stream is still read and alerted on; this one is asked again each poll and read from where it stopped"
        return SystemNotice.alert(.streamFailing, fingerprint: "\(stream.rawValue)|\(GraphTimestamp.graphText(health.failingSince))", detail: detail, since: health.failingSince, now: now)
    }

    /// Why a poll read nothing at all: every stream failed or is waiting out a `Retry-After`.
    static func nothingRead(_ state: AgentState, plan: PollPlan, failures: [SignInStreamFailure]) -> String {
        var parts: [String] = failures.map { "\($0.stream.words): \($0.error.localizedDescription)" }
        for stream in plan.waiting {
            let until = state.streamHealth[stream]?.retryAfter.map(GraphTimestamp.alertText) ?? "later"
            parts.append("\(stream.words): Graph asked to wait until \(until) (Retry-After)")
        }
        return "no sign-in stream could be read: " + parts.joined(separator: "; ")
    }
}

/// Every stream of a poll failed or waits: the poll read nothing.
struct StreamsUnreadable: Error {
    var detail: String
}
