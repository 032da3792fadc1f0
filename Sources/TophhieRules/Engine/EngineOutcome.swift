import Foundation
import TophhieJSON

/// What one engine call produced: the next state, the alerts, and what arrived too late.
public struct EngineOutcome: Sendable {
    public var state: EngineState
    public var alerts: [Alert]
    /// Never-seen sign-ins older than the windows; nil when there were none.
    public var lateArrivals: LateArrivals?

    package init(state: EngineState, alerts: [Alert], lateArrivals: LateArrivals?) {
        self.state = state
        self.alerts = alerts
        self.lateArrivals = lateArrivals
    }
}

/// Sign-ins Graph published after the lookback had passed them, met by a sweep or a replay.
public struct LateArrivals: Sendable, Equatable {
    /// Evaluated by the rules that need no window (single-event, first-seen, travel); windowed
    /// correlations (bursts, sequences) could not see them.
    public var evaluated: Int
    /// Older than the engine's id memory: not evaluated at all.
    public var unreachable: Int
    public var earliest: Date
    public var latest: Date

    public init(evaluated: Int, unreachable: Int, earliest: Date, latest: Date) {
        self.evaluated = evaluated
        self.unreachable = unreachable
        self.earliest = earliest
        self.latest = latest
    }

    /// One sentence for a notice or a replay's summary.
    public func sentence(lookback: TimeInterval) -> String {
        let total = evaluated + unreachable
        var text = "\(total) sign-in\(total == 1 ? "" : "s") from \(GraphTimestamp.alertText(earliest)) to \(GraphTimestamp.alertText(latest)) "
        text += "\(total == 1 ? "was" : "were") published after the \(Int(lookback / 3600)) h lookback had passed \(total == 1 ? "it" : "them")"
        if evaluated > 0 {
            text += "; \(evaluated) \(evaluated == 1 ? "was" : "were") evaluated late by the single-event, first-seen and travel rules, "
            text += "but burst and sequence rules could not count \(evaluated == 1 ? "it" : "them") (their windows had closed)"
        }
        if unreachable > 0 {
            text += "; \(unreachable) \(unreachable == 1 ? "is" : "are") older than the engine remembers and \(unreachable == 1 ? "was" : "were") not evaluated"
        }
        return text
    }
}
