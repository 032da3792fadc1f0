import Foundation
import TophhieJSON
import TophhieRules

/// Builds the alerts the agent sends about itself; they travel through the same notifiers.
public enum SystemNotice {
    /// The group field naming the standing problem a notice tells of or ends.
    public static let problemField = "problem"

    /// The rule a notice of `kind` is reported under.
    static func rule(_ kind: NoticeKind, title: String, level: AlertLevel) -> AlertRule {
        AlertRule(id: "tophhie.notice.\(kind.rawValue)", title: title, level: level, tags: ["tophhie.notice"], author: "Tophhie Watch")
    }

    /// A notice as an alert.
    ///
    /// Its id is derived from the kind and `anchor`, a time already committed in the state (the
    /// last successful poll, or the start of a remembered problem), never from `now`: a crash
    /// that repeats the poll then repeats the id, and the outbox drops the copy.
    public static func alert(_ kind: NoticeKind, problem: AgentProblem?, gap: CoverageGap? = nil, anchor: Date?, now: Date, resolves: String? = nil) -> Alert {
        let since = gap?.from ?? problem?.since ?? now
        let (title, level, summary) = text(kind, problem: problem, gap: gap, now: now)
        let key = "notice|\(kind.rawValue)|\(anchor.map(GraphTimestamp.graphText) ?? "never")"
        // A problem's notice and its recovery name the problem, so a receiver that tracks state
        // (Alertmanager's labels) can match the two.
        let group = problem.map { [AlertGroupValue(field: problemField, value: $0.kind.rawValue)] } ?? []
        return Alert(
            id: "notice-" + StableHash.fnv1a128(key),
            kind: .notice,
            rule: rule(kind, title: title, level: level),
            level: level,
            summary: summary,
            group: group,
            events: [],
            firstEventTime: since,
            lastEventTime: gap?.to ?? now,
            detectedAt: now,
            late: false,
            resolves: resolves)
    }

    /// A notice about something found on disk or in a reply rather than a standing problem: its
    /// id comes from `fingerprint` (the damaged bytes, the repair notes, the ids skipped), so the
    /// daemon that meets the same damage every cycle sends one notice, and new damage a new one.
    public static func alert(_ kind: NoticeKind, fingerprint: String, detail: String, since: Date, now: Date) -> Alert {
        let (title, level, summary) = text(kind, problem: nil, gap: nil, detail: detail, now: now)
        return Alert(
            id: "notice-" + StableHash.fnv1a128("notice|\(kind.rawValue)|\(fingerprint)"),
            kind: .notice,
            rule: rule(kind, title: title, level: level),
            level: level,
            summary: summary,
            group: [],
            events: [],
            firstEventTime: since,
            lastEventTime: now,
            detectedAt: now,
            late: false)
    }

