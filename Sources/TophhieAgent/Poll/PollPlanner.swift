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
    /// This poll starts a sweep of the retained log below the lookback for some stream, to find
    /// sign-ins published after the lookback had passed them.
    public var sweep: Bool = false
    /// The version read.
    public var api: SignInLogAPI = .v1
    /// What to read, in order: per stream, everything since `lowerBound`, then pages of the
    /// lookback walk below it, then a page of the sweep when one is under way.
    public var reads: [SignInRead] = []
    /// Streams not read this poll: Graph's `Retry-After`, kept in the state, has not passed.
    public var waiting: [SignInStream] = []
    /// The reads of `reads` that are sweeps to the retention floor, not the lookback walk.
    public var sweepReads: [SignInRead] = []
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
/// then two walks below that, each a few pages a poll:
/// - the **lookback walk** goes down from there to the lookback (and `walkMargin`) before the
///   last poll, as many pages a poll as let a whole walk take at most `walkGoal`, and starts again
///   from the top when it gets there. A sign-in Graph publishes late anywhere in the lookback is
///   therefore read within two walks: the rest of this one, and the next (`forecast`).
/// - the **sweep** goes down from the lookback to the retention floor, a page a poll, and starts
///   again once `sweepEvery` has passed since the last one started, for sign-ins published after
///   the lookback had passed them. It never holds up the lookback walk.
/// A person with few sign-ins reads each walk in a page; one with tens of thousands of token
/// refreshes a day reads a few pages a poll, paced to Graph's budget by the fetch.
public struct PollPlanner: Sendable {
    public var retention: Double
    public var lookback: Double
    /// How often the re-read reaches the whole retained log instead of the lookback: Graph
    /// publishes some sign-ins hours or days late, after the lookback has passed them.
    public var sweepEvery: Double
    /// The version configured; a remembered fallback reads v1.0 until `fallbackRetry` has passed.
    public var api: SignInLogAPI
    /// The most time between the starts of two polls: `poll.interval`, its jitter and
    /// `pollDuration` (the daemon waits after a poll ends).
    public var pollSpacing: Double

    /// How far before the last poll each poll reads in full: past the 99th percentile of
    /// publication delay Microsoft documented (5 minutes), with room for a late poll.
    public static let recentOverlap: TimeInterval = 1800
    /// How long the agent reads v1.0 after beta was refused before it asks beta again.
    public static let fallbackRetry: TimeInterval = 86_400
    /// The longest a whole lookback walk should take: a late sign-in is then found within two.
    public static let walkGoal: TimeInterval = 3600
    /// How far below the lookback the walk reaches, so a sign-in in the lookback when Graph
    /// publishes it is still above the floor of the next walk, which starts within `walkGoal`.
    public static let walkMargin: TimeInterval = walkGoal
    /// The most pages a walk reads in one poll: with the recent reads and the sweep, 24 requests,
    /// which the fetch paces to Graph's five per ten seconds in under 40 s.
    public static let maxPagesPerPoll = 10
    /// What a poll itself takes, allowed for between two polls' starts: the paced pages take
    /// about 10 s for the documented profile, delivery little when receivers answer.
    public static let pollDuration: TimeInterval = 30

    public init(retentionDays: Int, lookback: Double, sweepEvery: Double = 86_400, api: SignInLogAPI = .v1, pollSpacing: Double = 360) {
        self.retention = Double(retentionDays) * 86_400
        self.lookback = lookback
        self.sweepEvery = sweepEvery
        self.api = api
        self.pollSpacing = pollSpacing
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
        // Every stream's new sign-ins first: the walks after them are paced to Graph's budget.
        var walks: [SignInRead] = []
        for stream in api.streams where !waiting.contains(stream) {
            // A stream that fell behind (throttled, failing) reads from where it stopped.
            let from = state.streamHealth[stream].map { max(min($0.readFrom, recent), floor) } ?? recent
            plan.reads.append(SignInRead(stream: stream, notBefore: from))
            let walk = lookbackWalk(stream, state: state, last: last, now: now, recent: recent)
            walks.append(SignInRead(stream: stream, notBefore: max(walk.floor ?? floor, floor), notAfter: walk.upper, pageLimit: pagesPerPoll(walkPages: walkPages(walk))))
            if let sweep = sweepWalk(stream, state: state, last: last, now: now) {
                if sweep.top == sweep.upper { plan.sweep = true }
                plan.sweepReads.append(SignInRead(stream: stream, notBefore: max(sweep.floor ?? floor, floor), notAfter: sweep.upper, pageLimit: 1))
            }
        }
        plan.reads += walks + plan.sweepReads
        return plan
    }

    /// Where each stream's walks go on after this poll's reads.
    /// - Parameter results: the fetch's results, one per read of `plan`.
    public func advance(_ state: inout AgentState, plan: PollPlan, results: [SignInReadResult], now: Date) {
        if plan.learning {
            for stream in plan.api.streams {
                state.rereads[stream] = RereadCursor()
                state.sweeps[stream] = RereadCursor(sweep: true, lastSweep: now)
            }
            state.lastSweep = now
            return
        }
        guard let last = state.lastSuccessfulPoll else { return }
        let before = state
        for result in results where result.read.pageLimit != nil {
            let stream = result.read.stream
            if plan.sweepReads.contains(result.read) {
                guard var sweep = sweepWalk(stream, state: before, last: last, now: now) else { continue }
                if sweep.top == sweep.upper {
                    sweep.lastSweep = now
                    state.lastSweep = now
                }
                state.sweeps[stream] = Self.walked(sweep, result)
            } else {
                state.rereads[stream] = Self.walked(lookbackWalk(stream, state: before, last: last, now: now, recent: plan.lowerBound), result)
            }
        }
    }

