import Foundation
import TophhieAuth

/// Which part of the sign-in log one poll reads, and whether it only learns.
public struct PollPlan: Sendable, Equatable {
    /// Where the full read of each stream starts: `max(last poll − recentOverlap, now − retention)`,
    /// or `now − retention` for the first run.
    public var lowerBound: Date
    /// The first run: baselines are learned from the whole retained history.
    public var learning: Bool
    /// On the first run, only events after this alert: the history the first poll reads is the
    /// baseline and never alerts (a new account's own last day is not news).
    public var alertOnlyAfter: Date?
    /// Events that can no longer be read because the agent was down longer than retention.
    public var gap: CoverageGap?
    /// This poll starts re-reading the whole retained log for some stream, to find sign-ins
    /// published after the lookback had passed them.
    public var sweep: Bool = false
    /// The version read.
    public var api: SignInLogAPI = .v1
    /// What to read, in order: per stream, everything since `lowerBound`, then one page of the
    /// re-read window below it.
    public var reads: [SignInRead] = []
    /// Streams not read this poll: Graph's `Retry-After`, kept in the state, has not passed.
    public var waiting: [SignInStream] = []
}

/// A stretch of time whose sign-ins were lost to retention while the agent was not polling.
public struct CoverageGap: Sendable, Equatable, Codable {
    public var from: Date
    public var to: Date
}

/// Decides each poll's reads from the state and the time, and where the re-read goes on next
/// time. Pure.
///
/// Each poll reads, per stream, everything since shortly before the last poll (`recentOverlap`),
/// and one page of the re-read window below that: a cursor walks down from there to a lookback
/// before the last poll (once a day, to the retention floor), one page a poll, and starts again
/// from the top when it gets there. A person with hundreds of token refreshes a day then costs
/// four requests a poll, not a request per thousand sign-ins in the lookback; one with few walks
/// the whole window every poll, as a single page holds it.
public struct PollPlanner: Sendable {
    public var retention: Double
    public var lookback: Double
    /// How often the re-read reaches the whole retained log instead of the lookback: Graph
    /// publishes some sign-ins hours or days late, after the lookback has passed them.
    public var sweepEvery: Double
    /// The version configured; a remembered fallback reads v1.0 until `fallbackRetry` has passed.
    public var api: SignInLogAPI

    /// How far before the last poll each poll reads in full: past the 99th percentile of
    /// publication delay Microsoft documented (5 minutes), with room for a late poll.
    public static let recentOverlap: TimeInterval = 1800
    /// How long the agent reads v1.0 after beta was refused before it asks beta again.
    public static let fallbackRetry: TimeInterval = 86_400

    public init(retentionDays: Int, lookback: Double, sweepEvery: Double = 86_400, api: SignInLogAPI = .v1) {
        self.retention = Double(retentionDays) * 86_400
        self.lookback = lookback
        self.sweepEvery = sweepEvery
        self.api = api
    }

    /// The version this poll reads: the configured one, unless beta was refused less than
    /// `fallbackRetry` ago.
    public func api(for state: AgentState, now: Date) -> SignInLogAPI {
        guard api == .beta, let fallback = state.fallback else { return api }
        return now.timeIntervalSince(fallback.lastTried) < Self.fallbackRetry ? .v1 : .beta
    }