    static func text(_ kind: NoticeKind, problem: AgentProblem?, gap: CoverageGap?, detail given: String? = nil, now: Date) -> (String, AlertLevel, String) {
        let detail = given ?? problem?.detail ?? ""
        switch kind {
        case .signInNeeded:
            return ("Sign-in needed: monitoring has stopped", .high, "Monitoring has stopped until 'tophhie-watch login' is run again: \(detail)")
        case .accessDenied:
            return ("Graph refused access: monitoring has stopped", .high, "Monitoring has stopped: \(detail)")
        case .unavailable:
            let minutes = Int(now.timeIntervalSince(problem?.since ?? now) / 60)
            return ("Sign-in log unreachable", .medium, "The sign-in log has been unreachable for \(minutes) minutes; polling continues: \(detail)")
        case .coverageGap:
            let from = gap.map { GraphTimestamp.alertText($0.from) } ?? "?"
            let to = gap.map { GraphTimestamp.alertText($0.to) } ?? "?"
            return ("Coverage gap: sign-ins lost to retention", .high, "The agent did not poll for longer than the tenant's retention; sign-ins from \(from) to \(to) can no longer be read and were not checked")
        case .stateDamaged:
            return ("Agent state unusable: monitoring has stopped", .high, "Monitoring has stopped until the agent state is moved aside or restored: \(detail)")
        case .outboxRepaired:
            return ("Outbox repaired: alerts may be missing", .medium, "Opening the outbox needed repairs; an alert in a skipped or cut line may not have been delivered: \(detail)")
        case .unreadableSignIns:
            return ("Sign-ins that could not be read", .medium, "Graph returned sign-in events that could not be read; they were not checked by any rule: \(detail)")
        case .endpointDisabled:
            return ("A notifier was disabled by its receiver", .high, "The receiver answered 410 Gone: it asks not to be sent anything more, so this notifier is disabled until it is re-enabled: \(detail)")
        case .lateArrivals:
            return ("Sign-ins published late", .medium, "Graph published sign-ins long after they happened: \(detail)")
        case .streamsNarrowed:
            return ("Non-interactive sign-ins no longer watched", .high, "Graph refused the beta sign-in log (\(detail)), so only interactive sign-ins are read, from v1.0. Not watched until beta answers again: non-interactive sign-ins (a stolen refresh token or session cookie, a device-code phishing victim's token) and the beta fields rules read (originalTransferMethod, authenticationDetails, authenticationRequirement). Beta is asked again once a day; 'tophhie-watch doctor' says why; set graph.api: v1.0 to stop asking")
        case .channelFailing:
            return ("A notifier is failing: its alerts are not arriving", .high, "Alerts for a notifier have not been delivered for over an hour; they stay queued and are retried each poll: \(detail). 'tophhie-watch outbox list' shows them")
        case .channelRecovered:
            return ("A failing notifier delivers again", .informational, "The notifier delivers again; what was queued has been sent: \(detail)")
        case .stateUnwritable:
            return ("Agent state cannot be written: monitoring has stopped", .high, "Monitoring has stopped: \(detail). Free space, make the directory writable (or mount it read-write) and the next poll goes on; 'tophhie-watch status' shows the state")
        case .stateWritable:
            return ("Agent state can be written again", .informational, "The state directory can be written again: \(detail)")
        case .rulesReloadFailed:
            return ("Rules reload refused", .high, "The reload (SIGHUP) was refused: \(detail)")
        case .rulesReloaded:
            return ("Rules reloaded", .informational, "The reload (SIGHUP) succeeded: \(detail)")
        case .streamFailing:
            return ("A sign-in stream is not being read", .high, "The \(detail)")
        case .streamRecovered:
            return ("A sign-in stream is read again", .informational, "The \(detail)")
        case .deadLettered:
            return ("Alerts given up on", .high, "A notifier's receiver refused alerts for good, or they waited past the dead-letter age: \(detail)")
        case .clockSkew:
            return ("The host clock is wrong", .high, "\(detail.prefix(1).uppercased() + detail.dropFirst()): webhook receivers that check Standard Webhooks signatures refuse deliveries more than 5 minutes off. Meanwhile each poll counts as made at Graph's time (windows, alert times, the next read), so no sign-in is skipped; set the clock right (NTP, timedatectl)")
        case .sessionsRevoked:
            return ("Every session of the account was revoked", .high, "Every refresh token and browser session of the account was revoked (POST /me/revokeSignInSessions), this agent's own with them: \(detail). Monitoring stops until 'tophhie-watch login' is run again; next, change the password and review the account's security info")
        case .rulesWarnings:
            return ("Rules loaded with warnings", .medium, "Some rules may never fire as written; 'tophhie-watch rules check --strict' lists them: \(detail)")
        case .streamsRestored:
            return ("Non-interactive sign-ins watched again", .informational, "Graph answers the beta sign-in log again: interactive and non-interactive sign-ins are read (it had refused with \(detail))")
        case .recovered:
            let minutes = Int(now.timeIntervalSince(problem?.since ?? now) / 60)
            return ("Monitoring resumed", .informational, "Monitoring resumed after \(minutes) minutes (\(problem?.kind.rawValue ?? "problem"): \(detail))")
        }
    }
}
