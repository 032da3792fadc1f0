import Foundation
import TophhieJSON
import TophhieRules

/// Builds the alerts the agent sends about itself; they travel through the same notifiers.
public enum SystemNotice {
    /// A notice as an alert. Its id is derived from the kind and the problem's start, so a crash
    /// that repeats the poll repeats the id and the outbox drops the copy.
    public static func alert(_ kind: NoticeKind, problem: AgentProblem?, gap: CoverageGap? = nil, now: Date) -> Alert {
        let since = gap?.from ?? problem?.since ?? now
        let (title, level, summary) = text(kind, problem: problem, gap: gap, now: now)
        let key = "notice|\(kind.rawValue)|\(GraphTimestamp.graphText(since))|\(gap.map { GraphTimestamp.graphText($0.to) } ?? "")"
        return Alert(
            id: "notice-" + StableHash.fnv1a128(key),
            kind: .notice,
            rule: AlertRule(id: "tophhie.notice.\(kind.rawValue)", title: title, level: level, tags: ["tophhie.notice"], author: "Tophhie Watch"),
            level: level,
            summary: summary,
            group: [],
            events: [],
            firstEventTime: since,
            lastEventTime: gap?.to ?? now,
            detectedAt: now,
            late: false)
    }

    static func text(_ kind: NoticeKind, problem: AgentProblem?, gap: CoverageGap?, now: Date) -> (String, AlertLevel, String) {
        let detail = problem?.detail ?? ""
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
        case .recovered:
            let minutes = Int(now.timeIntervalSince(problem?.since ?? now) / 60)
            return ("Monitoring resumed", .informational, "Monitoring resumed after \(minutes) minutes (\(problem?.kind.rawValue ?? "problem"): \(detail))")
        }
    }
}
