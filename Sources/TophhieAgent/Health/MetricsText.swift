import Foundation

/// The agent's health in Prometheus' text exposition format (version 0.0.4), for node_exporter's
/// textfile collector: gauges only, so a fresh process never restarts a counter.
public enum MetricsText {
    /// One account's health after a poll, for `render(_:)`.
    public struct Entry: Sendable {
        /// The account's name with `accounts:` (an `account` label on every sample), else nil.
        public var account: String?
        public var health: AgentHealth
        public var lastPoll: Date
        public var succeeded: Bool
        public var alerts: Int
        public var signIns: Int

        public init(account: String? = nil, health: AgentHealth, lastPoll: Date, succeeded: Bool, alerts: Int, signIns: Int) {
            self.account = account
            self.health = health
            self.lastPoll = lastPoll
            self.succeeded = succeeded
            self.alerts = alerts
            self.signIns = signIns
        }
    }

    /// The text for every account's health, each gauge's samples together under one HELP line.
    public static func render(_ entries: [Entry]) -> String {
        var lines: [String] = []
        func gauge(_ name: String, _ help: String, optional: Bool = false, _ samples: (Entry) -> [(labels: [String], value: Double)]) {
            let all = entries.flatMap { entry in
                samples(entry).map { sample in (labels: (entry.account.map { ["account=\"\(escape($0))\""] } ?? []) + sample.labels, value: sample.value) }
            }
            // A gauge that may have no sample (no poll succeeded yet, nothing pending) is left out then.
            guard !(optional && all.isEmpty) else { return }
            lines.append("# HELP tophhie_watch_\(name) \(help)")
            lines.append("# TYPE tophhie_watch_\(name) gauge")
            for sample in all {
                let labels = sample.labels.isEmpty ? "" : "{\(sample.labels.joined(separator: ","))}"
                lines.append("tophhie_watch_\(name)\(labels) \(number(sample.value))")
            }
        }
        gauge("last_poll_timestamp_seconds", "When the last poll ended, successful or not.") { [([], $0.lastPoll.timeIntervalSince1970)] }
        gauge("last_poll_success", "1 when the last poll read the sign-in log, else 0.") { [([], $0.succeeded ? 1 : 0)] }
        gauge("last_successful_poll_timestamp_seconds", "When the sign-in log was last read successfully.", optional: true) { entry in
            entry.health.lastSuccessfulPoll.map { [([], $0.timeIntervalSince1970)] } ?? []
        }
        gauge("last_poll_sign_ins", "Sign-ins the last poll read.") { [([], Double($0.signIns))] }
        gauge("last_poll_alerts", "Alerts the last poll raised.") { [([], Double($0.alerts))] }
        gauge("state_usable", "1 when state.json could be read.") { [([], $0.health.stateError == nil ? 1 : 0)] }
        let kinds = ["signInNeeded", "accessDenied", "unavailable"]
        gauge("problem", "1 for the standing problem that stops or hampers monitoring.") { entry in
            kinds.map { kind in (["kind=\"\(escape(kind))\""], entry.health.problem?.kind == kind ? 1 : 0) }
        }
        func notifier(_ name: String) -> [String] { ["notifier=\"\(escape(name))\""] }
        gauge("outbox_pending", "Alerts queued for a notifier and not yet delivered.") { $0.health.notifiers.map { (notifier($0.name), Double($0.pending)) } }
        gauge("outbox_dead_letters", "Alerts a notifier gave up on (see 'tophhie-watch outbox list').") { $0.health.notifiers.map { (notifier($0.name), Double($0.deadLettered)) } }
        gauge("notifier_disabled", "1 when the receiver disabled the notifier (HTTP 410).") { $0.health.notifiers.map { (notifier($0.name), $0.disabled == nil ? 0 : 1) } }
        gauge("outbox_oldest_pending_age_seconds", "How long the oldest queued alert has waited.", optional: true) { entry in
            entry.health.notifiers.compactMap { channel in channel.oldestPending.map { (notifier(channel.name), entry.lastPoll.timeIntervalSince($0)) } }
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
