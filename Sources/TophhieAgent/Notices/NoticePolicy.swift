import Foundation

/// How a poll ended, as far as notices care.
public enum PollOutcome: Sendable, Equatable {
    case succeeded
    /// - Parameter confirmAfter: polls in a row this must repeat before it is told (Graph's
    ///   licence 403 is reported to come and go on some P1 tenants).
    case failed(AgentProblem.Kind, detail: String, confirmAfter: Int = 1)
}

/// What to tell the user about the agent itself.
public enum NoticeKind: String, Sendable, Equatable, Codable {
    case signInNeeded = "sign-in-needed"
    case accessDenied = "access-denied"
    case unavailable
    case coverageGap = "coverage-gap"
    case recovered
    /// `state.json` is damaged or from a newer version.
    case stateDamaged = "state-damaged"
    /// Opening an outbox skipped an unreadable line or cut a torn one.
    case outboxRepaired = "outbox-repaired"
    /// Events Graph returned that could not be read (bad bytes, missing fields).
    case unreadableSignIns = "unreadable-sign-ins"
    /// A webhook receiver answered 410 Gone.
    case endpointDisabled = "endpoint-disabled"
    /// The daily sweep found sign-ins Graph published after the lookback had passed them.
    case lateArrivals = "late-arrivals"
    /// Graph refused beta: only v1.0's interactive sign-ins are read.
    case streamsNarrowed = "streams-narrowed"
    /// Beta answered again after a refusal: both streams are read.
    case streamsRestored = "streams-restored"
    /// The host clock is more than 5 minutes from Graph's.
    case clockSkew = "clock-skew"
    /// A notifier has delivered nothing for an hour.
    case channelFailing = "channel-failing"
    /// A failing notifier delivers again.
    case channelRecovered = "channel-recovered"
    /// The state directory cannot be written (sent straight to the notifiers, not queued).
    case stateUnwritable = "state-unwritable"
    /// The state directory can be written again after a fault was told.
    case stateWritable = "state-writable"
    /// A SIGHUP reload was refused (a rule or config error): the daemon keeps its old rules.
    case rulesReloadFailed = "rules-reload-failed"
    /// A reload succeeded after one was refused.
    case rulesReloaded = "rules-reloaded"
    /// A sign-in stream has been throttled or failing for `graph.stream_failing_after`.
    case streamFailing = "stream-failing"
    /// A stream told failing is read again.
    case streamRecovered = "stream-recovered"
    /// A notifier gave alerts up (dead letters).
    case deadLettered = "dead-lettered"
    /// The rules loaded with warnings (a rule that may never fire); once per change of them.
    case rulesWarnings = "rules-warnings"
    /// Every session of the account was revoked (`respond --revoke-sessions`).
    case sessionsRevoked = "sessions-revoked"

    /// The notice that tells of a standing problem of this kind.
    init(_ problem: AgentProblem.Kind) {
        switch problem {
        case .signInNeeded: self = .signInNeeded
        case .accessDenied: self = .accessDenied
        case .unavailable: self = .unavailable
        }
    }
}

/// Decides which notices a poll outcome deserves, so a lasting problem is told once and its end
/// is told once. Pure.
public struct NoticePolicy: Sendable {
    /// Network or Graph trouble is told only once it has lasted this long (seconds): one failed
    /// poll is normal, an hour of them is news.
    public var unavailableGrace: Double

    public init(unavailableGrace: Double = 3600) {
        self.unavailableGrace = unavailableGrace
    }

    /// - Returns: the problem to remember and the notices to send, each with the problem it is about.
    public func decide(current: AgentProblem?, outcome: PollOutcome, now: Date) -> (AgentProblem?, [(NoticeKind, AgentProblem)]) {
        switch outcome {
        case .succeeded:
            guard let current else { return (nil, []) }
            return (nil, current.notified ? [(.recovered, current)] : [])
        case .failed(let kind, let detail, let confirmAfter):
            var problem: AgentProblem
            if var same = current, same.kind == kind {
                same.polls += 1
                problem = same
            } else {
                problem = AgentProblem(kind: kind, detail: detail, since: now, notified: false)
            }
            problem.detail = detail
            guard !problem.notified, problem.polls >= confirmAfter else { return (problem, []) }
            switch kind {
            case .signInNeeded:
                problem.notified = true
                return (problem, [(.signInNeeded, problem)])
            case .accessDenied:
                problem.notified = true
                return (problem, [(.accessDenied, problem)])
            case .unavailable:
                guard now.timeIntervalSince(problem.since) >= unavailableGrace else { return (problem, []) }
                problem.notified = true
                return (problem, [(.unavailable, problem)])
            }
        }
    }
}