    public func plan(_ state: AgentState, now: Date) -> PollPlan {
        let floor = now.addingTimeInterval(-retention)
        let api = api(for: state, now: now)
        // A stream Graph asked to wait is not asked again before its time, in this poll or any.
        let waiting = api.streams.filter { stream in state.streamHealth[stream]?.retryAfter.map { $0 > now } ?? false }
        guard state.learned, let last = state.lastSuccessfulPoll else {
            return PollPlan(lowerBound: floor, learning: true, alertOnlyAfter: now, gap: nil, api: api,
                            reads: api.streams.filter { !waiting.contains($0) }.map { SignInRead(stream: $0, notBefore: floor) }, waiting: waiting)
        }
        var gap: CoverageGap?
        // Everything up to the last poll was read then; what fell out of retention since is lost.
        if last < floor, state.reportedGapEnd.map({ $0 < floor }) ?? true {
            gap = CoverageGap(from: max(last, state.reportedGapEnd ?? last), to: floor)
        }
        let recent = max(last.addingTimeInterval(-Self.recentOverlap), floor)
        var plan = PollPlan(lowerBound: recent, learning: false, alertOnlyAfter: nil, gap: gap, api: api, waiting: waiting)
        for stream in api.streams where !waiting.contains(stream) {
            // A stream that fell behind (throttled, failing) reads from where it stopped.
            let from = state.streamHealth[stream].map { max(min($0.readFrom, recent), floor) } ?? recent
            plan.reads.append(SignInRead(stream: stream, notBefore: from))
            let cursor = reread(stream, state: state, last: last, now: now, recent: recent)
            if cursor.sweep && cursor.top { plan.sweep = true }
            plan.reads.append(SignInRead(stream: stream, notBefore: max(cursor.floor, floor), notAfter: cursor.upper, pageLimit: 1))
        }
        return plan
    }

    /// Where each stream's re-read goes on after this poll's reads.
    /// - Parameter results: the fetch's results, one per read of `plan`.
    public func advance(_ state: inout AgentState, plan: PollPlan, results: [SignInReadResult], now: Date) {
        if plan.learning {
            for stream in plan.api.streams { state.rereads[stream] = RereadCursor(lastSweep: now) }
            state.lastSweep = now
            return
        }
        guard let last = state.lastSuccessfulPoll else { return }
        let before = state
        for result in results where result.read.pageLimit != nil {
            let stream = result.read.stream
            var cursor = reread(stream, state: before, last: last, now: now, recent: plan.lowerBound)
            if cursor.sweep && cursor.top {
                cursor.lastSweep = now
                state.lastSweep = now
            }
            if result.complete || result.oldest == nil {
                // The walk reached its floor: the next poll starts again from the top.
                state.rereads[stream] = RereadCursor(lastSweep: cursor.lastSweep)
            } else if let oldest = result.oldest {
                // `le` the oldest read: sign-ins sharing its second are read again, not missed;
                // a page of one second only moves on a millisecond.
                let upper = oldest < (cursor.upper ?? .distantFuture) ? oldest : oldest.addingTimeInterval(-0.001)
                state.rereads[stream] = RereadCursor(upper: upper, floor: cursor.floor, sweep: cursor.sweep, lastSweep: cursor.lastSweep)
            }
        }
    }

    /// A stream's walk as this poll finds it: the one under way, or a new one from `recent`
    /// down to a lookback before the last poll (the retention floor when a sweep is due).
    private func reread(_ stream: SignInStream, state: AgentState, last: Date, now: Date, recent: Date) -> (upper: Date?, floor: Date, sweep: Bool, top: Bool, lastSweep: Date?) {
        let saved = state.rereads[stream]
        if let saved, let upper = saved.upper, let floor = saved.floor {
            return (upper, floor, saved.sweep, false, saved.lastSweep)
        }
        let lastSweep = saved?.lastSweep ?? state.lastSweep
        let sweepDue = lastSweep.map { now.timeIntervalSince($0) >= sweepEvery } ?? true
        let floor = sweepDue ? now.addingTimeInterval(-retention) : max(last.addingTimeInterval(-lookback), now.addingTimeInterval(-retention))
        return (recent, floor, sweepDue, true, lastSweep)
    }
}

/// Where one stream's re-read of the window below the recent reads has got to.
public struct RereadCursor: Sendable, Equatable, Codable {
    /// The next page's `createdDateTime le`; nil when the next poll starts a new walk.
    public var upper: Date?
    /// Where this walk ends.
    public var floor: Date?
    /// Whether this walk goes down to the retention floor.
    public var sweep: Bool = false
    /// When this stream's last walk to the retention floor started.
    public var lastSweep: Date?
}

/// Graph refused the beta sign-in log; the agent reads v1.0's interactive sign-ins meanwhile.
public struct StreamFallback: Sendable, Equatable, Codable {
    /// The first poll that was refused.
    public var since: Date
    /// The last poll that asked beta.
    public var lastTried: Date
    public var refusal: SignInFallback
}
