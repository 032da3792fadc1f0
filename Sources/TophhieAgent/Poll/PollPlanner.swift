import Foundation

/// Which part of the sign-in log one poll reads, and whether it only learns.
public struct PollPlan: Sendable, Equatable {
    /// The filter's lower bound: `max(last poll − lookback, now − retention)`, or `now − retention`
    /// for the first run and the daily sweep.
    public var lowerBound: Date
    /// The first run: baselines are learned from the whole retained history.
    public var learning: Bool
    /// On the first run, only events after this alert (the rest only teach the baselines).
    public var alertOnlyAfter: Date?
    /// Events that can no longer be read because the agent was down longer than retention.
    public var gap: CoverageGap?
    /// This poll reads the whole retained log, to find sign-ins published after the lookback.
    public var sweep: Bool = false
}

/// A stretch of time whose sign-ins were lost to retention while the agent was not polling.
public struct CoverageGap: Sendable, Equatable, Codable {
    public var from: Date
    public var to: Date
}

/// Decides each poll's window from the state and the time. Pure.
public struct PollPlanner: Sendable {
    public var retention: Double
    public var lookback: Double
    /// How often a poll reads the whole retained log instead of the lookback: Graph publishes
    /// some sign-ins hours or days late, after the lookback has passed them.
    public var sweepEvery: Double

    public init(retentionDays: Int, lookback: Double, sweepEvery: Double = 86_400) {
        self.retention = Double(retentionDays) * 86_400
        self.lookback = lookback
        self.sweepEvery = sweepEvery
    }

    public func plan(_ state: AgentState, now: Date) -> PollPlan {
        let floor = now.addingTimeInterval(-retention)
        guard state.learned, let last = state.lastSuccessfulPoll else {
            return PollPlan(lowerBound: floor, learning: true, alertOnlyAfter: now.addingTimeInterval(-lookback), gap: nil)
        }
        let wanted = last.addingTimeInterval(-lookback)
        var gap: CoverageGap?
        // Everything up to the last poll was read then; what fell out of retention since is lost.
        if last < floor, state.reportedGapEnd.map({ $0 < floor }) ?? true {
            gap = CoverageGap(from: max(last, state.reportedGapEnd ?? last), to: floor)
        }
        if state.lastSweep.map({ now.timeIntervalSince($0) >= sweepEvery }) ?? true {
            return PollPlan(lowerBound: floor, learning: false, alertOnlyAfter: nil, gap: gap, sweep: true)
        }
        return PollPlan(lowerBound: max(wanted, floor), learning: false, alertOnlyAfter: nil, gap: gap)
    }
}