    /// A walk after one poll's pages of it: where it goes on, or, at its floor, done.
    private static func walked(_ walk: RereadCursor, _ result: SignInReadResult) -> RereadCursor {
        let pages = walk.pages + result.pages
        guard !result.complete, let oldest = result.oldest else {
            // The walk reached its floor: the next poll starts again from the top.
            return RereadCursor(sweep: walk.sweep, lastSweep: walk.lastSweep, lastWalkPages: max(1, pages))
        }
        // `le` the oldest read: sign-ins sharing its second are read again, not missed; a page
        // of one second only moves on a millisecond.
        let upper = oldest < (walk.upper ?? .distantFuture) ? oldest : oldest.addingTimeInterval(-0.001)
        var next = walk
        next.upper = upper
        next.pages = pages
        return next
    }

    /// A stream's lookback walk as this poll finds it: the one under way, or a new one from
    /// `recent` down to the lookback and `walkMargin` before the last poll.
    private func lookbackWalk(_ stream: SignInStream, state: AgentState, last: Date, now: Date, recent: Date) -> RereadCursor {
        let saved = state.rereads[stream]
        // A walk saved before the sweep had a cursor of its own may be a sweep: it starts over.
        if let saved, saved.upper != nil, saved.floor != nil, !saved.sweep { return saved }
        let floor = max(last.addingTimeInterval(-lookback - Self.walkMargin), now.addingTimeInterval(-retention))
        return RereadCursor(upper: recent, floor: floor, top: recent, lastWalkPages: saved?.lastWalkPages)
    }

    /// A stream's sweep as this poll finds it: the one under way, a new one from the lookback's
    /// floor down to the retention floor when `sweepEvery` has passed since the last began, or nil.
    private func sweepWalk(_ stream: SignInStream, state: AgentState, last: Date, now: Date) -> RereadCursor? {
        let saved = state.sweeps[stream]
        if let saved, saved.upper != nil, saved.floor != nil { return saved }
        let lastSweep = saved?.lastSweep ?? state.rereads[stream]?.lastSweep ?? state.lastSweep
        if let lastSweep, now.timeIntervalSince(lastSweep) < sweepEvery { return nil }
        let top = max(last.addingTimeInterval(-lookback - Self.walkMargin), now.addingTimeInterval(-retention))
        return RereadCursor(upper: top, floor: now.addingTimeInterval(-retention), sweep: true, lastSweep: lastSweep, top: top, lastWalkPages: saved?.lastWalkPages)
    }

    /// How many pages a whole walk takes, as far as known: the last whole walk's, or this one's
    /// so far scaled to its span; nil before any page of it was read.
    public func walkPages(_ walk: RereadCursor) -> Int? {
        if let last = walk.lastWalkPages { return max(last, walk.pages) }
        guard walk.pages > 0, let top = walk.top, let upper = walk.upper, let floor = walk.floor, top > upper else { return nil }
        let scaled = (Double(walk.pages) * top.timeIntervalSince(floor) / top.timeIntervalSince(upper)).rounded(.up)
        return max(walk.pages, Int(min(scaled, 1_000_000)))
    }

    /// Pages a poll reads of a walk of `walkPages`: enough for the whole walk in `walkGoal`, at
    /// most `maxPagesPerPoll`; one while the size is not known.
    public func pagesPerPoll(walkPages: Int?) -> Int {
        guard let walkPages else { return 1 }
        let polls = max(1, Int(Self.walkGoal / pollSpacing))
        return min(Self.maxPagesPerPoll, max(1, (walkPages + polls - 1) / polls))
    }

    /// By when a sign-in Graph publishes now, late, anywhere in the lookback will have been read,
    /// from a stream's lookback walk and the last poll: the polls left in this walk and a whole
    /// next one, `pollSpacing` apart. Pure.
    public func forecast(_ walk: RereadCursor?, lastPoll: Date?) -> RereadForecast {
        let pages = walk.flatMap { walkPages($0) }
        let perPoll = pagesPerPoll(walkPages: pages)
        var forecast = RereadForecast(foundBy: nil, pagesRead: walk?.pages ?? 0, walkPages: pages, pagesPerPoll: perPoll, underWay: walk?.upper != nil, lookback: lookback)
        guard let walk, let pages, let lastPoll else { return forecast }
        func polls(_ count: Int) -> Int { (count + perPoll - 1) / perPoll }
        let left = walk.upper != nil ? polls(max(1, pages - walk.pages)) : 0
        forecast.foundBy = lastPoll.addingTimeInterval(Double(left + polls(pages)) * pollSpacing)
        return forecast
    }
}

/// Graph refused the beta sign-in log; the agent reads v1.0's interactive sign-ins meanwhile.
public struct StreamFallback: Sendable, Equatable, Codable {
    /// The first poll that was refused.
    public var since: Date
    /// The last poll that asked beta.
    public var lastTried: Date
    public var refusal: SignInFallback
}
