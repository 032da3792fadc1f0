import Foundation
import TophhieJSON

extension RuleSet {
    /// While the place rules (first-seen rules with `learning.alert: lower`) still learn the
    /// person's places: "place rules learning until at least 2026-12-11T08:00:00Z (2 of 5 days,
    /// 3 of 10 of your own successes so far)"; nil once every one has learned. Read from the
    /// state either evaluator gives back, so the poll line and `status` say the same.
    /// - Parameter now: the poll's time: days of history are counted to it.
    public func placeLearning(in state: EngineState, now: Date) -> String? {
        placeLearningPeriod(in: state, now: now)?.text
    }

    /// While the place rules still learn: since when (the least advanced rule's start), until
    /// when at least, and the sentence `placeLearning(in:now:)` gives; nil once every one has learned.
    public func placeLearningPeriod(in state: EngineState, now: Date) -> (since: Date, until: Date, text: String)? {
        var latest: (until: Date, days: Int, period: Int, events: Int, needed: Int, start: Date)?
        for rule in correlations {
            guard case .firstSeen(let spec) = rule.kind, spec.alertWhileLearning else { continue }
            // One person, one group; the least advanced group is the one still learning longest.
            let baselines = state.baselines[rule.metadata.id].map { Array($0.values) } ?? []
            let start = baselines.map(\.learningStart).min() ?? now
            let events = baselines.map(\.events).min() ?? 0
            let until = start.addingTimeInterval(spec.learningPeriod.interval)
            guard until > now || events < spec.learningEvents else { continue }
            let entry = (until: max(until, now), days: Int(now.timeIntervalSince(start) / 86_400),
                         period: Int((spec.learningPeriod.interval / 86_400).rounded(.up)), events: events, needed: spec.learningEvents, start: start)
            if latest.map({ (entry.until, -entry.events) > ($0.until, -$0.events) }) ?? true { latest = entry }
        }
        guard let latest else { return nil }
        return (latest.start, latest.until, "place rules learning until at least \(GraphTimestamp.filterText(latest.until)) (\(min(latest.days, latest.period)) of \(latest.period) days, "
            + "\(min(latest.events, latest.needed)) of \(latest.needed) of your own successes so far)")
    }
}
