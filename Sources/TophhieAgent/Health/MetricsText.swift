import Foundation

/// The agent's health in Prometheus' text exposition format (version 0.0.4), for node_exporter's
/// textfile collector: gauges only, so a fresh process never restarts a counter.
public enum MetricsText {
    /// The text for `health` after a poll at `now` that ended as `succeeded` with `alerts`.
    public static func render(_ health: AgentHealth, lastPoll: Date, succeeded: Bool, alerts: Int, signIns: Int) -> String {
        var lines: [String] = []
        func gauge(_ name: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
            lines.append("# HELP tophhie_watch_\(name) \(help)")
            lines.append("# TYPE tophhie_watch_\(name) gauge")
            for sample in samples { lines.append("tophhie_watch_\(name)\(sample.labels) \(number(sample.value))") }
        }
        gauge("last_poll_timestamp_seconds", "When the last poll ended, successful or not.", [("", lastPoll.timeIntervalSince1970)])
        gauge("last_poll_success", "1 when the last poll read the sign-in log, else 0.", [("", succeeded ? 1 : 0)])
        if let good = health.lastSuccessfulPoll {
            gauge("last_successful_poll_timestamp_seconds", "When the sign-in log was last read successfully.", [("", good.timeIntervalSince1970)])
        }
        gauge("last_poll_sign_ins", "Sign-ins the last poll read.", [("", Double(signIns))])
        gauge("last_poll_alerts", "Alerts the last poll raised.", [("", Double(alerts))])
        gauge("state_usable", "1 when state.json could be read.", [("", health.stateError == nil ? 1 : 0)])
        let kinds = ["signInNeeded", "accessDenied", "unavailable"]
        gauge("problem", "1 for the standing problem that stops or hampers monitoring.", kinds.map { kind in
            ("{kind=\"\(escape(kind))\"}", health.problem?.kind == kind ? 1 : 0)
        })
        gauge("outbox_pending", "Alerts queued for a notifier and not yet delivered.", health.notifiers.map { ("{notifier=\"\(escape($0.name))\"}", Double($0.pending)) })
        gauge("outbox_dead_letters", "Alerts a notifier gave up on (see 'tophhie-watch outbox list').", health.notifiers.map { ("{notifier=\"\(escape($0.name))\"}", Double($0.deadLettered)) })
        gauge("notifier_disabled", "1 when the receiver disabled the notifier (HTTP 410).", health.notifiers.map { ("{notifier=\"\(escape($0.name))\"}", $0.disabled == nil ? 0 : 1) })
        let ages = health.notifiers.compactMap { channel in channel.oldestPending.map { ("{notifier=\"\(escape(channel.name))\"}", lastPoll.timeIntervalSince($0)) } }
        if !ages.isEmpty {
            gauge("outbox_oldest_pending_age_seconds", "How long the oldest queued alert has waited.", ages)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value as the format wants it: backslash, quote and newline escaped.
    static func escape(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.3f", value)
    }
}
